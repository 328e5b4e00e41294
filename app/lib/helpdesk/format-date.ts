// Dates as the pages show them: in the viewer's time zone (app/lib/helpdesk/viewer-zone.server.ts), the
// zone named by its offset at that moment. Loaders format them, so the browser never formats a time again
// (nothing for hydration to disagree on) and pages load no date code.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const two = (n: number) => String(n).padStart(2, '0');

const inZone = new Map<string, Intl.DateTimeFormat>();

/**
 * The wall clock in `timeZone` at `d` (as a UTC date holding the local fields) and the zone named by its
 * offset then ("UTC+1", "UTC-3:30"), which reads the same on every machine (ICU's zone names differ
 * between versions). By hand for UTC, since Intl formatting was a visible share of the inbox's render time.
 */
function wallClock(d: Date, timeZone: string): { local: Date; zone: string } {
  const minute = Math.floor(d.getTime() / 60_000) * 60_000;
  if (timeZone === 'UTC') return { local: new Date(minute), zone: 'UTC' };
  let f = inZone.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    });
    inZone.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, Number(x.value)]));
  const local = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
  const offset = Math.round((local - minute) / 60_000);
  const abs = Math.abs(offset);
  const zone = offset
    ? `UTC${offset < 0 ? '-' : '+'}${Math.floor(abs / 60)}${abs % 60 ? `:${two(abs % 60)}` : ''}`
    : 'UTC';
  return { local: new Date(local), zone };
}

function parse(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "27 Nov 2026, 19:37 UTC+1" (en-GB medium date, short time) in a time zone (the viewer's, or UTC). */
export function formatDateIn(iso: string | null | undefined, timeZone: string): string {
  const d = parse(iso);
  if (!d) return '';
  const { local: l, zone } = wallClock(d, timeZone);
  return `${l.getUTCDate()} ${MONTHS[l.getUTCMonth()]} ${l.getUTCFullYear()}, ${two(l.getUTCHours())}:${two(l.getUTCMinutes())} ${zone}`;
}

/** "Mon 9 Mar, 10:00 UTC+1": a time in the coming days (a promise's due time, a snooze's end). */
export function formatDayTimeIn(iso: string, timeZone: string): string {
  const d = parse(iso);
  if (!d) return '';
  const { local: l, zone } = wallClock(d, timeZone);
  return `${DAYS[l.getUTCDay()]} ${l.getUTCDate()} ${MONTHS[l.getUTCMonth()]}, ${two(l.getUTCHours())}:${two(l.getUTCMinutes())} ${zone}`;
}
