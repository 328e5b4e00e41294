// The helpdesk's terms, shared by the portal, the inbox and the ticket page (docs/product.md §3, §4):
// statuses, priorities and roles with their labels, and "no assignee" (the inbox's views: inbox-views.ts).
import { TEAM_STATUS_LABELS } from '../../../supabase/functions/_shared/status-labels.ts';
import { Constants } from '../supabase/database.types.ts';

// The database's enums (supabase/schemas/), as `npm run stack -- gen types` writes them.
export const STATUSES = Constants.public.Enums.ticket_status;
export type TicketStatus = (typeof STATUSES)[number];
export const PRIORITIES = Constants.public.Enums.ticket_priority;
export type TicketPriority = (typeof PRIORITIES)[number];
export const MEMBER_ROLES = Constants.public.Enums.member_role;
// Custom fields' kinds (ticket-fields.ts), here so the enums stay in one chunk of the browser's code.
export const FIELD_KINDS = Constants.public.Enums.ticket_field_kind;
export type MemberRole = (typeof MEMBER_ROLES)[number];

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

export const STATUS_LABELS: Record<TicketStatus, string> = TEAM_STATUS_LABELS;

export const PRIORITY_LABELS: Record<TicketPriority, string> = {
  low: 'Low',
  normal: 'Normal',
  high: 'High',
  urgent: 'Urgent',
};

/** What a customer reads for each status on the portal (and in the emails notify sends them). */
export { PORTAL_STATUS_LABELS } from '../../../supabase/functions/_shared/status-labels.ts';

export function isStatus(v: unknown): v is TicketStatus {
  return typeof v === 'string' && (STATUSES as readonly string[]).includes(v);
}
export function isPriority(v: unknown): v is TicketPriority {
  return typeof v === 'string' && (PRIORITIES as readonly string[]).includes(v);
}

/** A row's id (uuid), as the forms and the URLs carry it. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
