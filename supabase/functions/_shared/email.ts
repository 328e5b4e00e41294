// Email addresses, tokens, threading headers and the SMTP transport shared by notify and
// inbound-email. Configuration comes from the function's env (README "Email").
import { Buffer } from 'node:buffer';
import { MimeNode, nodemailer, qpWrap } from './deps.ts';
import { readFromBuffer } from './email-mime.ts';
import { idToken, readIdToken, readReplyToken, replyToken, tokenOf, type RecipientReplyToken } from './tokens.ts';

const env = (name: string) => Deno.env.get(name) || undefined;

/** Where the deep links point: the app's public origin. */
export const appUrl = () => (env('APP_URL') ?? 'http://localhost:3000').replace(/\/+$/, '');
/** The sender of every notification. */
export const fromAddress = () => env('SMTP_FROM') ?? 'Tend <support@tend.localhost>';
/** The domain whose mail the provider posts to inbound-email: reply+<token>@…, <workspace slug>@…. */
export const inboundDomain = () =>
  (env('INBOUND_EMAIL_DOMAIN') ?? /@([^>\s]+)>?\s*$/.exec(fromAddress())?.[1] ?? 'tend.localhost').toLowerCase();

// ---------------------------------------------------------------------------------------------
// Addresses that carry a signed token (tokens.ts; docs/decisions/034-inbound-email-trust.md).
const secret = () => env('EMAIL_TOKEN_SECRET') ?? env('SUPABASE_SERVICE_ROLE_KEY') ?? '';

/** reply+<ticket>.<recipient>.<mac>@domain: an answer to it is `recipientId`'s on that ticket's thread. */
export async function replyAddress(ticketId: string, recipientId: string): Promise<string> {
  return `reply+${await replyToken(secret(), ticketId, recipientId)}@${inboundDomain()}`;
}

/** unsubscribe+<user>.<mac>@domain: mail to it stops a customer's notifications. */
export async function unsubscribeAddress(userId: string): Promise<string> {
  return `unsubscribe+${await idToken(secret(), 'unsubscribe', userId)}@${inboundDomain()}`;
}

/** fwd+<forward>.<mac>@domain: an answer to it is the outside party's on that forward (88_rich_mail.sql). */
export async function forwardAddress(forwardId: string): Promise<string> {
  return `fwd+${await idToken(secret(), 'fwd', forwardId)}@${inboundDomain()}`;
}

/** The forward a fwd+ address names, if its MAC is right. */
export async function readForwardAddress(address: string): Promise<string | null> {
  const token = tokenOf('fwd', address, inboundDomain());
  return token ? readIdToken(secret(), 'fwd', token) : null;
}

/** The user an unsubscribe+ address names, if its MAC is right. */
export async function readUnsubscribeAddress(address: string): Promise<string | null> {
  const token = tokenOf('unsubscribe', address, inboundDomain());
  return token ? readIdToken(secret(), 'unsubscribe', token) : null;
}

/**
 * What a reply+ address says: one recipient's (its MAC still to be checked against a user), or an
 * older address of the whole ticket whose MAC is right (`recipient: null`); null for anything else.
 */
export async function readReplyAddress(
  address: string,
): Promise<{ ticketId: string; recipient: RecipientReplyToken | null } | null> {
  const token = tokenOf('reply', address, inboundDomain());
  if (!token) return null;
  const recipient = readReplyToken(secret(), token);
  if (recipient) return { ticketId: recipient.ticketId, recipient };
  const ticketId = await readIdToken(secret(), 'reply', token);
  return ticketId ? { ticketId, recipient: null } : null;
}

// ---------------------------------------------------------------------------------------------
// Threading: every public message has one Message-ID, the same for all its recipients.
export const messageIdOf = (messageId: string) => `<m.${messageId}@${inboundDomain()}>`;

/** The message ids of ours an In-Reply-To / References header names, nearest first. */
export function referencedMessages(...headers: (string | undefined)[]): string[] {
  const ids: string[] = [];
  for (const h of headers)
    for (const m of (h ?? '').matchAll(/<m\.([0-9a-f-]{36})@[^>]+>/gi)) ids.unshift(m[1].toLowerCase());
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Sending: SMTP, the one interface every provider and the local catcher take.
let transport: ReturnType<typeof nodemailer.createTransport> | undefined;

function createTransport() {
  const port = Number(env('SMTP_PORT') ?? 587);
  const user = env('SMTP_USER');
  return nodemailer.createTransport({
    host: env('SMTP_HOST') ?? '127.0.0.1',
    port,
    secure: port === 465,
    auth: user ? { user, pass: env('SMTP_PASS') ?? '' } : undefined,
    pool: true,
    maxConnections: 2,
  });
}

/** The SMTP transport, its messages written out in one pass (email-mime.ts), made once per worker. */
function smtp() {
  if (!transport) {
    transport = createTransport();
    // After nodemailer composed the message, before the pool reads it.
    transport.use('stream', (mail: { message: unknown }, done: () => void) => {
      readFromBuffer(mail.message as Parameters<typeof readFromBuffer>[0], qpWrap);
      done();
    });
  }
  return transport;
}

export interface OutgoingEmail {
  /** The workspace's sender (email-brand.ts senderOf); SMTP_FROM without one. */
  from?: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  replyTo?: string;
  headers?: Record<string, string>;
  /** Files that go with the email (a reply's, within EMAIL_FILES_MAX_BYTES); `cid`: shown in the HTML. */
  attachments?: { filename: string; content: Uint8Array; contentType: string; cid?: string }[];
}

/**
 * A file as a whole MIME part, its bytes base64-encoded natively: nodemailer's own base64 (a JS line
 * wrapper and string-to-Buffer copies) took ~200 ms per 2 MB file in Deno (docs/decisions/068-mail-catcher-speed.md).
 * The part's headers are nodemailer's (name parameters of non-ASCII names, Content-Id), with the
 * disposition its composer would give (mail-composer: an image with a cid is inline).
 */
function encodedPart(file: NonNullable<OutgoingEmail['attachments']>[number]) {
  const part = new MimeNode('multipart/mixed').createChild(file.contentType, { filename: file.filename });
  if (file.cid) part.setHeader('Content-Id', `<${file.cid.replace(/[<>]/g, '')}>`);
  part.setHeader('Content-Transfer-Encoding', 'base64');
  part.setHeader('Content-Disposition', file.cid && /^image\//i.test(file.contentType) ? 'inline' : 'attachment');
  const base64 = Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < base64.length; i += 76) lines.push(base64.slice(i, i + 76));
  // The composer still needs the cid (multipart/related beside the HTML) and the type.
  const raw = `${part.buildHeaders()}\r\n\r\n${lines.join('\r\n')}`;
  return { cid: file.cid, contentType: file.contentType, raw };
}

/** Sends one email, retrying with back-off (0.25 s, 1 s, 4 s); throws the last error. */
export async function sendEmail(mail: OutgoingEmail, attempts = 4): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await smtp().sendMail({
        ...mail,
        from: mail.from ?? fromAddress(),
        attachments: mail.attachments?.map(encodedPart),
      });
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 250 * 4 ** (attempt - 1)));
    }
  }
}

// The HTML of plain text (message-html.ts; the app renders the same).
export { escapeHtml, textToHtml } from './message-html.ts';
