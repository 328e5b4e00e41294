// A ticket's followers as plain forms (docs/product.md#followers): /w/:slug/tickets/:number/followers, where
// they post, shows them (with a refused address kept at its field), and the ticket page's sidebar shows
// them as markup rendered on the server, so the ticket page carries no code for them
// (docs/decisions/006-javascript-budget.md). The same with JavaScript or without.
import { Field, type FormReply, replyErrors, replyValue } from './forms.tsx';

export interface TicketFollower {
  user_id: string;
  name: string;
  email: string;
}

export function TicketFollowersForm({
  action,
  followers,
  customers,
  result,
}: {
  /** Where the forms post: /w/:slug/tickets/:number/followers. */
  action: string;
  followers: TicketFollower[];
  /** Existing customers' addresses, suggested as the address is typed (the followers page only). */
  customers?: string[];
  result?: FormReply;
}) {
  return (
    <>
      {followers.length ? (
        <form method="post" action={action} aria-label="Followers">
          <input type="hidden" name="intent" value="remove_follower" />
          <ul className="hd-side-list hd-followers small" data-testid="followers">
            {followers.map((f) => (
              <li key={f.user_id}>
                <bdi>{f.name}</bdi> <span className="muted">{f.email}</span>{' '}
                <button
                  type="submit"
                  name="user_id"
                  value={f.user_id}
                  className="hd-tag-remove"
                  aria-label={`Remove follower ${f.email}`}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        </form>
      ) : null}
      <form method="post" action={action} className="stack" noValidate>
        <Field
          label="Add a follower (email address)"
          errors={replyErrors(result, 'email')}
          inputProps={{
            id: 'follower-email',
            name: 'email',
            type: 'email',
            list: customers?.length ? 'follower-customers' : undefined,
            defaultValue: replyValue(result, 'email'),
          }}
        />
        {customers?.length ? (
          <datalist id="follower-customers">
            {customers.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
        ) : null}
        <button type="submit" name="intent" value="add_follower" className="button button--secondary">
          Add follower
        </button>
      </form>
    </>
  );
}
