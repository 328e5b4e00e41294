// The inbox (members only): views, search, filters, newest activity first, 25 a page, and
// "Claim next" (claim_next_ticket: the oldest unassigned request goes to me).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, SubmitButton, replyFormErrors, useIsPending } from '~/components/forms.tsx';
import {
  MemberOptions,
  PriorityBadge,
  PriorityOptions,
  StatusBadge,
  StatusOptions,
} from '~/components/helpdesk-ui.tsx';
import { useDelegatedLinks } from '~/components/use-delegated-links.ts';
import { LiveInbox } from '~/components/live/live-inbox.tsx';
import { FirstRun } from '~/components/first-run.tsx';
import {
  data,
  errorMessage,
  errorStatus,
  InboxSchema,
  inboxFilters,
  jsonPage,
  log,
  mapDbError,
  parseSlug,
  parseSubmission,
  publicOrigin,
  readFormData,
  redirectWithHeaders,
  requireMembership,
  requireSameOrigin,
  requireUser,
  throwDbError,
  throwNotFound,
} from './inbox.server.ts';
import { INBOX_PAGE_SIZE, MAX_QUERY_LENGTH } from '~/lib/constants.ts';
import {
  formatDate,
  INBOX_VIEWS,
  VIEW_LABELS,
  type InboxCursor,
  type InboxView,
  type TicketStatus,
  decodeCursor,
  encodeCursor,
  type MemberRole,
} from '~/lib/helpdesk/vocabulary.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Inbox · ${data.workspace.name} · Tend` : 'Inbox · Tend' },
];

interface InboxTicket {
  id: string;
  number: number;
  subject: string;
  status: TicketStatus;
  priority: string;
  requester_id: string;
  requester: string;
  assignee_id: string | null;
  assignee: string | null;
  last_message_at: string;
}

/** What public.inbox returns (supabase/schemas/50_inbox.sql). */
interface InboxPage {
  workspace: { id: string; slug: string; name: string };
  role: MemberRole;
  members: { user_id: string; role: MemberRole; name: string }[];
  counts: Record<InboxView, number>;
  /** Exact for views and filters; null for a search (matches aren't counted). */
  total: number | null;
  tickets: InboxTicket[];
  older: InboxCursor | null;
  newer: InboxCursor | null;
  /** A search that is a ticket's number: that ticket, which the page opens. */
  ticket_number: number | null;
  /** The statement timeout stopped the search: the plan of the statement it stopped (for the log). */
  search_timeout: string | null;
}

