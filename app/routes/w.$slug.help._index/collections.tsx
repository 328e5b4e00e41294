// The workspace's collections; admins add one (title, description) or delete one (its articles stay).
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, Field, SubmitButton, replyErrors, replyFormErrors } from '~/components/forms.tsx';
import { COLLECTION_DESCRIPTION_MAX_LENGTH, COLLECTION_TITLE_MAX_LENGTH } from '~/lib/help/limits.ts';
import type { action, loader } from './help-list.server.ts';

export function Collections() {
  const { isAdmin, collections } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <section className="card stack" aria-labelledby="collections-title">
      <h2 id="collections-title">Collections</h2>
      {collections.length ? (
        <ul className="hd-list">
          {collections.map((c) => (
            <li key={c.id} className="hd-list__item">
              <span>{c.title}</span>
              {isAdmin ? (
                <Form method="post">
                  <input type="hidden" name="collection_id" value={c.id} />
                  <button type="submit" name="intent" value="delete_collection" className="button button--ghost">
                    Delete<span className="visually-hidden"> {c.title}</span>
                  </button>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No collections yet.</p>
      )}
      {isAdmin ? (
        <Form method="post" className="stack" noValidate aria-label="New collection">
          <Field
            label="New collection"
            errors={replyErrors(actionData?.result, 'title')}
            inputProps={{
              id: 'collection-title',
              name: 'title',
              required: true,
              maxLength: COLLECTION_TITLE_MAX_LENGTH,
            }}
          />
          <Field
            label="Description (optional)"
            errors={replyErrors(actionData?.result, 'description')}
            inputProps={{
              id: 'collection-description',
              name: 'description',
              maxLength: COLLECTION_DESCRIPTION_MAX_LENGTH,
            }}
          />
          <ErrorList errors={replyFormErrors(actionData?.result)} />
          <SubmitButton name="intent" value="add_collection" className="button button--secondary">
            Add collection
          </SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}
