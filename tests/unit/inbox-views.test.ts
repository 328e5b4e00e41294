// The inbox's address as the page reads it (docs/product.md §2,
// docs/product.md#views-saved-views-mentions-and-search-the-inbox): custom-field filters, sort and a search's scope;
// what a saved view keeps and the link back to it; a row's age; a count's label.
import { describe, expect, it } from 'vitest';
import {
  inboxArgs,
  inboxFilters,
  keptParams,
  listedView,
  savedViewFilters,
  savedViewParams,
} from '../../app/lib/helpdesk/inbox-query.server.ts';
import { countLabel, searchCountLabel } from '../../app/lib/helpdesk/inbox-views.ts';
import { ageLabel } from '../../app/routes/w.$slug._index/age.ts';

const ID = (n: number) => `0000000${n}-0000-4000-8000-000000000000`;

describe('inbox filters', () => {
  it('reads custom-field filters: a value, or a range; empty ones unset; at most five fields', () => {
    const f = inboxFilters(
      new URLSearchParams([
        [`f.${ID(1)}`, ' Pro '],
        [`f.${ID(2)}.from`, '5'],
        [`f.${ID(2)}.to`, '10'],
        [`f.${ID(3)}`, ''],
        ['f.not-an-id', 'x'],
        [`f.${ID(4)}.between`, 'x'],
        ...[5, 6, 7, 8, 9].map((n): [string, string] => [`f.${ID(n)}`, 'y']),
      ]),
    );
    expect(f.fields).toEqual({
      [ID(1)]: 'Pro',
      [ID(2)]: { from: '5', to: '10' },
      [ID(5)]: 'y',
      [ID(6)]: 'y',
      [ID(7)]: 'y',
    });
  });

  it('searches every view unless narrowed to its own, and only a search has a scope', () => {
    const search = inboxFilters(new URLSearchParams('view=open&q=refund'));
    expect(listedView(search)).toBe('all');
    expect(inboxArgs(search).p_view).toBe('all');
    const narrowed = inboxFilters(new URLSearchParams('view=open&q=refund&scope=view'));
    expect(listedView(narrowed)).toBe('open');
    const none = inboxFilters(new URLSearchParams('view=open&scope=view'));
    expect(none.scope).toBe('');
    expect(listedView(none)).toBe('open');
    expect(inboxFilters(new URLSearchParams('view=mentions')).view).toBe('mentions');
  });

  it('sorts oldest first only when asked; anything else is the default', () => {
    expect(inboxArgs(inboxFilters(new URLSearchParams('sort=oldest'))).p_sort).toBe('oldest');
    expect(inboxArgs(inboxFilters(new URLSearchParams('sort=random'))).p_sort).toBeUndefined();
  });

  it('sends the field filters as JSON (a GET carries text)', () => {
    const args = inboxArgs(inboxFilters(new URLSearchParams(`f.${ID(1)}=Pro`)));
    expect(JSON.parse(args.p_fields as string)).toEqual({ [ID(1)]: 'Pro' });
    expect(inboxArgs(inboxFilters(new URLSearchParams(''))).p_fields).toBeUndefined();
  });
});

describe('saved views', () => {
  const roundTrip = (query: string) => {
    const f = inboxFilters(new URLSearchParams(query));
    const saved = savedViewFilters(f);
    const again = inboxFilters(
      new URLSearchParams(
        Object.entries(savedViewParams(saved)).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => [k, x])),
      ),
    );
    return { saved, f, again };
  };

  it('keeps the listed view, the words, tags (search tags too), filters, fields and sort; the link lists the same', () => {
    const { saved, f, again } = roundTrip(
      `view=open&q=refund tag:billing&tag=vip&priority=high&assignee=none&sort=oldest&f.${ID(1)}=Pro&f.${ID(2)}.from=5`,
    );
    expect(saved).toEqual({
      view: 'all',
      q: 'refund',
      priority: 'high',
      assignee: 'none',
      tag: ['vip', 'billing'],
      fields: { [ID(1)]: 'Pro', [ID(2)]: { from: '5' } },
      sort: 'oldest',
    });
    expect(inboxArgs(again)).toEqual(inboxArgs(f));
  });

  it('keeps a search narrowed to its view as that view', () => {
    const { saved, again } = roundTrip('view=pending&q=late&scope=view');
    expect(saved).toEqual({ view: 'pending', q: 'late' });
    expect(listedView(again)).toBe('pending');
  });

  it('keeps nothing that is unset', () => {
    expect(savedViewFilters(inboxFilters(new URLSearchParams('')))).toEqual({ view: 'unassigned' });
    expect(keptParams(inboxFilters(new URLSearchParams(`view=all&f.${ID(1)}=x`)))).toMatchObject({
      view: 'all',
      [`f.${ID(1)}`]: 'x',
    });
  });
});

describe('a row’s age and a count’s label', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  it('says the largest whole unit', () => {
    expect(ageLabel('2026-11-27T11:59:40Z', now)).toBe('now');
    expect(ageLabel('2026-11-27T12:05:00Z', now)).toBe('now'); // a clock ahead: never negative
    expect(ageLabel('2026-11-27T11:55:00Z', now)).toBe('5m');
    expect(ageLabel('2026-11-27T09:00:00Z', now)).toBe('3h');
    expect(ageLabel('2026-11-25T12:00:00Z', now)).toBe('2d');
    expect(ageLabel('2026-10-01T12:00:00Z', now)).toBe('8w');
    expect(ageLabel('2024-11-01T12:00:00Z', now)).toBe('2y');
  });
  it('caps counted counts at 1,000+', () => {
    expect(countLabel(12)).toBe('12');
    expect(countLabel(1000)).toBe('1,000');
    expect(countLabel(1001)).toBe('1,000+');
    expect(countLabel(7, true)).toBe('7+');
  });
  it("caps a search's counts at 100+", () => {
    expect(searchCountLabel(12, false)).toBe('12');
    expect(searchCountLabel(100, false)).toBe('100');
    expect(searchCountLabel(101, true)).toBe('100+');
    expect(searchCountLabel(7, true)).toBe('7+');
    expect(searchCountLabel(0, false)).toBe('0');
    expect(searchCountLabel(0, true)).toBeNull();
  });
});
