// The inbox's built-in views (docs/product.md §2, docs/product.md#views-saved-views-mentions-and-search-the-inbox), in
// their tabs' order, with their labels. Only the inbox and its server modules use them, so the ticket page's shared
// chunk doesn't carry them.

export const INBOX_VIEWS = [
  'unassigned',
  'mine',
  'mentions',
  'open',
  'pending',
  'snoozed',
  'solved',
  'all',
  'breaching',
  'spam',
  'trash',
] as const;
export type InboxView = (typeof INBOX_VIEWS)[number];
export const VIEW_LABELS: Record<InboxView, string> = {
  unassigned: 'Unassigned',
  mine: 'Mine',
  // Tickets whose internal notes name me, newest mention first (supabase/schemas/87_mentions.sql).
  mentions: 'Mentions',
  open: 'Open',
  pending: 'Pending',
  snoozed: 'Snoozed',
  solved: 'Solved',
  all: 'All',
  // Tickets with an SLA promise running, soonest due first (docs/product.md "Business hours and SLA targets").
  breaching: 'Breaching soon',
  // Out of every other view (docs/product.md#spam-and-trash).
  spam: 'Spam',
  trash: 'Trash',
};

export function isView(v: unknown): v is InboxView {
  return typeof v === 'string' && (INBOX_VIEWS as readonly string[]).includes(v);
}

/**
 * Counts that are counted rather than summed (a saved view with a search, tags or fields) stop here: the
 * tab says "1,000+" (1 001 rows in private.saved_view_count).
 */
export const COUNT_CAP = 1000;

/**
 * A search's matches per view (the tabs and "Results in all views" while searching) stop here: they say
 * where the matches are, not how many, "100+" past it (count_cap in public.inbox,
 * docs/decisions/092-search-count-cap.md).
 */
export const SEARCH_COUNT_CAP = 100;

const count = new Intl.NumberFormat('en');

/** A view's count as its tab shows it: "1,000+" past the cap (or "n+" when the database says it stopped). */
export const countLabel = (n: number, capped = false, cap = COUNT_CAP) =>
  n > cap ? `${count.format(cap)}+` : `${count.format(n)}${capped ? '+' : ''}`;

/**
 * A search's matches in a view: "100+" past the search's cap. None when the first 101 matches had none in
 * the view: "0+" read as "nothing here" while the view may hold later matches.
 */
export const searchCountLabel = (n: number, capped: boolean) =>
  n === 0 && capped ? null : countLabel(n, capped, SEARCH_COUNT_CAP);
