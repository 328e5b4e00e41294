// The inbox (members only): views, search, filters, newest activity first, 25 a page, and
// "Claim next" (claim_next_ticket: the oldest unassigned request goes to me).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, SubmitButton, useIsPending } from '~/components/forms.tsx';
import { PriorityBadge, StatusBadge } from '~/components/helpdesk-ui.tsx';
import { requireUser } from '~/lib/auth.server.ts';
import { INBOX_PAGE_SIZE } from '~/lib/constants.ts';
import { errorMessage } from '~/lib/errors.ts';
import {
  formatDate,
  INBOX_VIEWS,
  isPriority,
  isStatus,
  isView,
  PRIORITIES,
  STATUS_LABELS,
  STATUSES,
  VIEW_LABELS,
  type InboxView,
  type TicketStatus,
  UUID_RE,
} from '~/lib/helpdesk.ts';
import { formString, mapDbError, memberRows, namedMembers, profileNames, requireMembership, throwDbError } from '~/lib/helpdesk.server.ts';
import { data, redirectWithHeaders, requireSameOrigin } from '~/lib/http.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `Inbox · ${data.workspace.name} · Tend` : 'Inbox · Tend' }];

const MAX_QUERY_LENGTH = 200;

interface InboxRow {
  id: string;
  number: number;
  subject: string;
  status: TicketStatus;
  priority: string;
  requester_id: string;
  assignee_id: string | null;
  last_message_at: string;
}

// Each view as plain conditions, applied to the list and to the head count queries alike.
function viewFilter(view: InboxView, me: string): { unassigned?: true; assignee?: string; statuses?: TicketStatus[] } {
  switch (view) {
    case 'unassigned':
      return { unassigned: true, statuses: ['new', 'open'] };
    case 'mine':
      return { assignee: me, statuses: ['new', 'open', 'pending'] };
    case 'open':
      return { statuses: ['new', 'open'] };
    case 'pending':
      return { statuses: ['pending'] };
    case 'solved':
      return { statuses: ['solved'] };
    case 'all':
      return {};
  }
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { workspace } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const url = new URL(request.url);
  const viewParam = url.searchParams.get('view');
  const view: InboxView = isView(viewParam) ? viewParam : 'unassigned';
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, MAX_QUERY_LENGTH);
  const statusParam = url.searchParams.get('status');
  const status = isStatus(statusParam) ? statusParam : '';
  const priorityParam = url.searchParams.get('priority');
  const priority = isPriority(priorityParam) ? priorityParam : '';
  const assigneeParam = url.searchParams.get('assignee') ?? '';
  // A uuid-shaped assignee filter; RLS keeps it inside this workspace anyway.
  const assignee = assigneeParam === 'none' || UUID_RE.test(assigneeParam) ? assigneeParam : '';
  const page = Math.max(1, Math.min(10_000, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1));
  const from = (page - 1) * INBOX_PAGE_SIZE;

  const vf = viewFilter(view, user.id);
  // Without search or filters the view's own count is the total: no second count on the list.
  const filtered = !!(q || status || priority || assignee);
  let list = supabase
    .from('tickets')
    .select('id, number, subject, status, priority, requester_id, assignee_id, last_message_at', filtered ? { count: 'exact' } : undefined)
    .eq('workspace_id', workspace.id);
  if (vf.unassigned) list = list.is('assignee_id', null);
  if (vf.assignee) list = list.eq('assignee_id', vf.assignee);
  if (vf.statuses) list = list.in('status', vf.statuses);
  if (q) list = list.textSearch('search', q, { type: 'websearch', config: 'english' });
  if (status) list = list.eq('status', status);
  if (priority) list = list.eq('priority', priority);
  if (assignee === 'none') list = list.is('assignee_id', null);
  else if (assignee) list = list.eq('assignee_id', assignee);
  const listQuery = list
    .order('last_message_at', { ascending: false })
    .order('id', { ascending: false })
    .range(from, from + INBOX_PAGE_SIZE - 1);

  const countQueries = INBOX_VIEWS.map((v) => {
    const f = viewFilter(v, user.id);
    let c = supabase.from('tickets').select('id', { count: 'exact', head: true }).eq('workspace_id', workspace.id);
    if (f.unassigned) c = c.is('assignee_id', null);
    if (f.assignee) c = c.eq('assignee_id', f.assignee);
    if (f.statuses) c = c.in('status', f.statuses);
    return c;
  });
  const [memberList, listResult, ...countResults] = await Promise.all([memberRows(request, supabase, workspace.id), listQuery, ...countQueries]);
  // A page past the end answers 416 from PostgREST; treat it as an empty page.
  if (listResult.error && listResult.error.code !== 'PGRST103') throwDbError(request, listResult.error, 'inbox');
  const counts = {} as Record<InboxView, number>;
  INBOX_VIEWS.forEach((v, i) => {
    const r = countResults[i]!;
    if (r.error) throwDbError(request, r.error, `inbox count ${v}`);
    counts[v] = r.count ?? 0;
  });
  const rows = (listResult.error ? [] : (listResult.data ?? [])) as InboxRow[];
  const names = await profileNames(request, supabase, [...memberList.map((m) => m.user_id), ...rows.map((r) => r.requester_id)]);
  const members = namedMembers(memberList, names);
  const tickets = rows.map((r) => ({
    ...r,
    requester: names.get(r.requester_id) ?? 'Unknown',
    assignee: r.assignee_id ? (names.get(r.assignee_id) ?? 'Unknown') : null,
  }));
  const total = listResult.error ? 0 : filtered ? (listResult.count ?? 0) : counts[view];
  const claimed = url.searchParams.get('claimed') === 'none';
  return data(request, {
    workspace,
    members: members.map((m) => ({ user_id: m.user_id, name: m.name })),
    me: user.id,
    view,
    filters: { q, status, priority, assignee },
    page,
    pages: Math.max(1, Math.ceil(total / INBOX_PAGE_SIZE)),
    total,
    counts,
    tickets,
    nothingToClaim: claimed,
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const { workspace } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const form = await request.formData();
  if (formString(form, 'intent') !== 'claim_next') return data(request, { error: errorMessage('bad_request') }, { status: 400 });
  const { data: row, error } = await supabase.rpc('claim_next_ticket', { p_workspace_id: workspace.id });
  if (error) {
    const mapped = mapDbError(error, 'claim_next_ticket');
    return data(request, { error: mapped.message }, { status: mapped.status });
  }
  const claimed = (Array.isArray(row) ? row[0] : row) as { number?: number | null } | null;
  if (!claimed?.number) return redirectWithHeaders(request, `/w/${workspace.slug}?view=unassigned&claimed=none`);
  return redirectWithHeaders(request, `/w/${workspace.slug}/tickets/${claimed.number}`);
}

function href(slug: string, params: Record<string, string | number | undefined>) {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '' && !(k === 'page' && v === 1)) sp.set(k, String(v));
  const s = sp.toString();
  return `/w/${slug}${s ? `?${s}` : ''}`;
}

