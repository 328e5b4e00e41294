// What the inbox row and the ticket header say of a ticket's running promise (docs/product.md
// "Business hours and SLA targets"): "due in 25 min", amber from 75 % of the target (warn_at), red
// "overdue 2 h" once breached. Worked out by the loaders at the moment of the request, so the page
// gets plain text (no clock in the browser, nothing to hydrate differently).

/** The targets as the badge and the history name them. */
export const SLA_TARGET_LABELS = {
  first_response: 'First response',
  next_response: 'Next response',
  resolution: 'Resolution',
} as const;

export type DueTone = 'ok' | 'warning' | 'breached';

export interface DueBadge {
  text: string;
  tone: DueTone;
  /** The due time in the workspace's time zone: "Mon 9 Mar, 10:00". */
  when: string;
}

function span(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

export function dueBadge(
  dueAt: string | null | undefined,
  warnAt: string | null | undefined,
  now: Date,
  timeZone: string,
): DueBadge | null {
  if (!dueAt) return null;
  const due = new Date(dueAt).getTime();
  const left = due - now.getTime();
  const tone: DueTone =
    left <= 0 ? 'breached' : warnAt && new Date(warnAt).getTime() <= now.getTime() ? 'warning' : 'ok';
  const text =
    Math.abs(left) < 60_000
      ? left > 0
        ? 'due now'
        : 'overdue'
      : left > 0
        ? `due in ${span(left)}`
        : `overdue ${span(-left)}`;
  return { text, tone, when: dueWhen(dueAt, timeZone) };
}

// One formatter per time zone: making one costs more than formatting (the top of the Breaching view's
// profile, docs/decisions/071-inbox-at-a-million.md).
const formatters = new Map<string, Intl.DateTimeFormat>();

/** "Mon 9 Mar, 10:00" in the time zone given (the workspace's). */
export function dueWhen(iso: string, timeZone: string): string {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, format);
  }
  const parts = format.formatToParts(new Date(iso));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')}, ${part('hour')}:${part('minute')}`;
}
