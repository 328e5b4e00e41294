// What the ticket page's history says of a merge (docs/product.md#merge): who merged what on both
// tickets, and the moved events marked with the number of the ticket they were written on.
import { describe, expect, it } from 'vitest';
import { historyLine } from '~/routes/w.$slug.tickets.$number/ticket-events.ts';

const name = (id: string | null) => (id === 'sam' ? 'Sam' : 'Tend');

describe('history lines of a merge', () => {
  it('says who merged which ticket into which, on each side', () => {
    expect(historyLine({ actor_id: 'sam', type: 'merged_into', from: null, to: '5' }, name)).toBe(
      'Sam merged this ticket into #5',
    );
    expect(historyLine({ actor_id: 'sam', type: 'merged_from', from: '12', to: null }, name)).toBe(
      'Sam merged #12 into this ticket',
    );
  });

  it("marks an event a merge moved with its first ticket's number", () => {
    expect(historyLine({ actor_id: 'sam', type: 'created', from: null, to: 'new', from_ticket: 12 }, name)).toBe(
      '#12: Sam opened the request',
    );
    expect(historyLine({ actor_id: 'sam', type: 'created', from: null, to: 'new', from_ticket: null }, name)).toBe(
      'Sam opened the request',
    );
  });
});

// docs/product.md#spam-and-trash, docs/product.md#split, docs/product.md#customers-companies-and-ticket-fields
describe('history lines of Spam, Trash, a split and a custom field', () => {
  const line = (type: string, more: { actor_id?: string | null; from?: string; to?: string; field?: string } = {}) =>
    historyLine({ actor_id: 'sam', from: null, to: null, type, ...more }, name);

  it('says who moved it where, and Tend when its sender was marked as spam', () => {
    expect(line('spam')).toBe('Sam marked it as spam');
    expect(line('spam', { actor_id: null })).toBe('Tend put it in Spam: its sender is marked as spam');
    expect(line('not_spam')).toBe('Sam marked it as not spam');
    expect(line('trashed')).toBe('Sam deleted it (to Trash)');
    expect(line('restored')).toBe('Sam restored it from Trash');
  });

  it('links a split both ways', () => {
    expect(line('split_to', { to: '13' })).toBe('Sam split a message off into #13');
    expect(line('split_from', { from: '12' })).toBe('Sam split this ticket off from #12');
  });

  it("names a custom field's new value, or that it was emptied", () => {
    expect(line('field', { field: 'Order number', from: '12', to: '1234' })).toBe('Sam set Order number to 1234');
    expect(line('field', { field: 'Order number', from: '1234' })).toBe('Sam cleared Order number');
  });
});

describe('history lines of a rule', () => {
  it('names the rule that ran; its changes are Tend’s', () => {
    expect(historyLine({ actor_id: null, type: 'rule', from: null, to: 'Refunds' }, name)).toBe('Rule “Refunds” ran');
    expect(historyLine({ actor_id: null, type: 'tag_added', from: null, to: 'refund' }, name)).toBe(
      'Tend added the tag refund',
    );
  });
});
