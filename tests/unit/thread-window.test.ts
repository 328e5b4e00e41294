// thread-window.ts: which messages a window shows and where "Show earlier messages" leads.
import { describe, expect, it } from 'vitest';
import { decodeCursor } from '~/lib/helpdesk/inbox-cursor.ts';
import { samePage, THREAD_PAGE, threadWindow } from '~/lib/helpdesk/thread-window.ts';

const ID = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const rows = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, k) => ({
    id: ID(from + k),
    created_at: new Date(Date.UTC(2026, 10, 27, 9, 0, from + k)).toISOString(),
  }));

describe('threadWindow', () => {
  it('shows a short thread whole, with no link', () => {
    expect(threadWindow(rows(1, THREAD_PAGE), null)).toEqual({ messages: rows(1, THREAD_PAGE), earlier: null });
  });

  it('drops the one extra message before the window and links back to the oldest shown', () => {
    const { messages, earlier } = threadWindow(rows(10, 10 + THREAD_PAGE), null);
    expect(messages).toEqual(rows(11, 10 + THREAD_PAGE));
    const url = new URL(earlier!, 'http://tend.test/w/acme/tickets/1');
    expect(url.hash).toBe(`#message-${ID(11)}`);
    expect(decodeCursor(url.searchParams.get('earlier'))).toEqual({ at: messages[0]!.created_at, id: ID(11) });
  });

  it('with a cursor, counts only the messages before it', () => {
    // 31 before the cursor (message 41) and 60 from it on: one page more, and a link.
    const all = rows(10, 100);
    const cursor = { at: all[31]!.created_at, id: all[31]!.id };
    const { messages, earlier } = threadWindow(all, cursor);
    expect(messages).toEqual(all.slice(1));
    expect(earlier).toContain(`#message-${ID(11)}`);
    // Thirty before it: all of them, the start of the thread.
    expect(threadWindow(all.slice(1), cursor)).toEqual({ messages: all.slice(1), earlier: null });
  });

  it('shows what came when the cursor names no message it sent (a hand-edited address)', () => {
    const all = rows(1, 40);
    expect(threadWindow(all, { at: all[5]!.created_at, id: ID(999) })).toEqual({ messages: all, earlier: null });
  });
});

describe('samePage', () => {
  it('keeps the earlier messages a page showed after a write from it, and only a real cursor', () => {
    const cursor = new URL(threadWindow(rows(1, 40), null).earlier!, 'http://tend.test').searchParams.get('earlier');
    const from = (search: string) => new Request(`http://tend.test/w/acme/tickets/7${search}`, { method: 'POST' });
    expect(samePage(from(`?earlier=${cursor}`), '/w/acme/tickets/7')).toBe(`/w/acme/tickets/7?earlier=${cursor}`);
    expect(samePage(from(''), '/w/acme/tickets/7')).toBe('/w/acme/tickets/7');
    expect(samePage(from('?earlier=https://evil.test'), '/w/acme/tickets/7')).toBe('/w/acme/tickets/7');
  });
});
