// Members and invitations (admins only, docs/product.md §2, §6): who belongs with their role and since
// when, change a role, remove someone after a confirmation that offers to hand their tickets to another
// member (?remove=<member>; never the last admin: the database's `last_admin`), invite by
// email with a role, and the pending invitations with resend and revoke. Row-level security decides
// every read and write; an agent is refused here as there.
import type { MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useLocation } from '@remix-run/react';
import {
  ErrorList,
  Field,
  SubmitButton,
  replyErrors,
  replyFormErrors,
  replyValue,
  SelectField,
} from '~/components/forms.tsx';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import { EMAIL_MAX_LENGTH, INVITATION_LIFETIME_DAYS } from '~/lib/constants.ts';
import type { MemberRole } from '~/lib/helpdesk/ticket-terms.ts';
import type { action, loader } from './members.server.ts';

export { action, loader } from './members.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Members · ${data.workspace.name} · Tend` : 'Members · Tend' },
  { name: 'description', content: 'The workspace’s members and invitations: invite, change roles, remove.' },
];

const ROLE_LABELS: Record<MemberRole, string> = { admin: 'Admin', agent: 'Agent' };

export default function MembersPage() {
  const { workspace, me, notice, members, invitations, removing } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // Each arrival after a sent invitation starts the invite form afresh. While it is refused the form
  // stays mounted (what is typed stays, also when the loaders revalidate after the action).
  const { key: arrival } = useLocation();
  const result = actionData?.result;
  const invite = result?.initialValue?.intent === 'invite' ? result : undefined;
  // A refusal is shown at the row it concerns, or at the invite form.
  const rowErrors = (id: string) => (actionData?.target === id ? replyFormErrors(result, 'role') : undefined);

  return (
    <section className="stack-lg" aria-labelledby="members-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="members"
        title="Members"
        titleId="members-title"
        // A refusal is the news: not the notice of the change before it (?done= stays in the URL).
        notice={actionData ? null : notice}
      />

      <section className="card stack" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        <Form method="post" noValidate className="hd-actions hd-invite" id="invite" key={invite ? 'refused' : arrival}>
          <Field
            label="Email address"
            errors={replyErrors(invite, 'email')}
            inputProps={{
              id: 'invite-email',
              name: 'email',
              type: 'email',
              required: true,
              maxLength: EMAIL_MAX_LENGTH,
              autoComplete: 'off',
              spellCheck: false,
              defaultValue: replyValue(invite, 'email'),
            }}
          />
          <SelectField id="invite-role" name="role" label="Role" defaultValue={replyValue(invite, 'role') ?? 'agent'}>
            <option value="agent">Agent</option>
            <option value="admin">Admin</option>
          </SelectField>
          <SubmitButton name="intent" value="invite">
            Send invitation
          </SubmitButton>
        </Form>
        <ErrorList id="invite-error" errors={replyFormErrors(invite, 'role')} />
        <p className="muted small">
          They get an email with a link to the invitation (they sign in with that address to accept). It works for{' '}
          {INVITATION_LIFETIME_DAYS} days.
        </p>
      </section>

      <section className="card stack" aria-labelledby="team-title">
        <h2 id="team-title">Team ({members.length})</h2>
        <ul className="hd-list" data-testid="members">
          {members.map((m) => (
            <li key={m.user_id} className="hd-list__item hd-member" data-testid="member">
              <div className="hd-member__who">
                <strong>{m.name}</strong>
                {m.user_id === me ? <span className="muted"> (you)</span> : null}
                <span className="muted small">
                  {' '}
                  · {ROLE_LABELS[m.role]} since {m.since}
                </span>
              </div>
              <Form method="post" className="hd-actions">
                <input type="hidden" name="member" value={m.user_id} />
                <SelectField id={`role-${m.user_id}`} name="role" label={`Role of ${m.name}`} defaultValue={m.role}>
                  <option value="agent">Agent</option>
                  <option value="admin">Admin</option>
                </SelectField>
                <SubmitButton name="intent" value="role" className="button button--secondary">
                  Change role
                </SubmitButton>
                <Link to={`?remove=${m.user_id}#remove-confirm`} className="button button--ghost">
                  {m.user_id === me ? 'Leave' : 'Remove'}
                  <span className="visually-hidden"> {m.name}</span>
                </Link>
              </Form>
              <ErrorList id={`member-${m.user_id}-error`} errors={rowErrors(m.user_id)} />
              {removing?.user_id === m.user_id ? (
                <Form
                  method="post"
                  id="remove-confirm"
                  className="notice notice--warning stack hd-remove"
                  aria-labelledby="remove-title"
                >
                  <h3 id="remove-title">
                    {m.user_id === me ? `Leave ${workspace.name}?` : `Remove ${m.name} from ${workspace.name}?`}
                  </h3>
                  <p>
                    {m.user_id === me ? 'You' : 'They'} lose access at once.{' '}
                    {removing.tickets === 0
                      ? 'No tickets are assigned to them, other than closed ones.'
                      : `${removing.tickets} ${removing.tickets === 1 ? 'ticket that isn’t' : 'tickets that aren’t'} closed ${removing.tickets === 1 ? 'is' : 'are'} assigned to them.`}
                  </p>
                  <input type="hidden" name="member" value={m.user_id} />
                  {removing.tickets > 0 ? (
                    <SelectField id="reassign-to" name="reassign_to" label="Their tickets go to" defaultValue="">
                      <option value="">Nobody: back to Unassigned</option>
                      {members
                        .filter((o) => o.user_id !== m.user_id)
                        .map((o) => (
                          <option key={o.user_id} value={o.user_id}>
                            {o.name}
                          </option>
                        ))}
                    </SelectField>
                  ) : null}
                  <div className="hd-actions">
                    <SubmitButton name="intent" value="remove" className="button button--danger">
                      {m.user_id === me ? 'Leave the workspace' : `Remove ${m.name}`}
                    </SubmitButton>
                    <Link to="." className="button button--secondary">
                      Cancel
                    </Link>
                  </div>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      </section>

      <section className="card stack" aria-labelledby="pending-title">
        <h2 id="pending-title">Pending invitations</h2>
        {invitations.length ? (
          <ul className="hd-list" data-testid="invitations">
            {invitations.map((i) => (
              <li key={i.id} className="hd-list__item hd-member" data-testid="invitation">
                <div className="hd-member__who">
                  <strong>{i.email}</strong>
                  <span className="muted small">
                    {' '}
                    · {ROLE_LABELS[i.role]} · {i.expired ? `expired ${i.expires}` : `expires ${i.expires}`}
                  </span>
                </div>
                <Form method="post" className="hd-actions">
                  <input type="hidden" name="invitation" value={i.id} />
                  <SubmitButton name="intent" value="resend" className="button button--secondary">
                    Resend<span className="visually-hidden"> to {i.email}</span>
                  </SubmitButton>
                  <SubmitButton name="intent" value="revoke" className="button button--ghost">
                    Revoke<span className="visually-hidden"> for {i.email}</span>
                  </SubmitButton>
                </Form>
                <ErrorList id={`invitation-${i.id}-error`} errors={rowErrors(i.id)} />
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No pending invitations.</p>
        )}
      </section>
    </section>
  );
}