// One round trip: the workspace (404 unless I'm a member), view counts, members and the page.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const url = new URL(request.url);
  const { view, q, status, priority, assignee } = inboxFilters(url.searchParams);
  const after = decodeCursor(url.searchParams.get('after'));
  const before = after ? null : decodeCursor(url.searchParams.get('before'));
  // The page number is only shown ("26–50 of …"); the cursor decides what is listed.
  const page =
    after || before
      ? Math.max(1, Math.min(1_000_000, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1))
      : 1;

  // GET: a stable function, and the same request bench:inbox times against PostgREST alone. A GET
  // carries every argument as text ("null" included), so unset ones are left out for their defaults.
  const args = {
    p_slug: parseSlug(request, params.slug),
    p_view: view,
    p_query: q,
    p_status: status,
    p_priority: priority,
    p_assignee: assignee,
    p_after_at: after?.at,
    p_after_id: after?.id,
    p_before_at: before?.at,
    p_before_id: before?.id,
    p_limit: INBOX_PAGE_SIZE,
  };
  const { data: result, error } = await supabase.rpc(
    'inbox',
    Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== '')) as typeof args,
    {
      get: true,
    },
  );
  if (error) {
    const context = q ? 'inbox search' : 'inbox';
    if (mapDbError(error, context).code === 'not_found') await throwNotFound(request, supabase, params.slug ?? '');
    throwDbError(request, error, context);
  }
  const inbox = jsonPage<InboxPage>(result);
  // "#123" or "123": straight to that ticket (a number that is no ticket's is searched as text).
  if (inbox.ticket_number !== null && inbox.ticket_number !== undefined && !after && !before)
    return redirectWithHeaders(request, `/w/${inbox.workspace.slug}/tickets/${inbox.ticket_number}`);
  let searchError: string | null = null;
  if (inbox.search_timeout !== null && inbox.search_timeout !== undefined) {
    log.warn('search timed out', { code: 'search_timeout', query: q, view, plan: inbox.search_timeout });
    searchError = errorMessage('search_timeout');
  }
  return data(
    request,
    {
      workspace: inbox.workspace,
      members: inbox.members.map((m) => ({ user_id: m.user_id, name: m.name })),
      me: user.id,
      view,
      filters: { q, status, priority, assignee },
      // Back to the newest page, the page number starts again.
      page: before && !inbox.newer ? 1 : page,
      total: inbox.total,
      counts: inbox.counts,
      tickets: inbox.tickets.map(({ requester_id: _r, assignee_id: _a, ...t }) => t),
      older: inbox.older ? encodeCursor(inbox.older) : null,
      newer: inbox.newer ? encodeCursor(inbox.newer) : null,
      nothingToClaim: url.searchParams.get('claimed') === 'none',
      // The site header's admin links (site-header.tsx), and what to do first in an empty workspace.
      adminOf: inbox.role === 'admin' ? inbox.workspace.slug : null,
      firstRun: inbox.counts.all === 0 ? { portal: `${publicOrigin(request)}/support/${inbox.workspace.slug}` } : null,
      searchError,
    },
    searchError ? { status: errorStatus('search_timeout') } : undefined,
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const { workspace } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), InboxSchema);
  if (submission.status !== 'success') return data(request, { result: submission.reply() }, { status: 400 });
  const { data: row, error } = await supabase.rpc('claim_next_ticket', {
    p_workspace_id: workspace.id,
  });
  if (error) {
    const mapped = mapDbError(error, 'claim_next_ticket');
    return data(request, { result: submission.reply({ formErrors: [mapped.message] }) }, { status: mapped.status });
  }
  const claimed = (Array.isArray(row) ? row[0] : row) as {
    number?: number | null;
  } | null;
  if (!claimed?.number) return redirectWithHeaders(request, `/w/${workspace.slug}?view=unassigned&claimed=none`);
  return redirectWithHeaders(request, `/w/${workspace.slug}/tickets/${claimed.number}`);
}

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
    members,
    view,
    filters,
    page,
    total,
    counts,
    tickets,
    older,
    newer,
    nothingToClaim,
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
          {adminOf ? (
            <a
              href={`/w/${workspace.slug}/export.csv${href('', keep).slice('/w/'.length)}`}
              download
              className="button button--secondary"
            >
              Export CSV
            </a>
          ) : null}
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
                <span className="hd-count" data-testid={`count-${v}`}>
                  {counts[v]}
                </span>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <Form method="get" className="hd-filters" role="search">
        <input type="hidden" name="view" value={view} />
        <div className="field hd-filters__q">
          <label htmlFor="q">Search</label>
          <input
            id="q"
            name="q"
            type="search"
            className="input"
            defaultValue={filters.q}
            maxLength={MAX_QUERY_LENGTH}
            data-shortcut="/"
          />
        </div>
        <div className="field">
          <label htmlFor="f-status">Status</label>
          <select id="f-status" name="status" className="input" defaultValue={filters.status}>
            <option value="">Any</option>
            <StatusOptions />
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-priority">Priority</label>
          <select id="f-priority" name="priority" className="input" defaultValue={filters.priority}>
            <option value="">Any</option>
            <PriorityOptions />
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-assignee">Assignee</label>
          <select id="f-assignee" name="assignee" className="input" defaultValue={filters.assignee}>
            <option value="">Anyone</option>
            <option value="none">Nobody</option>
            <MemberOptions members={members} />
          </select>
        </div>
        <button type="submit" className="button button--secondary">
          Apply
        </button>
      </Form>
      {searchError ? (
        <p className="notice notice--error" role="alert" data-testid="search-error">
          {searchError}
        </p>
      ) : null}
      {/* A search that timed out lists nothing: its message says so, not "No requests here". */}
      <div className="card hd-table-wrap" hidden={!!searchError}>
        {tickets.length === 0 ? (
          <p className="muted" data-testid="inbox-empty">
            No requests here.
          </p>
        ) : (
          <table className="hd-table">
            <caption className="visually-hidden">
              {VIEW_LABELS[view]} requests, newest activity first
              {total === null ? '' : ` (${total})`}
            </caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Subject</th>
                <th scope="col">Requester</th>
                <th scope="col">Status</th>
                <th scope="col">Priority</th>
                <th scope="col">Assignee</th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody data-shortcut-list>
              {tickets.map((t) => (
                <tr key={t.id} data-testid="inbox-row">
                  <td className="muted hd-cell-number">
                    <span className="hd-cell-label">#</span>
                    {t.number}
                  </td>
                  <td className="hd-cell-subject">
                    <a href={`/w/${workspace.slug}/tickets/${t.number}`}>{t.subject}</a>
                  </td>
                  <td className="hd-cell-requester">
                    <span className="hd-cell-label">From </span>
                    {t.requester}
                  </td>
                  <td className="hd-cell-status">
                    <StatusBadge status={t.status} />
                  </td>
                  <td className="hd-cell-priority">
                    <PriorityBadge priority={t.priority} />
                  </td>
                  <td className="hd-cell-assignee">
                    <span className="hd-cell-label">Assignee </span>
                    {t.assignee ?? <span className="muted">nobody</span>}
                  </td>
                  <td className="small hd-cell-date">{formatDate(t.last_message_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
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
