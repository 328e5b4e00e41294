// What a notification says, for the bell and the notifications page (app/lib/notifications/) and its emails
// (notify): one wording for both. The kinds are the database's (public.notification_kind,
// supabase/schemas/85_notifications.sql). Plain TypeScript, no Deno or Node API.

export type NotificationKind = 'new_request' | 'assigned' | 'customer_reply' | 'mention' | 'sla_warning';
export type NotificationEmail = 'each' | 'digest' | 'off';

/** The events a member chooses for, in the settings' order. */
export const NOTIFICATION_KINDS: { kind: NotificationKind; label: string; hint: string }[] = [
  {
    kind: 'new_request',
    label: 'New requests',
    hint: 'A customer writes on a request nobody is assigned: a new request, or a reply.',
  },
  { kind: 'assigned', label: 'Assigned to me', hint: 'Someone else gives me a ticket.' },
  {
    kind: 'customer_reply',
    label: 'Customer replies on my tickets',
    hint: 'The requester writes on a ticket assigned to me.',
  },
  { kind: 'mention', label: 'Mentions of me', hint: 'A teammate writes @ and my name in an internal note.' },
  { kind: 'sla_warning', label: 'SLA warnings', hint: 'A ticket assigned to me misses an SLA target.' },
];

export const EMAIL_CHOICES: { value: NotificationEmail; label: string }[] = [
  { value: 'each', label: 'Each time' },
  { value: 'digest', label: 'Daily digest' },
  { value: 'off', label: 'Off' },
];

/** "Ann Lee opened a new request #12 “Printer”": who did what, in one line. */
export function notificationHeadline(
  kind: NotificationKind,
  actor: string,
  ticket: { number: number; subject: string } | null,
  isNewRequest = false,
): string {
  const which = ticket ? `#${ticket.number} “${ticket.subject}”` : 'a ticket';
  switch (kind) {
    case 'new_request':
      return isNewRequest ? `${actor} opened a new request ${which}` : `${actor} replied to the unassigned ${which}`;
    case 'customer_reply':
      return `${actor} replied to ${which}, assigned to you`;
    case 'assigned':
      return `${actor} assigned ${which} to you`;
    case 'mention':
      return `${actor} mentioned you on ${which}`;
    case 'sla_warning':
      return `${which} missed its SLA target`;
  }
}
