// The workspace's collections; admins add one (title, description), rename one (`?rename=<id>`: a new
// title gives a new address, and the old one redirects to it) or delete one (its articles stay).
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import {
  ErrorList,
  Field,
  type FormReply,
  SubmitButton,
  replyErrors,
  replyFormErrors,
  replyValue,
} from '~/components/forms.tsx';
import { COLLECTION_DESCRIPTION_MAX_LENGTH, COLLECTION_TITLE_MAX_LENGTH } from '~/lib/help/limits.ts';
import type { action, loader } from './help-list.server.ts';

export function Collections() {
  const { workspace, isAdmin, collections, renaming } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const base = `/w/${workspace.slug}/help`;
  // An answer to the rename form belongs to that collection's form; any other to "New collection".
  const renamed = actionData && 'at' in actionData && actionData.at ? actionData.at : null;
  const open = renamed ?? renaming;
  const newResult = renamed ? undefined : actionData?.result;
  return (
    <section className="card stack" aria-labelledby="collections-title">
      <h2 id="collections-title">Collections</h2>
      {collections.length ? (
        <ul className="hd-list">
          {collections.map((c) =>
            isAdmin && c.id === open ? (
              <li key={c.id} className="hd-list__item">
                <CollectionForm
                  id={c.id}
                  title={c.title}
                  description={c.description}
                  result={renamed ? actionData?.result : undefined}
                  cancel={base}
                />
              </li>
            ) : (
              <li key={c.id} className="hd-list__item">
                <span>
                  <bdi>{c.title}</bdi> <span className="muted small">/help/{c.slug}</span>
                </span>
                {isAdmin ? (
                  <span className="hd-actions">
                    <Link to={`${base}?rename=${c.id}`} className="button button--ghost">
                      Rename<span className="visually-hidden"> {c.title}</span>
                    </Link>
                    <Form method="post">
                      <input type="hidden" name="collection_id" value={c.id} />
                      <button type="submit" name="intent" value="delete_collection" className="button button--ghost">
                        Delete<span className="visually-hidden"> {c.title}</span>
                      </button>
                    </Form>
                  </span>
                ) : null}
              </li>
            ),
          )}
        </ul>
      ) : (
        <p className="muted">No collections yet.</p>
      )}
      {isAdmin ? (
        <Form method="post" className="stack" noValidate aria-label="New collection">
          <Field
            label="New collection"
            errors={replyErrors(newResult, 'title')}
            inputProps={{
              id: 'collection-title',
              name: 'title',
              required: true,
              maxLength: COLLECTION_TITLE_MAX_LENGTH,
            }}
          />
          <Field
            label="Description (optional)"
            errors={replyErrors(newResult, 'description')}
            inputProps={{
              id: 'collection-description',
              name: 'description',
              maxLength: COLLECTION_DESCRIPTION_MAX_LENGTH,
            }}
          />
          <ErrorList errors={replyFormErrors(newResult)} />
          <SubmitButton name="intent" value="add_collection" className="button button--secondary">
            Add collection
          </SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}

/** The rename form of one collection, in its place in the list. */
function CollectionForm({
  id,
  title,
  description,
  result,
  cancel,
}: {
  id: string;
  title: string;
  description: string;
  result: FormReply | undefined;
  cancel: string;
}) {
  return (
    <Form method="post" className="stack hd-grow" noValidate aria-label={`Rename ${title}`}>
      <input type="hidden" name="collection_id" value={id} />
      <Field
        label="Title"
        hint="Its address follows the title; links to the old address keep working."
        errors={replyErrors(result, 'title')}
        inputProps={{
          id: 'rename-title',
          name: 'title',
          required: true,
          maxLength: COLLECTION_TITLE_MAX_LENGTH,
          defaultValue: replyValue(result, 'title') ?? title,
        }}
      />
      <Field
        label="Description (optional)"
        errors={replyErrors(result, 'description')}
        inputProps={{
          id: 'rename-description',
          name: 'description',
          maxLength: COLLECTION_DESCRIPTION_MAX_LENGTH,
          defaultValue: replyValue(result, 'description') ?? description,
        }}
      />
      <ErrorList errors={replyFormErrors(result)} />
      <p className="hd-actions">
        <SubmitButton name="intent" value="rename_collection">
          Save
        </SubmitButton>
        <Link to={cancel} className="button button--ghost">
          Cancel
        </Link>
      </p>
    </Form>
  );
}
