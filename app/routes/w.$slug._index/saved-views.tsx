// The inbox's views (docs/product.md#views-saved-views-mentions-and-search-the-inbox): the built-in ones and the saved
// ones as tabs with their counts (a search's matches per view while searching), and "Save this view", a plain form in a
// <details> that keeps the page's view, search, filters and sort under a name (admins may share it).
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, Field, SubmitButton, replyErrors, replyValue } from '~/components/forms.tsx';
import { countLabel, INBOX_VIEWS, searchCountLabel, VIEW_LABELS } from '~/lib/helpdesk/inbox-views.ts';
import type { action, loader } from './inbox.server.ts';
import { inboxHref } from '~/lib/helpdesk/inbox-href.ts';

export function ViewTabs() {
  const { workspace, listed, filters, keep, counts, searchCounts, savedViews } = useLoaderData<typeof loader>();
  const saved = savedViews.some((v) => v.current);
  // While searching, a tab narrows the search to its view and counts the matches there (none counted in Spam
  // and Trash, which no search count covers: no count rather than "NaN").
  const count = (v: (typeof INBOX_VIEWS)[number]) =>
    v === 'breaching'
      ? null
      : searchCounts
        ? v in searchCounts
          ? searchCountLabel(searchCounts[v], searchCounts.capped)
          : null
        : (counts[v] ?? null);
  return (
    <nav aria-label="Views">
      <ul className="hd-tabs">
        {INBOX_VIEWS.map((v) => (
          <li key={v}>
            <a
              href={inboxHref(workspace.slug, {
                ...keep,
                view: v,
                scope: filters.q && v !== 'all' ? 'view' : undefined,
              })}
              className="hd-tab"
              aria-current={v === listed && !saved ? 'page' : undefined}
            >
              {VIEW_LABELS[v]}{' '}
              {count(v) === null ? null : (
                <span className="hd-count" data-testid={`count-${v}`}>
                  {count(v)}
                </span>
              )}
            </a>
          </li>
        ))}
        {savedViews.map((v) => (
          <li key={v.id}>
            <a
              href={v.href}
              className="hd-tab hd-tab--saved"
              aria-current={v.current ? 'page' : undefined}
              title={v.shared ? 'Shared with the team' : 'Only you see this view'}
              data-testid="saved-view"
            >
              <bdi>{v.name}</bdi>
              {v.shared ? <span className="visually-hidden"> (shared)</span> : null}{' '}
              {v.count === null ? null : <span className="hd-count">{countLabel(v.count)}</span>}
            </a>
          </li>
        ))}
        {savedViews.length ? (
          <li>
            <a href={`/w/${workspace.slug}/views`} className="hd-tab hd-tab--edit">
              Edit views
            </a>
          </li>
        ) : null}
      </ul>
    </nav>
  );
}

export function SaveView() {
  const { adminOf } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const result = answer && 'result' in answer ? answer.result : undefined;
  const nameErrors = replyErrors(result, 'name');
  const sharedErrors = replyErrors(result, 'shared');
  return (
    <details className="hd-save-view" open={!!(nameErrors || sharedErrors)}>
      <summary>Save this view</summary>
      <Form method="post" className="hd-save-view__form">
        <input type="hidden" name="intent" value="save_view" />
        <Field
          label="Name"
          errors={nameErrors}
          inputProps={{
            id: 'view-name',
            name: 'name',
            required: true,
            maxLength: 60,
            autoComplete: 'off',
            defaultValue: replyValue(result, 'name'),
          }}
        />
        {adminOf ? (
          <label className="hd-check">
            <input type="checkbox" name="shared" value="on" /> Share with the team
          </label>
        ) : null}
        <ErrorList errors={sharedErrors} />
        <SubmitButton className="button button--secondary">Save view</SubmitButton>
      </Form>
    </details>
  );
}
