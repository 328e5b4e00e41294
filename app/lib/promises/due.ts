// What the inbox row and the ticket header say of a ticket's running promise (docs/product.md
// "Business hours and SLA targets"): "due in 25 min", amber from 75 % of the target (warn_at), red
// "overdue 2 h" once breached. Worked out by the loaders at the moment of the request, so the page
// gets plain text (no clock in the browser, nothing to hydrate differently).
import { formatDayTimeIn } from '../helpdesk/format-date.ts';

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
  /** The due time in the viewer's time zone, named: "Mon 9 Mar, 10:00 UTC+1". */
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
  return { text, tone, when: formatDayTimeIn(dueAt, timeZone) };
}
