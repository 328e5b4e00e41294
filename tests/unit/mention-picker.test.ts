// mention-picker.ts's pure parts: what counts as "@…" being typed, and which members it offers.
import { describe, expect, it } from 'vitest';
import { mentionMatches, mentionQuery } from '~/components/mention-picker.ts';

describe('mentionQuery', () => {
  it('finds the "@" just before the caret, at the start or after a space or punctuation', () => {
    expect(mentionQuery('@', 1)).toEqual({ at: 0, query: '' });
    expect(mentionQuery('Please ask @sa', 14)).toEqual({ at: 11, query: 'sa' });
    expect(mentionQuery('(cc @Zoë', 8)).toEqual({ at: 4, query: 'Zoë' });
    expect(mentionQuery("ask @o'bri", 10)).toEqual({ at: 4, query: "o'bri" });
  });

  it('is nothing inside an address or a word, after a space, or away from the caret', () => {
    expect(mentionQuery('mail sam@acme', 13)).toBeNull();
    expect(mentionQuery('@sam and', 8)).toBeNull();
    expect(mentionQuery('@sam ', 5)).toBeNull();
    expect(mentionQuery('@sam later', 2)).toEqual({ at: 0, query: 's' });
    expect(mentionQuery(`@${'x'.repeat(31)}`, 32)).toBeNull();
  });
});

describe('mentionMatches', () => {
  const members = [
    { user_id: '1', name: 'Sam Support' },
    { user_id: '2', name: 'Ada Admin' },
    { user_id: '3', name: 'Samira Ortiz' },
  ];
  it('offers the members with a word starting with what was typed, any case, in their order', () => {
    expect(mentionMatches(members, 'sa').map((m) => m.user_id)).toEqual(['1', '3']);
    expect(mentionMatches(members, 'ADM').map((m) => m.user_id)).toEqual(['2']);
    expect(mentionMatches(members, 'ort').map((m) => m.user_id)).toEqual(['3']);
    expect(mentionMatches(members, '')).toHaveLength(3);
    expect(mentionMatches(members, 'zed')).toEqual([]);
  });
  it('offers eight at most', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ user_id: String(i), name: `Agent ${i}` }));
    expect(mentionMatches(many, 'agent')).toHaveLength(8);
  });
});
