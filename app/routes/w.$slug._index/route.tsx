// The inbox (members only): views, search, filters, newest activity first, 25 a page, and
// "Claim next" (claim_next_ticket: the oldest unassigned request goes to me). The loader and the
// action are in inbox.server.ts; the filters and the table beside this file.
import type { MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, SubmitButton, replyFormErrors, useIsPending } from '~/components/forms.tsx';
import { useDelegatedLinks } from '~/components/use-delegated-links.ts';
import { LiveInbox } from '~/components/live/live-inbox.tsx';
import { FirstRun } from '~/components/first-run.tsx';
import { INBOX_PAGE_SIZE } from '~/lib/constants.ts';
import { INBOX_VIEWS, VIEW_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import { InboxFilters } from './filters.tsx';
import type { action, loader } from './inbox.server.ts';
import { InboxTable } from './table.tsx';

export { action, loader } from './inbox.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Inbox · ${data.workspace.name} · Tend` : 'Inbox · Tend' },
  { name: 'description', content: 'The team’s shared inbox: views, search, filters and the next request to take.' },
];

function href(slug: string, params: Record<string, string | number | undefined>) {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== '' && !(k === 'page' && (v as number) <= 1)) sp.set(k, String(v));
  const s = sp.toString();
  return `/w/${slug}${s ? `?${s}` : ''}`;
}

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
  const claiming = useIsPending();
  const followLink = useDelegatedLinks();
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
              href={`/w/${workspace.slug}/export.csv${href('', keep).slice('/w/'.length)}`}
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
      <LiveInbox workspaceId={workspace.id} laterPage={!!newer} newestHref={href(workspace.slug, keep)} />
      {nothingToClaim ? (
        <p className="notice notice--success" role="status">
          Nothing to claim: every open request has an owner.
        </p>
      ) : null}
      <ErrorList errors={replyFormErrors(actionData?.result)} />
      {firstRun ? <FirstRun slug={workspace.slug} portal={firstRun.portal} admin={!!adminOf} /> : null}
      <nav aria-label="Views">
        <ul className="hd-tabs">
          {INBOX_VIEWS.map((v) => (
            <li key={v}>
              <a
                href={href(workspace.slug, { ...filters, view: v })}
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
      {/* A search that timed out lists nothing: its message says so, not "No requests here". */}
      <InboxTable />
      {older || newer ? (
        <nav aria-label="Pages" className="hd-pager">
          {newer ? (
            <a href={href(workspace.slug, { ...keep, before: newer, page: page - 1 })} rel="prev">
              ← Newer
            </a>
          ) : (
            <span />
          )}
          <span className="muted" data-testid="inbox-range">
            {rangeLabel(page, tickets.length, total)}
          </span>
          {older ? (
            <a href={href(workspace.slug, { ...keep, after: older, page: page + 1 })} rel="next">
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
