// What the inbox and its CSV export ask public.inbox (supabase/schemas/50_inbox.sql): the view,
// search and filters from the page's URL, and the shape of the answer, declared once.
import { MAX_QUERY_LENGTH } from '../constants.ts';
import type { Json, Tables } from '../supabase/database.types.ts';
import { assigneeValue, isPriority, isStatus, NO_ASSIGNEE, UUID_RE } from './ticket-terms.ts';
import { type InboxView, isView } from './inbox-views.ts';
import type { InboxCursor } from './inbox-cursor.ts';
import { MAX_FILTER_TAGS, searchTags, TAG_NAME_RE, type TagColour, tagName } from './tags.ts';
import type { Workspace } from './workspace-access.server.ts';
import type { ViewerState } from './viewer-zone.server.ts';

/** At most this many custom-field filters (`f.<field id>`) at once (private.inbox_field_filters). */
const MAX_FIELD_FILTERS = 5;
const FIELD_PARAM_RE = /^f\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\.(from|to))?$/;

/**
 * A custom-field filter: a value to equal, or a number's or date's range
 * (docs/product.md#customers-companies-and-ticket-fields).
 */
export type FieldFilter = string | { from?: string; to?: string };

/**
 * The custom-field filters of an inbox URL: `f.<field id>=value` (text, dropdown, checkbox "true" or
 * "false"), `f.<field id>.from=` and `.to=` (number, date). Empty ones are unset; the database reads
 * each value as its field stores it.
 */
function fieldFilters(params: URLSearchParams): Record<string, FieldFilter> {
  const fields: Record<string, FieldFilter> = {};
  for (const [key, raw] of params) {
    const m = FIELD_PARAM_RE.exec(key);
    const value = raw.trim().slice(0, 1000);
    if (!m || !value) continue;
    const [, id, end] = m as unknown as [string, string, 'from' | 'to' | undefined];
    if (!(id in fields) && Object.keys(fields).length >= MAX_FIELD_FILTERS) continue;
    const had = fields[id];
    if (!end) fields[id] = value;
    else fields[id] = { ...(typeof had === 'object' ? had : {}), [end]: value };
  }
  return fields;
}

/** The inbox's view, search, filters and sort from its URL; anything else is unset. */
export function inboxFilters(params: URLSearchParams) {
  const viewParam = params.get('view');
  const view: InboxView = isView(viewParam) ? viewParam : 'unassigned';
  // Control characters (a NUL can't even reach Postgres) search as spaces.
  const q = (params.get('q') ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .trim()
    .slice(0, MAX_QUERY_LENGTH);
  const statusParam = params.get('status');
  const status = isStatus(statusParam) ? statusParam : '';
  const priorityParam = params.get('priority');
  const priority = isPriority(priorityParam) ? priorityParam : '';
  const assigneeParam = assigneeValue(params.get('assignee') ?? '');
  const assignee = assigneeParam === NO_ASSIGNEE || UUID_RE.test(assigneeParam) ? assigneeParam : '';
  // ?tag=a&tag=b: tickets with every one of them.
  const tag = [...new Set(params.getAll('tag').map(tagName))].filter((t) => TAG_NAME_RE.test(t));
  const fields = fieldFilters(params);
  const sort = params.get('sort') === 'oldest' ? 'oldest' : '';
  // A search looks in every view unless the agent narrowed it to the one it came from (scope=view).
  const scope = q && params.get('scope') === 'view' ? 'view' : '';
  return { view, q, status, priority, assignee, tag, fields, sort, scope };
}

/** The view a page lists: all of them for a search (unless narrowed), else its own. */
export const listedView = (f: Pick<ReturnType<typeof inboxFilters>, 'view' | 'q' | 'scope'>): InboxView =>
  f.q && !f.scope ? 'all' : f.view;

/**
 * public.inbox's arguments for the view, search and filters (paging aside); unset ones left out for
 * their defaults. `tag:name` words of the search filter by that tag, as `?tag=` does.
 */
export function inboxArgs(filters: ReturnType<typeof inboxFilters>) {
  const { q, status, priority, assignee, tag, fields, sort } = filters;
  const search = searchTags(q);
  const tags = [...new Set([...tag, ...search.tags])].filter((t) => TAG_NAME_RE.test(t)).slice(0, MAX_FILTER_TAGS);
  const args = {
    p_view: listedView(filters),
    p_query: search.text,
    p_status: status,
    p_priority: priority,
    p_assignee: assignee,
    p_tags: tags.length ? tags : undefined,
    // A GET sends every argument as text: the filters as JSON, which PostgREST reads as jsonb.
    p_fields: Object.keys(fields).length ? (JSON.stringify(fields) as unknown as Json) : undefined,
    p_sort: sort,
  };
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== '')) as Partial<
    typeof args
  >;
}

