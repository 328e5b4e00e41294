// Email addresses, tokens, threading headers and the SMTP transport shared by notify and
// inbound-email. Configuration comes from the function's env (README "Email").
import { nodemailer } from './deps.ts';

const env = (name: string) => Deno.env.get(name) || undefined;

/** Where the deep links point: the app's public origin. */
export const appUrl = () => (env('APP_URL') ?? 'http://localhost:3000').replace(/\/+$/, '');
/** The sender of every notification. */
export const fromAddress = () => env('SMTP_FROM') ?? 'Tend <support@tend.localhost>';
/** The domain whose mail the provider posts to inbound-email: reply+<token>@…, <workspace slug>@…. */
export const inboundDomain = () =>
  (env('INBOUND_EMAIL_DOMAIN') ?? /@([^>\s]+)>?\s*$/.exec(fromAddress())?.[1] ?? 'tend.localhost').toLowerCase();

// ---------------------------------------------------------------------------------------------
// Tokens: an id and an HMAC of it, so a Reply-To (or unsubscribe) address can't be made up.
const secret = () => env('EMAIL_TOKEN_SECRET') ?? env('SUPABASE_SERVICE_ROLE_KEY') ?? '';
let key: Promise<CryptoKey> | undefined;

async function sign(kind: string, id: string): Promise<string> {
  key ??= crypto.subtle.importKey('raw', new TextEncoder().encode(secret()), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await key, new TextEncoder().encode(`${kind}:${id}`)));
  return [...mac.slice(0, 10)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const compact = (uuid: string) => uuid.replace(/-/g, '');
const expand = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** reply+<ticket>.<mac>@domain: a reply to it goes to that ticket's thread. */
export async function replyAddress(ticketId: string): Promise<string> {
  return `reply+${compact(ticketId)}.${await sign('reply', ticketId)}@${inboundDomain()}`;
}

/** unsubscribe+<user>.<mac>@domain: mail to it stops a customer's notifications. */
export async function unsubscribeAddress(userId: string): Promise<string> {
  return `unsubscribe+${compact(userId)}.${await sign('unsubscribe', userId)}@${inboundDomain()}`;
}

/** The id an address of this kind carries, if its MAC is right. */
export async function readToken(kind: 'reply' | 'unsubscribe', address: string): Promise<string | null> {
  const m = new RegExp(`^${kind}\\+([0-9a-f]{32})\\.([0-9a-f]{20})@(.+)$`, 'i').exec(address.trim());
  if (!m || m[3].toLowerCase() !== inboundDomain()) return null;
  const id = expand(m[1].toLowerCase());
  return (await sign(kind, id)) === m[2].toLowerCase() ? id : null;
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

function smtp() {
  const port = Number(env('SMTP_PORT') ?? 587);
  const user = env('SMTP_USER');
  transport ??= nodemailer.createTransport({
    host: env('SMTP_HOST') ?? '127.0.0.1',
    port,
    secure: port === 465,
    auth: user ? { user, pass: env('SMTP_PASS') ?? '' } : undefined,
    pool: true,
    maxConnections: 2,
  });
  return transport;
}

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  replyTo?: string;
  headers?: Record<string, string>;
}

/** Sends one email, retrying with back-off (0.25 s, 1 s, 4 s); throws the last error. */
export async function sendEmail(mail: OutgoingEmail, attempts = 4): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await smtp().sendMail({ from: fromAddress(), ...mail });
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 250 * 4 ** (attempt - 1)));
    }
  }
}

// ---------------------------------------------------------------------------------------------
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Plain text as HTML paragraphs. */
export const textToHtml = (text: string) =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
