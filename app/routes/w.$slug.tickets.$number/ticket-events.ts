// What a ticket's history says of each change, in one place: the History in the sidebar (the
// loader) and the refusal that tells who changed a sidebar field meanwhile (ticket_field_changed).
import { isPriority, isStatus, PRIORITY_LABELS, STATUS_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { SLA_TARGET_LABELS } from '~/lib/promises/due.ts';
import type { Tables } from '~/lib/supabase/database.types.ts';

/**
 * A ticket_events row as the page reads it: created, status, priority, assignee (`to`: a person), a tag (`to`: its
 * name), sla_breach, a merge, Spam and Trash, a split, or a custom field (`field`: its label);
 * `from_ticket`: the number of the merged ticket it was first written on.
 */
export type TicketEvent = Pick<Tables<'ticket_events'>, 'actor_id' | 'type' | 'from' | 'to'> &
  Partial<Pick<Tables<'ticket_events'>, 'from_ticket' | 'field'>>;

/** A sidebar field, as its events are typed. */
export type SidebarField = 'status' | 'priority' | 'assignee';

/**
 * A line of the History: "Sam opened the request", "Sam changed status from open to solved"; a time in it
 * in the viewer's time zone.
 */
export function historyLine(event: TicketEvent, name: (id: string | null) => string, timeZone: string): string {
  const line = eventLine(event, name, timeZone);
  return event.from_ticket ? `#${event.from_ticket}: ${line}` : line;
}

function eventLine(event: TicketEvent, name: (id: string | null) => string, timeZone: string): string {
  const who = name(event.actor_id);
  if (event.type === 'merged_into') return `${who} merged this ticket into #${event.to}`;
  if (event.type === 'merged_from') return `${who} merged #${event.from} into this ticket`;
  if (event.type === 'created') return `${who} opened the request`;
  // No actor: the sender is marked as spam (supabase/schemas/54_spam_trash_split.sql).
  if (event.type === 'spam')
    return event.actor_id ? `${who} marked it as spam` : 'Tend put it in Spam: its sender is marked as spam';
  if (event.type === 'not_spam') return `${who} marked it as not spam`;
  if (event.type === 'trashed') return `${who} deleted it (to Trash)`;
  if (event.type === 'restored') return `${who} restored it from Trash`;
  if (event.type === 'split_to') return `${who} split a message off into #${event.to}`;
  if (event.type === 'split_from') return `${who} split this ticket off from #${event.from}`;
  if (event.type === 'field')
    return event.to === null ? `${who} cleared ${event.field}` : `${who} set ${event.field} to ${event.to}`;
  if (event.type === 'status') return `${who} changed status from ${event.from} to ${event.to}`;
  if (event.type === 'priority') return `${who} changed priority from ${event.from} to ${event.to}`;
  if (event.type === 'tag_added') return `${who} added the tag ${event.to}`;
  if (event.type === 'tag_removed') return `${who} removed the tag ${event.to}`;
  if (event.type === 'snoozed') return `${who} snoozed it until ${formatDateIn(event.to, timeZone)}`;
  if (event.type === 'unsnoozed') return `${who} ended the snooze`;
  if (event.type === 'follower_added') return `${who} added the follower ${event.to}`;
  if (event.type === 'follower_removed') return `${who} removed the follower ${event.to}`;
  // A rule fired (no actor: Tend); its changes follow as their own lines (supabase/schemas/95_rules.sql).
  if (event.type === 'rule') return `Rule “${event.to}” ran`;
  // The sweep's (no actor): "to" the target missed (supabase/schemas/90_promises.sql).
  if (event.type === 'sla_breach')
    return `${event.to && event.to in SLA_TARGET_LABELS ? SLA_TARGET_LABELS[event.to as keyof typeof SLA_TARGET_LABELS] : 'A'} target missed`;
  return event.to ? `${who} assigned it to ${name(event.to)}` : `${who} unassigned it`;
}

/** The newest change of a field to `to`, as the refusal tells it: "changed the priority to High". */
export function changeLine(field: SidebarField, to: string | null, name: (id: string) => string | undefined): string {
  if (field === 'status') return `changed the status to ${to && isStatus(to) ? STATUS_LABELS[to] : 'another one'}`;
  if (field === 'priority')
    return `changed the priority to ${to && isPriority(to) ? PRIORITY_LABELS[to] : 'another one'}`;
  return to ? `assigned this ticket to ${name(to) ?? 'someone else'}` : 'unassigned this ticket';
}