/** A tag as the pages show it (private.ticket_tags_json). */
export interface TicketTag {
  id: string;
  name: string;
  colour: TagColour;
}

/** What public.inbox answers, in its rows' own types. */
export interface InboxJson {
  workspace: Workspace & Pick<Tables<'workspaces'>, 'time_zone'>;
  /** The viewer's bell and time zone setting, as public.viewer_state answers (docs/decisions/082-page-calls.md). */
  viewer: ViewerState;
  role: Tables<'memberships'>['role'];
  /** Automatic assignment's mode, and whether I am available for it. */
  assignment: Tables<'assignment_settings'>['mode'];
  available: boolean;
  members: (Pick<Tables<'memberships'>, 'user_id' | 'role'> & { name: string })[];
  /** Every view but "Breaching soon", which isn't counted (Mentions: null after a search timed out). */
  counts: Record<Exclude<CountedView, 'mentions'>, number> & { mentions: number | null };
  /** Exact for views and filters; null for a search, tags or fields (matches aren't counted). */
  total: number | null;
  /** A search's matches per view, counted up to SEARCH_COUNT_CAP + 1; `capped`: the counts are lower bounds. */
  search_counts: (Record<CountedView, number> & { capped: boolean }) | null;
  /** The saved views I see (the team's first), with their counts (null: not counted). */
  saved_views: (Pick<Tables<'saved_views'>, 'id' | 'name' | 'shared'> & {
    filters: SavedViewFilters;
    mine: boolean;
    count: number | null;
  })[];
  /** The workspace's custom fields, for the filters. */
  fields: Pick<Tables<'ticket_fields'>, 'id' | 'label' | 'kind' | 'options'>[];
  tickets: (Pick<
    Tables<'tickets'>,
    | 'id'
    | 'number'
    | 'subject'
    | 'status'
    | 'priority'
    | 'requester_id'
    | 'assignee_id'
    | 'last_message_at'
    | 'snoozed_until'
  > & { requester: string; assignee: string | null; tags: TicketTag[]; preview: string | null } & Pick<
      Tables<'ticket_sla'>,
      'due_at' | 'warn_at'
    > & { rating: Tables<'csat_surveys'>['rating'] })[];
  older: InboxCursor | null;
  newer: InboxCursor | null;
  /** A search that is a ticket's number: that ticket, which the page opens. */
  ticket_number: number | null;
  /** The statement timeout stopped the search: the plan of the statement it stopped (for the log). */
  search_timeout: string | null;
}

export type CountedView = Exclude<InboxView, 'breaching'>;

/**
 * What a saved view keeps (public.saved_views.filters, private.saved_view_filters_ok): the listed view,
 * the search's words, its tags (`tag:` words included), the other filters and the sort; unset ones left out.
 */
export interface SavedViewFilters {
  view?: InboxView;
  q?: string;
  status?: string;
  priority?: string;
  assignee?: string;
  tag?: string[];
  fields?: Record<string, FieldFilter>;
  sort?: 'oldest';
}

/** The page's view, search, filters and sort as a saved view keeps them. */
export function savedViewFilters(filters: ReturnType<typeof inboxFilters>): SavedViewFilters {
  const { p_view, p_query, p_status, p_priority, p_assignee, p_tags, p_sort } = inboxArgs(filters);
  const saved: SavedViewFilters = {
    view: p_view,
    q: p_query,
    status: p_status,
    priority: p_priority,
    assignee: p_assignee,
    tag: p_tags,
    fields: Object.keys(filters.fields).length ? filters.fields : undefined,
    sort: p_sort === 'oldest' ? 'oldest' : undefined,
  };
  return Object.fromEntries(Object.entries(saved).filter(([, v]) => v !== undefined && v !== '')) as SavedViewFilters;
}

/** A saved view's inbox URL parameters (inbox-href.ts makes the link); a search stays in its view. */
export function savedViewParams(f: SavedViewFilters): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const key of ['view', 'q', 'status', 'priority', 'assignee', 'tag', 'sort'] as const) {
    const v = f[key];
    if (v !== undefined) params[key] = v;
  }
  if (f.q && f.view !== 'all') params.scope = 'view';
  return { ...params, ...fieldParams(f.fields ?? {}) };
}

/** Custom-field filters as URL parameters (`f.<id>`, `f.<id>.from`, `f.<id>.to`). */
export function fieldParams(fields: Record<string, FieldFilter>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [id, v] of Object.entries(fields)) {
    if (typeof v === 'string') params[`f.${id}`] = v;
    else for (const end of ['from', 'to'] as const) if (v[end]) params[`f.${id}.${end}`] = v[end]!;
  }
  return params;
}

/** The URL parameters that keep the page's view, search, filters and sort (its links add paging). */
export function keptParams(filters: ReturnType<typeof inboxFilters>): Record<string, string | string[]> {
  const { fields, ...rest } = filters;
  return { ...rest, ...fieldParams(fields) };
}
