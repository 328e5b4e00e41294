import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '~/lib/http/utf8.server.ts';

describe('utf8Bytes', () => {
  const texts: [string, string][] = [
    ['ASCII only', '<p class="x">Inbox</p>'],
    ['Latin-1 (one-byte in V8)', 'Inbox · Acme Support · café'],
    ['beyond Latin-1 (two-byte)', '<a rel="next">Older →</a> 1–25 of 17,394 · the team’s…'],
    ['astral characters (surrogate pairs)', 'Thanks 😀 for the 🚚 update, 東京'],
    ['a lone surrogate', `broken \ud800 text and \udc00 again`],
    ['empty', ''],
  ];
  it.each(texts)('writes the same bytes as Buffer.from: %s', (_, text) => {
    const bytes = utf8Bytes(text);
    expect(bytes.equals(Buffer.from(text))).toBe(true);
    expect(bytes.toString('utf8')).toBe(Buffer.from(text).toString('utf8'));
  });

  it('writes a large page of mixed text the same', () => {
    const page = Array.from({ length: 2000 }, (_, i) => `<td>Row ${i} – ${i % 7 ? 'plain' : 'ünïcödé →'}</td>`).join(
      '',
    );
    expect(utf8Bytes(page).equals(Buffer.from(page))).toBe(true);
  });
});
