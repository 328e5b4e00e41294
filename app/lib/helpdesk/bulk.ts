// What a bulk change did, as the inbox says it (docs/product.md#bulk-changes): "18 updated, 2 skipped: closed",
// "18 updated, 3 skipped: 2 closed, 1 already so". public.bulk_update_tickets counts the skipped
// tickets by reason: unchanged, not_found, field_required (solving needs a custom field), or the status
// a ticket couldn't leave.

export interface BulkResult {
  updated: number;
  skipped: Record<string, number>;
}

const REASONS: Record<string, string> = {
  unchanged: 'already so',
  not_found: 'not found',
  merged: 'merged already',
  field_required: 'a required field is empty',
};

export function bulkSummary({ updated, skipped }: BulkResult): string {
  const reasons = Object.entries(skipped).filter(([, n]) => n > 0);
  const total = reasons.reduce((sum, [, n]) => sum + n, 0);
  const said = `${updated} updated`;
  if (!total) return said;
  const why = reasons.map(([reason, n]) => `${reasons.length > 1 ? `${n} ` : ''}${REASONS[reason] ?? reason}`);
  return `${said}, ${total} skipped: ${why.join(', ')}`;
}

/** Adds one batch's result to the run's. */
export function addBulk(a: BulkResult, b: BulkResult): BulkResult {
  const skipped = { ...a.skipped };
  for (const [reason, n] of Object.entries(b.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
  return { updated: a.updated + b.updated, skipped };
}

/**
 * The most a bulk change "all matching" pauses in all (docs/decisions/080-bulk-pacing.md): after each batch it
 * waits as long as that batch took, so it keeps about half of one core on average and the other agents' pages
 * find a core free, until these pauses add up to this. The request then takes at most its work plus 3 s:
 * about 7 s for 10 000 tickets at 1 M (expected ~4 s of work), within issue 27's 10 s.
 */
export const BULK_PAUSES_MS = 3000;

/** The pause after a batch that took `batchMs`, when the run has paused `pausedMs` so far. */
export const bulkPause = (batchMs: number, pausedMs: number) =>
  Math.max(0, Math.min(batchMs, BULK_PAUSES_MS - pausedMs));
