// The inbox (members only): views, search, filters, newest activity first, 25 a page, and
// "Claim next" (claim_next_ticket: the oldest unassigned request goes to me). The loader and the
// action are in inbox.server.ts; the filters and the table beside this file.
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { ErrorList, SubmitButton, replyFormErrors, replyValue, useIsPending } from '~/components/forms.tsx';
import { useDelegatedLinks } from '~/components/use-delegated-links.ts';
import { LiveInbox } from '~/components/live/live-inbox.tsx';
import { FirstRun } from '~/components/first-run.tsx';
import { INBOX_PAGE_SIZE } from '~/lib/constants.ts';
import { INBOX_VIEWS, VIEW_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import { InboxFilters } from './filters.tsx';
import type { action, loader } from './inbox.server.ts';
import { inboxHref } from './inbox-href.ts';
import { InboxTable } from './table.tsx';
import { BulkBar, EmptyTrash } from './bulk.tsx';
import { useState } from 'react';

export { action, loader } from './inbox.server.ts';

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
    view,
    filters,
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
  // Pending for "Claim next" only, not for a bulk change sent to the same address.
  const pending = useIsPending();
  const sending = useNavigation().formData?.get('intent');
  const claiming = pending && sending !== 'bulk';
  const followLink = useDelegatedLinks();
  // How many rows are checked (JavaScript: the bar says so), until a change is done (it clears them).
  const done = actionData && 'done' in actionData ? actionData.done : undefined;
  const [selection, setSelection] = useState<{ n: number; done?: string } | null>(null);
  const selected = selection && selection.done === done ? selection.n : null;
  const keep = { view, ...filters };
  return (
    // The inbox's links are plain anchors (cheap to render); clicks still navigate in the app.
    // biome-ignore lint/a11y/useKeyWithClickEvents: delegation for the anchors inside, which take the keyboard themselves
    <section className="hd-inbox stack-lg" aria-labelledby="inbox-title" onClick={followLink}>
      <div className="hd-inbox__head">
        <div>
          <p className="eyebrow">{workspace.name}</p>
          <h1 id="inbox-title">Inbox</h1>
        </div>
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
      <LiveInbox workspaceId={workspace.id} laterPage={!!newer} newestHref={inboxHref(workspace.slug, keep)} />
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
      <nav aria-label="Views">
        <ul className="hd-tabs">
          {INBOX_VIEWS.map((v) => (
            <li key={v}>
              <a
                href={inboxHref(workspace.slug, { ...filters, view: v })}
                className="hd-tab"
                aria-current={v === view ? 'page' : undefined}
              >
                {VIEW_LABELS[v]}{' '}
                {v in counts ? (
                  <span className="hd-count" data-testid={`count-${v}`}>
                    {counts[v as keyof typeof counts]}
                  </span>
                ) : null}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <InboxFilters />
      {searchError ? (
        <p className="notice notice--error" role="alert" data-testid="search-error">
          {searchError}
        </p>
      ) : null}
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
            <a href={inboxHref(workspace.slug, { ...keep, before: newer, page: page - 1 })} rel="prev">
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
