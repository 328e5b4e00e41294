import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../app/lib/helpdesk/inbox-cursor.ts';

describe('inbox cursors', () => {
  const cursor = { at: '2026-11-23T00:37:36.123456+00:00', id: 'a1b230d7-c79d-4c49-b8d9-28d4372fbae5' };

  it('round-trips a position through a URL-safe string', () => {
    const encoded = encodeCursor(cursor);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(encoded)).toEqual(cursor);
    expect(decodeCursor(new URLSearchParams(`after=${encoded}`).get('after'))).toEqual(cursor);
  });

  it('reads anything else as no cursor (the first page)', () => {
    const b64 = (s: string) => btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    for (const raw of [
      null,
      '',
      'not base64!',
      b64('2026-11-23T00:37:36Z'),
      b64(`yesterday|${cursor.id}`),
      b64(`${cursor.at}|not-a-uuid`),
      b64(`${cursor.at}|${cursor.id}|extra`),
      b64(`2026-13-45T99:99:99Z|${cursor.id}`),
      'A'.repeat(500),
    ]) {
      expect(decodeCursor(raw), String(raw)).toBeNull();
    }
  });
});
