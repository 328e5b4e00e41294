// A ticket's thread as a window (docs/product.md#long-threads, issue 27 item 12): the newest THREAD_PAGE
// messages, and "Show earlier messages" (`?earlier=`, the oldest message shown) for everything from
// there on plus THREAD_PAGE before it. Keyset reads, so a long ticket costs what a short one does.
import { decodeCursor, encodeCursor, type InboxCursor } from './inbox-cursor.ts';

export const THREAD_PAGE = 30;

/** The window asked for in the URL (`earlier=`), or null for the newest messages. */
export function earlierCursor(request: Request): InboxCursor | null {
  return decodeCursor(new URL(request.url).searchParams.get('earlier'));
}

/** The page's address after a write from it (`page`): still showing the earlier messages it showed. */
export function samePage(request: Request, page: string): string {
  const cursor = earlierCursor(request);
  return cursor ? `${page}?earlier=${encodeCursor(cursor)}` : page;
}

/**
 * `rows`: oldest first, as the database sends them — the messages from the cursor on, and up to
 * THREAD_PAGE + 1 before it (one more than shown tells there are earlier ones). Answers the messages
 * to show and, when there are earlier ones, the link to them: back to this message once they show.
 */
export function threadWindow<T extends { id: string; created_at: string }>(
  rows: T[],
  cursor: InboxCursor | null,
): { messages: T[]; earlier: string | null } {
  const before = cursor ? rows.findIndex((m) => m.id === cursor.id) : rows.length;
  if (before <= THREAD_PAGE) return { messages: rows, earlier: null };
  const messages = rows.slice(1);
  const oldest = messages[0]!;
  return {
    messages,
    earlier: `?earlier=${encodeCursor({ at: oldest.created_at, id: oldest.id })}#message-${oldest.id}`,
  };
}
