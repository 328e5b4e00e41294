// Dates as the helpdesk pages show them.
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

const inZone = new Map<string, Intl.DateTimeFormat>();

/**
 * "27 Nov 2026, 19:37 UTC+1": formatDate in a time zone (the workspace's), the zone named by its offset
 * at that moment, which reads the same on every machine (ICU's zone names differ between versions).
 * For loaders: pages get the text, so the browser never formats it again (no hydration to disagree).
 */
export function formatDateIn(iso: string | null | undefined, timeZone: string): string {
  if (!iso || timeZone === 'UTC') return formatDate(iso);
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
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
  const offset = Math.round((local - Math.floor(d.getTime() / 60_000) * 60_000) / 60_000);
  const abs = Math.abs(offset);
  const zone = offset
    ? `UTC${offset < 0 ? '-' : '+'}${Math.floor(abs / 60)}${abs % 60 ? `:${two(abs % 60)}` : ''}`
    : 'UTC';
  return `${p.day} ${MONTHS[p.month - 1]} ${p.year}, ${two(p.hour)}:${two(p.minute)} ${zone}`;
}
