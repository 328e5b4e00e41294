// An inbox page's position in the URL (`after=`, `before=`): keyset paging, newest activity first.
import { UUID_RE } from './ticket-terms.ts';

/** A position in an inbox list (newest activity first): the last activity and id of a ticket. */
export interface InboxCursor {
  at: string;
  id: string;
}

/** Opaque in the URL (`after=`, `before=`): base64url of "<ISO time>|<id>". */
export function encodeCursor(c: InboxCursor): string {
  const text = `${c.at}|${c.id}`;
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The cursor, or null for anything that isn't one (a hand-edited URL shows the first page). */
export function decodeCursor(raw: string | null | undefined): InboxCursor | null {
  if (!raw || raw.length > 200 || !/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  let text: string;
  try {
    text = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return null;
  }
  const [at, id, ...rest] = text.split('|');
  if (
    rest.length ||
    !at ||
    !id ||
    !UUID_RE.test(id) ||
    !/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(at) ||
    Number.isNaN(Date.parse(at))
  )
    return null;
  return { at, id };
}
