// A row's age as the compact inbox shows it (docs/product.md#views-saved-views-mentions-and-search-the-inbox): how long
// since its last activity, in the largest whole unit — "now", "5m", "3h", "2d", "6w", "1y". Written by the loader, so
// the page and its script agree; the full time is the cell's title.

const UNITS: [string, number][] = [
  ['y', 365 * 24 * 60],
  ['w', 7 * 24 * 60],
  ['d', 24 * 60],
  ['h', 60],
  ['m', 1],
];

export function ageLabel(at: string, now: Date): string {
  const minutes = Math.floor((now.getTime() - new Date(at).getTime()) / 60_000);
  if (!(minutes >= 1)) return 'now';
  const [unit, size] = UNITS.find(([, size]) => minutes >= size)!;
  return `${Math.floor(minutes / size)}${unit}`;
}
