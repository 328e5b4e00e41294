// The saved views of the inbox (members; docs/product.md#views-saved-views-mentions-and-search-the-inbox): the team's
// and my own, each a link to the inbox as it was saved, with "Rename", "Up"/"Down" and "Delete" (after a confirmation)
// for the ones I may change. Plain forms: the same without JavaScript. The loader and action are in views.server.ts.
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, SubmitButton, replyErrors, replyFormErrors, replyValue } from '~/components/forms.tsx';
import type { action, loader } from './views.server.ts';

export { action, loader } from './views.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Saved views · ${data.workspace.name} · Tend` : 'Saved views · Tend' },
  { name: 'description', content: 'The inbox’s saved views: rename, reorder and delete them.' },
];

type View = ReturnType<typeof useLoaderData<typeof loader>>['views'][number];

function ViewRow({ view, first, last }: { view: View; first: boolean; last: boolean }) {
  const { workspace } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const mine = answer?.target === view.id ? answer.result : undefined;
  const nameErrors = replyErrors(mine, 'name');
  const move = (direction: 'up' | 'down', label: string, disabled: boolean) => (
    <Form method="post" className="inline-form">
      <input type="hidden" name="id" value={view.id} />
      <input type="hidden" name="direction" value={direction} />
      <button
        type="submit"
        name="intent"
        value="move"
        className="button button--ghost"
        disabled={disabled}
        aria-label={`Move ${view.name} ${direction}`}
      >
        {label}
      </button>
    </Form>
  );
  return (
    <li className="hd-view-row" data-testid="view-row">
      <a href={view.href}>
        <bdi>{view.name}</bdi>
      </a>
      {view.editable ? (
        <div className="hd-view-row__actions">
          <Form method="post" className="hd-view-row__rename">
            <input type="hidden" name="id" value={view.id} />
            <label htmlFor={`name-${view.id}`} className="visually-hidden">
              New name for {view.name}
            </label>
            <input
              id={`name-${view.id}`}
              name="name"
              className="input"
              required
              maxLength={60}
              defaultValue={replyValue(mine, 'name') ?? view.name}
              aria-invalid={nameErrors ? true : undefined}
              aria-describedby={nameErrors ? `name-${view.id}-error` : undefined}
            />
            <SubmitButton name="intent" value="rename" className="button button--secondary">
              Rename
            </SubmitButton>
            <ErrorList id={`name-${view.id}-error`} errors={nameErrors} />
          </Form>
          {move('up', '↑ Up', first)}
          {move('down', '↓ Down', last)}
          <a href={`/w/${workspace.slug}/views?delete=${view.id}`} className="button button--ghost">
            Delete<span className="visually-hidden"> {view.name}</span>
          </a>
          <ErrorList errors={replyFormErrors(mine, 'id', 'direction')} />
        </div>
      ) : null}
    </li>
  );
}

function ViewList({ title, views, empty }: { title: string; views: View[]; empty: string }) {
  const editable = views.filter((v) => v.editable);
  return (
    <section className="card stack" aria-labelledby={`views-${title}`}>
      <h2 id={`views-${title}`}>{title}</h2>
      {views.length ? (
        <ul className="hd-view-list">
          {views.map((v) => (
            <ViewRow key={v.id} view={v} first={editable[0] === v} last={editable.at(-1) === v} />
          ))}
        </ul>
      ) : (
        <p className="muted">{empty}</p>
      )}
    </section>
  );
}

export default function SavedViews() {
  const { workspace, notice, views, confirmDelete } = useLoaderData<typeof loader>();
  return (
    <div className="stack-lg">
      <div>
        <p className="eyebrow">{workspace.name}</p>
        <h1>Saved views</h1>
        <p className="muted">
          Save a view from the <a href={`/w/${workspace.slug}`}>inbox</a>: its view, search, filters and sort under a
          name. Your own views are yours alone; admins share views with the team.
        </p>
      </div>
      {notice ? (
        <p className="notice notice--success" role="status">
          {notice}
        </p>
      ) : null}
      {confirmDelete ? (
        <Form method="post" className="card stack" aria-label="Confirm the deletion">
          <input type="hidden" name="id" value={confirmDelete.id} />
          <p>
            Delete the view “<bdi>{confirmDelete.name}</bdi>”?{' '}
            {confirmDelete.shared ? 'It goes for everyone in the team.' : 'Only the view goes, not its tickets.'}
          </p>
          <div className="hd-check">
            <SubmitButton name="intent" value="delete">
              Delete view
            </SubmitButton>
            <a href={`/w/${workspace.slug}/views`}>Cancel</a>
          </div>
        </Form>
      ) : null}
      <ViewList title="The team’s views" views={views.filter((v) => v.shared)} empty="No shared views yet." />
      <ViewList title="Your views" views={views.filter((v) => !v.shared)} empty="No views of your own yet." />
    </div>
  );
}
