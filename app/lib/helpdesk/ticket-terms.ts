// Helpdesk vocabulary shared by the portal, the inbox and the ticket page (docs/product.md §3, §4).
import { Constants } from '../supabase/database.types.ts';

// The database's enums (supabase/schemas/), as `npm run stack -- gen types` writes them.
export const STATUSES = Constants.public.Enums.ticket_status;
export type TicketStatus = (typeof STATUSES)[number];
export const PRIORITIES = Constants.public.Enums.ticket_priority;
export type TicketPriority = (typeof PRIORITIES)[number];
export const MEMBER_ROLES = Constants.public.Enums.member_role;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const INBOX_VIEWS = ['unassigned', 'mine', 'open', 'pending', 'solved', 'all'] as const;
export type InboxView = (typeof INBOX_VIEWS)[number];
export const VIEW_LABELS: Record<InboxView, string> = {
  unassigned: 'Unassigned',
  mine: 'Mine',
  open: 'Open',
  pending: 'Pending',
  solved: 'Solved',
  all: 'All',
};

/**
 * The statuses an agent sets by hand ("Send and set status"): every one but `new`, which nothing
 * returns to, and `closed`, which only admins and Tend's job reach (private.check_transition,
 * supabase/schemas/20_tickets.sql; docs/product.md §4).
 */
export const AGENT_STATUSES = STATUSES.filter(
  (s): s is Exclude<TicketStatus, 'new' | 'closed'> => s !== 'new' && s !== 'closed',
);

/**
 * "No assignee": the inbox's filter (`assignee=none`, public.inbox's p_assignee) and the value a
 * sidebar form had when the page was rendered (an empty select value is "Nobody" too).
 */
export const NO_ASSIGNEE = 'none';

/** An assignee as sent: the older word for no assignee ("nobody", in forms rendered before) is NO_ASSIGNEE. */
export const assigneeValue = (raw: string) => (raw === 'nobody' ? NO_ASSIGNEE : raw);

export const STATUS_LABELS: Record<TicketStatus, string> = {
  new: 'New',
  open: 'Open',
  pending: 'Pending',
  solved: 'Solved',
  closed: 'Closed',
};

export const PRIORITY_LABELS: Record<TicketPriority, string> = {
  low: 'Low',
  normal: 'Normal',
  high: 'High',
  urgent: 'Urgent',
};

/** What a customer reads for each status on the portal. */
export const PORTAL_STATUS_LABELS: Record<TicketStatus, string> = {
  new: 'Received',
  open: 'Open',
  pending: 'Awaiting your reply',
  solved: 'Solved',
  closed: 'Closed',
};

export function isStatus(v: unknown): v is TicketStatus {
  return typeof v === 'string' && (STATUSES as readonly string[]).includes(v);
}
export function isPriority(v: unknown): v is TicketPriority {
  return typeof v === 'string' && (PRIORITIES as readonly string[]).includes(v);
}
export function isView(v: unknown): v is InboxView {
  return typeof v === 'string' && (INBOX_VIEWS as readonly string[]).includes(v);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');
/**
 * "23 Nov 2026, 00:37 UTC" (en-GB medium date, short time). Server and browser render the same string
 * (UTC), so hydration never disagrees; by hand, since Intl formatting was a visible share of the
 * inbox's render time.
 */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A position in an inbox list (newest activity first): the last activity and id of a ticket. */
export interface InboxCursor {
  at: string;
  id: string;
}

/** Opaque in the URL (`after=`, `before=`): base64url of "<ISO time>|<id>". */
export function encodeCursor(c: InboxCursor): string {
  const text = `${c.at}|${c.id}`;
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The cursor, or null for anything that isn't one (a hand-edited URL shows the first page). */
export function decodeCursor(raw: string | null | undefined): InboxCursor | null {
  if (!raw || raw.length > 200 || !/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  let text: string;
  try {
    text = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return null;
  }
  const [at, id, ...rest] = text.split('|');
  if (
    rest.length ||
    !at ||
    !id ||
    !UUID_RE.test(id) ||
    !/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(at) ||
    Number.isNaN(Date.parse(at))
  )
    return null;
  return { at, id };
}
