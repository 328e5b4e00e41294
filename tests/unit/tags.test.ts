// Tags (docs/product.md#tags): the app's name pattern and palette are the database's
// (supabase/schemas/52_triage.sql), and a search's `tag:` words become the inbox's tag filter.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { searchTags, TAG_COLOURS, TAG_NAME_RE, tagName } from '~/lib/helpdesk/tags.ts';

const SQL = readFileSync(path.join(__dirname, '..', '..', 'supabase', 'schemas', '52_triage.sql'), 'utf8');

describe('tags', () => {
  it("the name pattern is the database's, in the table's check and in add_ticket_tag", () => {
    const patterns = [...SQL.matchAll(/name ~ '([^']+)'|!~ '([^']+)'/g)].map((m) => m[1] ?? m[2]);
    expect(patterns).toHaveLength(2);
    for (const p of patterns) expect(p).toBe(TAG_NAME_RE.source);
  });

  it("the palette is the database's", () => {
    const check = /check \(colour in \(([^)]+)\)\)/.exec(SQL)?.[1];
    expect(check?.split(',').map((c) => c.trim().replaceAll("'", ''))).toEqual([...TAG_COLOURS]);
  });

  it('a name is trimmed and lower-cased, then checked', () => {
    expect(tagName('  Billing ')).toBe('billing');
    for (const ok of ['billing', 'vip-2', 'a_b', '9']) expect(TAG_NAME_RE.test(ok), ok).toBe(true);
    for (const bad of ['', '-x', 'two words', 'a'.repeat(41), 'é', 'a,b'])
      expect(TAG_NAME_RE.test(bad), bad).toBe(false);
  });

  it('tag: words leave the search text and become tags', () => {
    expect(searchTags('refund tag:Billing  late TAG:vip')).toEqual({ text: 'refund late', tags: ['billing', 'vip'] });
    expect(searchTags('tag:billing')).toEqual({ text: '', tags: ['billing'] });
    expect(searchTags('no tags here')).toEqual({ text: 'no tags here', tags: [] });
  });
});
