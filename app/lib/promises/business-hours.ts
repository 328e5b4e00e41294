// Business hours as the settings page writes them (docs/product.md "Business hours and SLA targets"):
// one line of periods per weekday, "08:00–12:00, 13:30–18:00", empty for a closed day. The database
// (supabase/schemas/90_promises.sql) stores one row per period and checks them again.

/** ISO weekdays, 1 = Monday, as the database numbers them. */
export const WEEKDAYS = [
  { weekday: 1, key: 'mon', label: 'Monday' },
  { weekday: 2, key: 'tue', label: 'Tuesday' },
  { weekday: 3, key: 'wed', label: 'Wednesday' },
  { weekday: 4, key: 'thu', label: 'Thursday' },
  { weekday: 5, key: 'fri', label: 'Friday' },
  { weekday: 6, key: 'sat', label: 'Saturday' },
  { weekday: 7, key: 'sun', label: 'Sunday' },
] as const;

export type Period = {
  weekday: number;
  /** HH:MM, 00:00 to 23:59 */
  opens: string;
  /** HH:MM, after opens; 24:00 is midnight at the day's end */
  closes: string;
};

const PERIOD = /^([01]?\d|2[0-4])[:.]([0-5]\d)\s*[-–—]\s*([01]?\d|2[0-4])[:.]([0-5]\d)$/;

const minutes = (h: string, m: string) => Number(h) * 60 + Number(m);
const hhmm = (total: number) =>
  `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;

/**
 * One day's line as periods, in order; null when it isn't one: a period that isn't "HH:MM–HH:MM",
 * ends before it starts or past 24:00, or overlaps another (touching is fine).
 */
export function parseDay(weekday: number, line: string): Period[] | null {
  const parts = line
    .split(/[,;]/)
    .map((p) => p.trim())
    .filter(Boolean);
  const spans: [number, number][] = [];
  for (const part of parts) {
    const m = PERIOD.exec(part);
    if (!m) return null;
    const from = minutes(m[1], m[2]);
    const to = minutes(m[3], m[4]);
    if (from >= to || from >= 24 * 60 || to > 24 * 60) return null;
    spans.push([from, to]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < spans.length; i++) if (spans[i][0] < spans[i - 1][1]) return null;
  return spans.map(([from, to]) => ({ weekday, opens: hhmm(from), closes: hhmm(to) }));
}

/** A day's periods as the form shows them: "08:00–12:00, 13:30–18:00" ('' when closed). */
export function formatDay(periods: Pick<Period, 'opens' | 'closes'>[]): string {
  return periods.map((p) => `${p.opens.slice(0, 5)}–${p.closes.slice(0, 5)}`).join(', ');
}