export default function Inbox() {
  const { workspace, members, view, filters, page, pages, total, counts, tickets, nothingToClaim } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const claiming = useIsPending();
  const keep = { view, ...filters };
  return (
    <section className="hd-inbox stack-lg" aria-labelledby="inbox-title">
      <div className="hd-inbox__head">
        <div>
          <p className="eyebrow">{workspace.name}</p>
          <h1 id="inbox-title">Inbox</h1>
        </div>
        <Form method="post" className="hd-claim">
          <SubmitButton pending={claiming} name="intent" value="claim_next">
            Claim next
          </SubmitButton>
        </Form>
      </div>
      {nothingToClaim ? (
        <p className="notice notice--success" role="status">
          Nothing to claim: every open request has an owner.
        </p>
      ) : null}
      <ErrorList errors={actionData && 'error' in actionData ? [actionData.error] : undefined} />
      <nav aria-label="Views">
        <ul className="hd-tabs">
          {INBOX_VIEWS.map((v) => (
            <li key={v}>
              <Link to={href(workspace.slug, { ...filters, view: v })} className="hd-tab" aria-current={v === view ? 'page' : undefined}>
                {VIEW_LABELS[v]} <span className="hd-count" data-testid={`count-${v}`}>{counts[v]}</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <Form method="get" className="hd-filters" role="search">
        <input type="hidden" name="view" value={view} />
        <div className="field hd-filters__q">
          <label htmlFor="q">Search</label>
          <input id="q" name="q" type="search" className="input" defaultValue={filters.q} maxLength={MAX_QUERY_LENGTH} />
        </div>
        <div className="field">
          <label htmlFor="f-status">Status</label>
          <select id="f-status" name="status" className="input" defaultValue={filters.status}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-priority">Priority</label>
          <select id="f-priority" name="priority" className="input" defaultValue={filters.priority}>
            <option value="">Any</option>
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {p[0]!.toUpperCase() + p.slice(1)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-assignee">Assignee</label>
          <select id="f-assignee" name="assignee" className="input" defaultValue={filters.assignee}>
            <option value="">Anyone</option>
            <option value="none">Nobody</option>
            {members.map((m) => (
              <option key={m.user_id} value={m.user_id}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button--secondary">
          Apply
        </button>
      </Form>
      <div className="card hd-table-wrap">
        {tickets.length === 0 ? (
          <p className="muted" data-testid="inbox-empty">
            No requests here.
          </p>
        ) : (
          <table className="hd-table">
            <caption className="visually-hidden">
              {VIEW_LABELS[view]} requests, newest activity first ({total})
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
            <tbody>
              {tickets.map((t) => (
                <tr key={t.id} data-testid="inbox-row">
                  <td className="muted">{t.number}</td>
                  <td>
                    <Link to={`/w/${workspace.slug}/tickets/${t.number}`}>{t.subject}</Link>
                  </td>
                  <td>{t.requester}</td>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                  <td>
                    <PriorityBadge priority={t.priority} />
                  </td>
                  <td>{t.assignee ?? <span className="muted">—</span>}</td>
                  <td className="small">{formatDate(t.last_message_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {pages > 1 ? (
        <nav aria-label="Pages" className="hd-pager">
          {page > 1 ? <Link to={href(workspace.slug, { ...keep, page: page - 1 })}>← Newer</Link> : <span />}
          <span className="muted">
            Page {page} of {pages}
          </span>
          {page < pages ? <Link to={href(workspace.slug, { ...keep, page: page + 1 })}>Older →</Link> : <span />}
        </nav>
      ) : null}
    </section>
  );
}
