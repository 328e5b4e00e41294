// How the reports page writes its figures: durations as people say them, days and hours briefly.
// Pure functions of their input (server and browser render the same text).

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec'];
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** "45 s", "12 min", "2 h 5 min", "3 d 4 h"; null (nothing measured) is "—". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  if (s < 86_400) {
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const hours = Math.round(s / 3600);
  const d = Math.floor(hours / 24);
  const h = hours % 24;
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** "3 Nov 2026" for 2026-11-03 (a calendar day, no time zone involved). */
export function formatDay(day: string, opts: { year?: boolean } = {}): string {
  const [y, m, d] = day.split('-').map(Number);
  return `${d} ${MONTHS[m - 1]}${opts.year === false ? '' : ` ${y}`}`;
}

/** "09:00–10:00" for hour 9. */
export function formatHour(hour: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(hour)}:00–${two((hour + 1) % 24)}:00`;
}

/**
 * Whole numbers, grouped: 12,345. By hand: a page formats hundreds of them, and a new Intl formatter
 * for each (~0.4 ms) was most of the page's time.
 */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
