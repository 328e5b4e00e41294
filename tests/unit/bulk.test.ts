// What a bulk change says it did (docs/product.md#bulk-changes), from public.bulk_update_tickets's counts.
import { describe, expect, it } from 'vitest';
import { addBulk, BULK_PAUSES_MS, bulkPause, bulkSummary } from '~/lib/helpdesk/bulk.ts';

describe('bulk summary', () => {
  it('says what was updated and, by reason, what was skipped', () => {
    expect(bulkSummary({ updated: 18, skipped: {} })).toBe('18 updated');
    expect(bulkSummary({ updated: 18, skipped: { closed: 2 } })).toBe('18 updated, 2 skipped: closed');
    expect(bulkSummary({ updated: 1, skipped: { closed: 2, unchanged: 1, not_found: 0 } })).toBe(
      '1 updated, 3 skipped: 2 closed, 1 already so',
    );
    expect(bulkSummary({ updated: 0, skipped: { not_found: 4 } })).toBe('0 updated, 4 skipped: not found');
    expect(bulkSummary({ updated: 0, skipped: { closed: 1, merged: 2 } })).toBe(
      '0 updated, 3 skipped: 1 closed, 2 merged already',
    );
  });

  it('adds batches up', () => {
    expect(
      addBulk({ updated: 3, skipped: { closed: 1 } }, { updated: 2, skipped: { closed: 2, unchanged: 1 } }),
    ).toEqual({
      updated: 5,
      skipped: { closed: 3, unchanged: 1 },
    });
  });

  it('pauses as long as a batch took, until the pauses add up to their most', () => {
    expect(bulkPause(250, 0)).toBe(250);
    expect(bulkPause(400, BULK_PAUSES_MS - 100)).toBe(100);
    expect(bulkPause(400, BULK_PAUSES_MS)).toBe(0);
    // A run of batches: the pauses never pass the most, so the request takes at most its work and that.
    let paused = 0;
    for (let i = 0; i < 40; i++) paused += bulkPause(300, paused);
    expect(paused).toBe(BULK_PAUSES_MS);
  });
});
