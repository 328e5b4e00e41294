// What the inbox and its CSV export ask public.inbox (supabase/schemas/50_inbox.sql): the view,
// search and filters from the page's URL, and the shape of the answer, declared once.
import { MAX_QUERY_LENGTH } from '../constants.ts';
import type { Tables } from '../supabase/database.types.ts';
import { assigneeValue, type InboxView, isPriority, isStatus, isView, NO_ASSIGNEE, UUID_RE } from './ticket-terms.ts';
import type { InboxCursor } from './inbox-cursor.ts';
import { MAX_FILTER_TAGS, searchTags, TAG_NAME_RE, type TagColour, tagName } from './tags.ts';
import type { Workspace } from './workspace-access.server.ts';

/** The inbox's view, search and filters from its URL; anything else is unset. */
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
  return { view, q, status, priority, assignee, tag };
}

/**
 * public.inbox's arguments for the view, search and filters (paging aside); unset ones left out for
 * their defaults. `tag:name` words of the search filter by that tag, as `?tag=` does.
 */
export function inboxArgs({ view, q, status, priority, assignee, tag }: ReturnType<typeof inboxFilters>) {
  const search = searchTags(q);
  const tags = [...new Set([...tag, ...search.tags])].filter((t) => TAG_NAME_RE.test(t)).slice(0, MAX_FILTER_TAGS);
  const args = {
    p_view: view,
    p_query: search.text,
    p_status: status,
    p_priority: priority,
    p_assignee: assignee,
    p_tags: tags.length ? tags : undefined,
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
  role: Tables<'memberships'>['role'];
  /** Automatic assignment's mode, and whether I am available for it. */
  assignment: Tables<'assignment_settings'>['mode'];
  available: boolean;
  members: (Pick<Tables<'memberships'>, 'user_id' | 'role'> & { name: string })[];
  /** Every view but "Breaching soon", which isn't counted. */
  counts: Record<Exclude<InboxView, 'breaching'>, number>;
  /** Exact for views and filters; null for a search (matches aren't counted). */
  total: number | null;
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
  > & { requester: string; assignee: string | null; tags: TicketTag[] } & Pick<
      Tables<'ticket_sla'>,
      'due_at' | 'warn_at'
    >)[];
  older: InboxCursor | null;
  newer: InboxCursor | null;
  /** A search that is a ticket's number: that ticket, which the page opens. */
  ticket_number: number | null;
  /** The statement timeout stopped the search: the plan of the statement it stopped (for the log). */
  search_timeout: string | null;
}
