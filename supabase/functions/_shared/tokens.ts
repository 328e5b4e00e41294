// The signed tokens in our email addresses (docs/decisions/034-inbound-email-trust.md): an id and an
// HMAC of it, so an address can't be made up. Plain TypeScript on node:crypto (Deno and Node): the unit
// tests run it.
//
// - unsubscribe+<user>.<mac>: mail to it stops that customer's notifications.
// - reply+<ticket>.<recipient>.<mac>: the Reply-To of one notification email to one person: the
//   ticket's id (32 hex), the first 8 hex of the recipient's user id and an HMAC of both whole ids
//   (16 hex). 64 characters, the most RFC 5321 allows a local part. An answer counts only from that
//   recipient; the 8 hex only narrow down whose it is (the MAC decides, over the whole id).
// - reply+<ticket>.<mac>: the one address per ticket that everyone was given before; still read.
import { createHmac } from 'node:crypto';

/** The first `hexChars` hex digits of HMAC-SHA256(secret, text). node:crypto's, synchronous: WebCrypto's
 * sign is a round trip to a thread pool, a visible part of notify's CPU per email (docs/decisions/089-email-cpu.md). */
async function hmacHex(secret: string, text: string, hexChars: number): Promise<string> {
  return createHmac('sha256', secret).update(text).digest('hex').slice(0, hexChars);
}

/** Compares two MACs in time that doesn't depend on where they differ. */
function sameMac(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const compact = (uuid: string) => uuid.replace(/-/g, '').toLowerCase();
const expand = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The kinds of `<kind>+<id>.<mac>@…` address: unsubscribe, an older reply+, a forward's fwd+. */
export type IdTokenKind = 'reply' | 'unsubscribe' | 'fwd';

/** `<id>.<mac>`: the token of an unsubscribe+, fwd+ (and an older reply+) address. */
export async function idToken(secret: string, kind: IdTokenKind, id: string): Promise<string> {
  return `${compact(id)}.${await hmacHex(secret, `${kind}:${id.toLowerCase()}`, 20)}`;
}

/** `<ticket>.<recipient prefix>.<mac>`: the token of one recipient's reply+ address. */
export async function replyToken(secret: string, ticketId: string, recipientId: string): Promise<string> {
  const mac = await hmacHex(secret, `reply-to:${ticketId.toLowerCase()}:${recipientId.toLowerCase()}`, 16);
  return `${compact(ticketId)}.${compact(recipientId).slice(0, 8)}.${mac}`;
}

/** The token of `<kind>+<token>@<domain>`, lower-cased, or null for any other address. */
export function tokenOf(kind: IdTokenKind, address: string, domain: string): string | null {
  const m = /^([a-z]+)\+([0-9a-f.]+)@(.+)$/.exec(address.trim().toLowerCase());
  return m && m[1] === kind && m[3] === domain.toLowerCase() ? m[2] : null;
}

/** The id of an `<id>.<mac>` token whose MAC is right, else null. */
export async function readIdToken(secret: string, kind: IdTokenKind, token: string): Promise<string | null> {
  const m = /^([0-9a-f]{32})\.([0-9a-f]{20})$/.exec(token);
  if (!m) return null;
  const id = expand(m[1]);
  return sameMac(await hmacHex(secret, `${kind}:${id}`, 20), m[2]) ? id : null;
}

export interface RecipientReplyToken {
  ticketId: string;
  /** The first 8 hex of the recipient's user id (without dashes). */
  recipientPrefix: string;
  /** Whether the token was made for this user (its MAC, over the whole id). */
  isFor(userId: string): Promise<boolean>;
}

/** A `<ticket>.<recipient prefix>.<mac>` token as written (its MAC not yet checked), else null. */
export function readReplyToken(secret: string, token: string): RecipientReplyToken | null {
  const m = /^([0-9a-f]{32})\.([0-9a-f]{8})\.([0-9a-f]{16})$/.exec(token);
  if (!m) return null;
  const ticketId = expand(m[1]);
  return {
    ticketId,
    recipientPrefix: m[2],
    isFor: async (userId) =>
      compact(userId).startsWith(m[2]) &&
      sameMac(await hmacHex(secret, `reply-to:${ticketId}:${userId.toLowerCase()}`, 16), m[3]),
  };
}

// - <attachment>.<expiry>.<mac>: a link to one file of an email (too big to go with it) that works
//   without signing in until its expiry (seconds since 1970, base 36), for that file only, while the
//   file exists (docs/decisions/047-emails-that-carry-the-conversation.md).

/** The token of a file link to `attachmentId` until `expiresAt` (a Date). */
export async function fileLinkToken(secret: string, attachmentId: string, expiresAt: Date): Promise<string> {
  const expiry = Math.floor(expiresAt.getTime() / 1000).toString(36);
  return `${compact(attachmentId)}.${expiry}.${await hmacHex(secret, `file:${attachmentId.toLowerCase()}:${expiry}`, 32)}`;
}

/** The file a link's token names, if its MAC is right and it hasn't expired at `now`; else why not. */
export async function readFileLinkToken(
  secret: string,
  token: string,
  now = new Date(),
): Promise<{ attachmentId: string } | { error: 'invalid' | 'expired' }> {
  const m = /^([0-9a-f]{32})\.([0-9a-z]{1,10})\.([0-9a-f]{32})$/.exec(token);
  if (!m) return { error: 'invalid' };
  const attachmentId = expand(m[1]);
  if (!sameMac(await hmacHex(secret, `file:${attachmentId}:${m[2]}`, 32), m[3])) return { error: 'invalid' };
  return Number.parseInt(m[2], 36) * 1000 > now.getTime() ? { attachmentId } : { error: 'expired' };
}
