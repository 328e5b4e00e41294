// The inbox (members only): views and saved views, search across views, filters, newest activity first,
// 25 compact rows a page, and "Claim next" (claim_next_ticket: the oldest unassigned request goes to
// me). The loader and the action are in inbox.server.ts; the views, filters, search and table beside
// this file. On a phone the views and filters fold into one bar (a <details>, so without JavaScript too).
import type { MetaFunction } from '@remix-run/node';
import { type ClientLoaderFunctionArgs, Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { ErrorList, SubmitButton, replyFormErrors, replyValue, useIsPending } from '~/components/forms.tsx';
import { useDelegatedLinks } from '~/components/use-delegated-links.ts';
import { LiveInbox } from '~/components/live/live-inbox.tsx';
import { loadOrKeep } from '~/components/live/kept-page.ts';
import { FirstRun } from '~/components/first-run.tsx';
import { INBOX_PAGE_SIZE } from '~/lib/constants.ts';
import { countLabel, VIEW_LABELS } from '~/lib/helpdesk/inbox-views.ts';
import { InboxFilters } from './filters.tsx';
import type { action, loader } from './inbox.server.ts';
import { inboxHref } from '~/lib/helpdesk/inbox-href.ts';
import { InboxTable } from './table.tsx';
import { BulkBar, EmptyTrash } from './bulk.tsx';
import { SaveView, ViewTabs } from './saved-views.tsx';
import { SearchHeading } from './search.tsx';
import { useState } from 'react';

export { action, loader } from './inbox.server.ts';

/** A live update the network fails to load keeps the inbox as shown (kept-page.ts). */
export const clientLoader = ({ request, serverLoader }: ClientLoaderFunctionArgs) =>
  loadOrKeep(request, serverLoader<typeof loader>);

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Inbox · ${data.workspace.name} · Tend` : 'Inbox · Tend' },
  { name: 'description', content: 'The team’s shared inbox: views, search, filters and the next request to take.' },
];

const count = new Intl.NumberFormat('en');

/** "26–50 of 17,588", or "Page 2" for a search, whose matches aren't counted. */
function rangeLabel(page: number, shown: number, total: number | null): string {
  if (total === null) return `Page ${page}`;
  const first = (page - 1) * INBOX_PAGE_SIZE + 1;
  return shown
    ? `${count.format(first)}–${count.format(first + shown - 1)} of ${count.format(total)}`
    : `0 of ${count.format(total)}`;
}

export default function Inbox() {
  const {
    workspace,
    me,
    view,
    listed,
    filters,
    keep,
    searchCounts,
    savedViews,
    page,
    total,
    counts,
    tickets,
    older,
    newer,
    nothingToClaim,
    available,
    adminOf,
    firstRun,
    searchError,
  } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // Pending for "Claim next" only, not for a bulk change or a saved view sent to the same address.
  const pending = useIsPending();
  const sending = useNavigation().formData?.get('intent');
  const claiming = pending && sending !== 'bulk' && sending !== 'save_view';
  const followLink = useDelegatedLinks();
  // How many rows are checked (JavaScript: the bar says so), until a change is done (it clears them).
  const done = actionData && 'done' in actionData ? actionData.done : undefined;
  const [selection, setSelection] = useState<{ n: number; done?: string } | null>(null);
  const selected = selection && selection.done === done ? selection.n : null;
  // The bar's summary on a phone: the view shown, its count, and how many filters are on.
  const savedHere = savedViews.find((v) => v.current);
  const shownCount = savedHere ? savedHere.count : searchCounts ? null : listed === 'breaching' ? null : counts[listed];
  const filtersOn =
    [filters.status, filters.priority, filters.assignee, filters.sort].filter(Boolean).length +
    filters.tag.length +
    Object.keys(filters.fields).length;
  return (
    // The inbox's links are plain anchors (cheap to render); clicks still navigate in the app.
    // biome-ignore lint/a11y/useKeyWithClickEvents: delegation for the anchors inside, which take the keyboard themselves
    <section className="hd-inbox" aria-labelledby="inbox-title" onClick={followLink}>
      <div className="hd-inbox__head">
        <h1 id="inbox-title">Inbox</h1>
        <span className="hd-inbox__workspace">{workspace.name}</span>
        <LiveInbox
          workspaceId={workspace.id}
          me={me}
          laterPage={!!newer}
          newestHref={inboxHref(workspace.slug, keep)}
        />
        <div className="hd-toolbar">
          <a href={`/w/${workspace.slug}/tickets/new`} className="button button--secondary">
            New conversation
          </a>
          {adminOf ? (
            <a
              href={`/w/${workspace.slug}/export.csv${inboxHref('', keep).slice('/w/'.length)}`}
              download
              className="button button--secondary"
            >
              Export CSV
            </a>
          ) : null}
          {available === null ? null : (
            <Form method="post" className="hd-claim">
              <input type="hidden" name="available" value={available ? 'off' : 'on'} />
              <span className="muted small" data-testid="availability">
                {available ? 'Available for new tickets' : 'Away: no new tickets'}
              </span>{' '}
              <SubmitButton name="intent" value="availability" className="button button--secondary">
                {available ? 'Go away' : 'Become available'}
              </SubmitButton>
            </Form>
          )}
          <Form method="post" className="hd-claim">
            <SubmitButton pending={claiming} name="intent" value="claim_next" data-shortcut="c">
              Claim next
            </SubmitButton>
          </Form>
        </div>
      </div>
      {nothingToClaim ? (
        <p className="notice notice--success" role="status">
          Nothing to claim: every open request has an owner.
        </p>
      ) : null}
      {/* Claim next's and Empty trash's refusals; the bulk bar shows its own. */}
      <ErrorList
        errors={
          actionData &&
          'result' in actionData &&
          ['claim_next', 'empty_trash'].includes(replyValue(actionData.result, 'intent') ?? '')
            ? replyFormErrors(actionData.result)
            : undefined
        }
      />
      {firstRun ? <FirstRun slug={workspace.slug} portal={firstRun.portal} admin={!!adminOf} /> : null}
      <details className="hd-bar">
        <summary className="hd-bar__summary">
          <span>
            {savedHere ? <bdi>{savedHere.name}</bdi> : filters.q && !filters.scope ? 'All views' : VIEW_LABELS[listed]}
            {shownCount === null ? null : <span className="hd-count"> {countLabel(shownCount)}</span>}
          </span>
          <span className="muted"> · Views and filters{filtersOn ? ` (${filtersOn} on)` : ''}</span>
        </summary>
        <div className="hd-bar__body">
          <ViewTabs />
          <InboxFilters />
          <SaveView />
        </div>
      </details>
      {searchError ? (
        <p className="notice notice--error" role="alert" data-testid="search-error">
          {searchError}
        </p>
      ) : null}
      <SearchHeading />
      {done ? (
        <p className="notice notice--success" role="status" data-testid="bulk-done">
          {actionData && 'bulk' in actionData ? actionData.bulk : null}
        </p>
      ) : null}
      {/* A change done starts both afresh (nothing checked); siblings' keys differ. A search that timed out
          lists nothing: its message says so, not "No requests here". */}
      {tickets.length ? <BulkBar selected={selected} key={`bar-${done}`} /> : null}
      {view === 'trash' && adminOf && tickets.length ? <EmptyTrash /> : null}
      <InboxTable key={`table-${done}`} onSelected={(n) => setSelection({ n, done })} />
      {older || newer ? (
        <nav aria-label="Pages" className="hd-pager">
          {newer ? (
            // From page 2 back to the first page itself (the newest, live), not to the tickets just before the
            // cursor: with requests come in since, those would be a "first" page with newer ones still above.
            <a
              href={
                page <= 2
                  ? inboxHref(workspace.slug, keep)
                  : inboxHref(workspace.slug, { ...keep, before: newer, page: page - 1 })
              }
              rel="prev"
            >
              ← Newer
            </a>
          ) : (
            <span />
          )}
          <span className="muted" data-testid="inbox-range">
            {rangeLabel(page, tickets.length, total)}
          </span>
          {older ? (
            <a href={inboxHref(workspace.slug, { ...keep, after: older, page: page + 1 })} rel="next">
              Older →
            </a>
          ) : (
            <span />
          )}
        </nav>
      ) : null}
    </section>
  );
}
