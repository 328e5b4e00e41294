// SLA targets as the settings page writes them: "30m", "4h", "1h 30m" (a bare number is minutes).
// The database stores minutes (sla_targets, supabase/schemas/90_promises.sql), 1 to a year.

export const MAX_TARGET_MINUTES = 525_600;

/** Minutes, or null when the text isn't a duration of 1 minute to a year; '' is undefined (no target). */
export function parseDuration(text: string): number | null | undefined {
  const s = text
    .trim()
    .toLowerCase()
    .replace(/\s*(hours?|hrs?)\b/g, 'h')
    .replace(/\s*(minutes?|mins?)\b/g, 'm');
  if (!s) return undefined;
  let total = 0;
  let rest = s;
  while (rest) {
    const m = /^(\d{1,6})\s*(h|m)?\s*/.exec(rest);
    if (!m) return null;
    total += Number(m[1]) * (m[2] === 'h' ? 60 : 1);
    rest = rest.slice(m[0].length);
  }
  return total >= 1 && total <= MAX_TARGET_MINUTES ? total : null;
}

/** "1h 30m", "45m", "8h"; '' for no target. */
export function formatDuration(minutes: number | null | undefined): string {
  if (!minutes) return '';
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : ''].filter(Boolean).join(' ');
}
