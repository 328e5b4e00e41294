// Single fetch hands the loaders' and actions' results to the browser as turbo-stream text
// (`@remix-run/server-runtime` encodes it before entry.server runs): a first line that is a JSON
// array of every value, objects as {"_<index of key>": <index of value>}, then one line per
// promise. entry.server adds to it what only it knows.
import type { KeptForm } from './kept-form.server.ts';

/**
 * `text` with `kept` added to the data of every backend_unavailable error in it (the error page
 * gives the text back, kept-form.server.ts). Text it can't read, or with promises after the first
 * line, comes back as it was.
 */
export function keepInErrors(text: string, kept: KeptForm): string {
  const newline = text.indexOf('\n');
  if (newline < 0 || text.slice(newline + 1).trim()) return text;
  let values: unknown;
  try {
    values = JSON.parse(text.slice(0, newline));
  } catch {
    return text;
  }
  if (!Array.isArray(values)) return text;
  const all: unknown[] = values;
  const push = (value: unknown) => all.push(value) - 1;
  const isUnavailable = (entry: Record<string, unknown>) =>
    Object.entries(entry).some(
      ([key, value]) => all[Number(key.slice(1))] === 'code' && all[Number(value)] === 'backend_unavailable',
    );
  const errors = all.filter(
    (entry): entry is Record<string, unknown> =>
      !!entry && typeof entry === 'object' && !Array.isArray(entry) && isUnavailable(entry as Record<string, unknown>),
  );
  if (!errors.length) return text;
  const pairs = push(kept.map(([name, value]) => push([push(name), push(value)])));
  const key = push('kept');
  for (const entry of errors) entry[`_${key}`] = pairs;
  return `${JSON.stringify(all)}\n`;
}
