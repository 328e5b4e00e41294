// A search in the inbox (docs/product.md#views-saved-views-mentions-and-search-the-inbox, issue 25 item 9): it looks in
// every view and says so, with its matches per view (the tabs show them too); narrowed to one view (scope=view) it says
// which, with a way back to all. Nothing found: what to try next.
import { useLoaderData } from '@remix-run/react';
import { searchCountLabel, VIEW_LABELS } from '~/lib/helpdesk/inbox-views.ts';
import type { loader } from './inbox.server.ts';
import { inboxHref } from '~/lib/helpdesk/inbox-href.ts';

/** "Results in all views (12): Unassigned 3 · Open 7 …", or "Results in Open · Search all views". */
export function SearchHeading() {
  const { workspace, listed, filters, keep, searchCounts } = useLoaderData<typeof loader>();
  if (!filters.q || !searchCounts) return null;
  const { capped } = searchCounts;
  const views = (['unassigned', 'mine', 'mentions', 'open', 'pending', 'snoozed', 'solved'] as const).filter(
    (v) => searchCounts[v] > 0,
  );
  return (
    <p className="hd-results small" data-testid="search-results">
      {filters.scope ? (
        <>
          <strong>Results in {VIEW_LABELS[listed]}</strong> ·{' '}
          <a href={inboxHref(workspace.slug, { ...keep, scope: undefined })}>
            Search all views ({searchCountLabel(searchCounts.all, capped)})
          </a>
        </>
      ) : (
        <>
          <strong>Results in all views ({searchCountLabel(searchCounts.all, capped)})</strong>
          {views.map((v) => (
            <span key={v}>
              {' · '}
              <a href={inboxHref(workspace.slug, { ...keep, view: v, scope: 'view' })} data-testid={`in-${v}`}>
                {VIEW_LABELS[v]} {searchCountLabel(searchCounts[v], capped)}
              </a>
            </span>
          ))}
        </>
      )}
    </p>
  );
}

/** No match: say where it looked, and what to try. */
export function NoMatches() {
  const { workspace, view, listed, filters, keep, searchCounts } = useLoaderData<typeof loader>();
  const filtered =
    filters.status || filters.priority || filters.assignee || filters.tag.length || Object.keys(filters.fields).length;
  const elsewhere = filters.scope && searchCounts && searchCounts.all > 0;
  return (
    <div className="hd-empty" data-testid="inbox-empty">
      <p>
        Nothing matches “<bdi>{filters.q}</bdi>” {filters.scope ? `in ${VIEW_LABELS[listed]}` : 'in any view'}.
      </p>
      <p className="muted">Try:</p>
      <ul className="muted">
        {elsewhere ? (
          <li>
            <a href={inboxHref(workspace.slug, { ...keep, scope: undefined })}>searching all views</a> (
            {searchCountLabel(searchCounts.all, searchCounts.capped)} there)
          </li>
        ) : null}
        <li>fewer words, or the start of a word (“ref” finds “refund”)</li>
        <li>checking the spelling</li>
        {filtered ? (
          <li>
            <a
              href={inboxHref(workspace.slug, { view, q: filters.q, scope: filters.scope })}
              data-testid="clear-filters"
            >
              clearing the filters
            </a>
          </li>
        ) : null}
      </ul>
    </div>
  );
}
