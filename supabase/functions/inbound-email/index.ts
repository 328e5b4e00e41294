// inbound-email: the webhook an inbound mail provider calls for each email to the inbound domain,
// in Postmark's inbound JSON (From/FromFull, To/ToFull, Cc/CcFull, OriginalRecipient, Subject,
// TextBody, HtmlBody, Headers [{Name, Value}], MessageID, Attachments). Postmark authenticates with
// HTTP basic auth in the webhook URL (https://postmark:<INBOUND_EMAIL_SECRET>@…): anything else is 401.
// The email becomes a reply on its thread (the Reply-To token, else In-Reply-To/References), a
// follow-up request when that thread is closed, or a new request in the workspace whose address it
// was sent to (<slug>@<INBOUND_EMAIL_DOMAIN>). Mail to an unsubscribe address stops notifications.
// What it trusts (docs/decisions/034-inbound-email-trust.md): From names the sender, but a team member
// only when the provider authenticated From's domain (sender-auth.ts), else the mail is refused (403);
// a reply+ address counts only for the recipient it was made for; receive_email decides the rest.
// Its files are stored as web uploads are (attachments.ts); files Tend doesn't take are named in the message.
// The other people it is addressed to (To and Cc, besides Tend's own addresses) follow the ticket, unless
// the workspace turned that off (docs/decisions/064-followers.md). A subject too long for a ticket is cut
// after a whole word, the rest at the top of the message, as the portal does (long-subject.ts).
import { ATTACHMENTS_BUCKET, attachmentTypeOf, safeStorageName } from '../_shared/attachment-rules.ts';
import { ensureUser } from '../_shared/customers.ts';
import {
  fromAddress,
  inboundDomain,
  readForwardAddress,
  readReplyAddress,
  readUnsubscribeAddress,
  referencedMessages,
} from '../_shared/email.ts';
import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_PER_MESSAGE,
  FILE_NAME_MAX_LENGTH,
  MESSAGE_MAX_LENGTH,
} from '../_shared/limits.ts';
import { cutSubject } from '../_shared/long-subject.ts';
import { notAttachedLine, type RefusedFile } from '../_shared/not-attached.ts';
import { admin, json } from '../_shared/platform.ts';
import { htmlToText, stripQuoted } from '../_shared/quoted.ts';
import { senderVerified } from '../_shared/sender-auth.ts';

interface PostmarkAddress {
  Email: string;
  Name?: string;
  MailboxHash?: string;
}

interface PostmarkInbound {
  MessageID: string;
  From?: string;
  FromName?: string;
  FromFull?: PostmarkAddress;
  To?: string;
  ToFull?: PostmarkAddress[];
  CcFull?: PostmarkAddress[];
  OriginalRecipient?: string;
  Subject?: string;
  TextBody?: string;
  HtmlBody?: string;
  StrippedTextReply?: string;
  Headers?: { Name: string; Value: string }[];
  Attachments?: PostmarkAttachment[];
}

interface PostmarkAttachment {
  Name?: string;
  ContentType?: string;
  ContentLength?: number;
  Content?: string;
}

/** The Authentication-Results authserv-ids to believe (INBOUND_AUTHSERV_ID, comma-separated; none by default). */
const trustedAuthservIds = () => (Deno.env.get('INBOUND_AUTHSERV_ID') ?? '').split(',').map((s) => s.trim());

/** Constant-time comparison of the basic-auth password with the shared secret. */
function authorized(req: Request): boolean {
  const secret = Deno.env.get('INBOUND_EMAIL_SECRET');
  const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(req.headers.get('authorization') ?? '');
  if (!secret || !m) return false;
  let given: string;
  try {
    given = atob(m[1]).split(':').slice(1).join(':');
  } catch {
    return false;
  }
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(secret);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i];
  return diff === 0;
}

const header = (mail: PostmarkInbound, name: string) =>
  mail.Headers?.find((h) => h.Name.toLowerCase() === name.toLowerCase())?.Value;

const addressOf = (s: string | undefined) => (/<([^>]+)>/.exec(s ?? '')?.[1] ?? s ?? '').trim().toLowerCase();

/** Whose a recipient's reply+ address is: the ticket's requester, a follower or a member of its workspace, by the MAC. */
async function recipientOf(ticketId: string, isFor: (userId: string) => Promise<boolean>): Promise<string | null> {
  const db = admin();
  const { data: ticket, error } = await db
    .from('tickets')
    .select('requester_id, workspace_id, ticket_followers(user_id)')
    .eq('id', ticketId)
    .maybeSingle();
  if (error) throw error;
  if (!ticket) return null;
  const { data: members, error: e2 } = await db
    .from('memberships')
    .select('user_id')
    .eq('workspace_id', ticket.workspace_id);
  if (e2) throw e2;
  const candidates = [
    ticket.requester_id as string,
    ...(ticket.ticket_followers as { user_id: string }[]).map((f) => f.user_id),
    ...members.map((m) => m.user_id as string),
  ];
  for (const id of candidates) if (await isFor(id)) return id;
  return null;
}

/**
 * The thread the email answers: a reply+ address first (one recipient's: whose it is; an older one of
 * the whole ticket: nobody's in particular), then the messages its headers name (nobody's either).
 */
async function findThread(
  mail: PostmarkInbound,
  recipients: string[],
): Promise<{ ticketId: string; recipientId: string | null } | null> {
  for (const to of recipients) {
    const reply = await readReplyAddress(to);
    if (!reply) continue;
    if (!reply.recipient) return { ticketId: reply.ticketId, recipientId: null };
    const recipientId = await recipientOf(reply.ticketId, reply.recipient.isFor);
    if (recipientId) return { ticketId: reply.ticketId, recipientId };
  }
  const ids = referencedMessages(header(mail, 'References'), header(mail, 'In-Reply-To'));
  if (!ids.length) return null;
  const { data, error } = await admin().from('messages').select('id, ticket_id').in('id', ids);
  if (error) throw error;
  const byId = new Map(data.map((m) => [m.id, m.ticket_id as string]));
  const ticketId = ids.map((id) => byId.get(id)).find(Boolean);
  return ticketId ? { ticketId, recipientId: null } : null;
}

interface File {
  id: string;
  file_name: string;
  storage_name: string;
  size: number;
  mime_type: string;
  bytes: Uint8Array;
}

/** The email's files by the web upload's rules: the first 5 of an allowed type and at most 10 MB are kept. */
async function sortFiles(mail: PostmarkInbound): Promise<{ files: File[]; refused: RefusedFile[] }> {
  const files: File[] = [];
  const refused: RefusedFile[] = [];
  for (const [i, a] of (mail.Attachments ?? []).entries()) {
    // Shown in the message: one line, no control characters.
    const name =
      (a.Name ?? '')
        .replace(/[\u0000-\u001f\u007f]+/g, ' ')
        .trim()
        .slice(0, FILE_NAME_MAX_LENGTH) || '(unnamed)';
    const type = attachmentTypeOf(name);
    const content = (a.Content ?? '').replace(/\s+/g, '');
    // The decoded size, known from the base64 length: a file over the limit is never decoded.
    const size = Math.floor((content.length * 3) / 4) - (content.match(/=*$/)?.[0].length ?? 0);
    let bytes: Uint8Array | null = null;
    if (type && size <= ATTACHMENT_MAX_BYTES) {
      try {
        bytes = Uint8Array.from(atob(content), (c) => c.charCodeAt(0));
      } catch {
        // Not base64: a file that can't be read.
      }
    }
    if (!type) refused.push({ name, why: 'type' });
    else if (size > ATTACHMENT_MAX_BYTES) refused.push({ name, why: 'size' });
    else if (!bytes) refused.push({ name, why: 'unreadable' });
    else if (files.length >= ATTACHMENTS_PER_MESSAGE) refused.push({ name, why: 'count' });
    else
      files.push({
        // From the provider's id: a replay names the same files, so it finds what was stored.
        id: await uuidOf(`${mail.MessageID}/${i}`),
        file_name: name,
        storage_name: safeStorageName(name),
        size: bytes.byteLength,
        mime_type: type,
        bytes,
      });
  }
  return { files, refused };
}

async function uuidOf(text: string): Promise<string> {
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).slice(0, 16);
  h[6] = (h[6] & 0x0f) | 0x50; // version 5 (name-based, here SHA-256)
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = [...h].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Stores each recorded file's bytes at its path; one already there (a replay) is left as it is. */
async function storeFiles(recorded: { id: string; path: string }[], files: File[]): Promise<void> {
  const bucket = admin().storage.from(ATTACHMENTS_BUCKET);
  for (const { id, path } of recorded) {
    const file = files.find((f) => f.id === id);
    if (!file) continue;
    const { error } = await bucket.upload(path, file.bytes, { contentType: file.mime_type, upsert: false });
    // storage-api's "Duplicate": statusCode 409 in the body (the HTTP status is 400 or 409 by version).
    const code = (error as { statusCode?: string } | null)?.statusCode;
    if (error && code !== '409') throw new Error(`storing ${path} failed: ${code} ${error.message}`);
  }
}

Deno.serve(async (req) => {
  if (req.method !== 'POST') return json(405, { error: 'method not allowed' });
  if (!authorized(req))
    return json(401, { error: 'unauthorized' }, { 'WWW-Authenticate': 'Basic realm="inbound-email"' });
  let mail: PostmarkInbound;
  try {
    mail = await req.json();
  } catch {
    return json(400, { error: 'invalid JSON' });
  }
  const from = addressOf(mail.FromFull?.Email ?? mail.From);
  if (typeof mail.MessageID !== 'string' || !mail.MessageID || !from.includes('@'))
    return json(400, { error: 'MessageID and From are required' });

  const recipients = [
    ...(mail.ToFull ?? []).map((a) => a.Email),
    ...(mail.CcFull ?? []).map((a) => a.Email),
    mail.OriginalRecipient ?? '',
    ...(mail.To ?? '').split(',').map(addressOf),
  ]
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean);

  for (const to of recipients) {
    const userId = await readUnsubscribeAddress(to);
    if (!userId) continue;
    const { error } = await admin().from('email_unsubscribes').upsert({ user_id: userId }, { ignoreDuplicates: true });
    if (error) throw error;
    return json(200, { outcome: 'unsubscribed' });
  }

  // An answer to a forward (fwd+ address): an internal note of the sender's on its ticket.
  let forwardId: string | null = null;
  for (const to of recipients) forwardId ??= await readForwardAddress(to);

  const domain = inboundDomain();
  const workspaceSlug = recipients
    .filter((a) => a.endsWith(`@${domain}`))
    .map((a) => a.slice(0, -domain.length - 1))
    .find((local) => !local.includes('+'));
  const thread = await findThread(mail, recipients);
  if (!forwardId && !thread && !workspaceSlug) return json(403, { error: 'not addressed to a workspace or a thread' });

  const text = stripQuoted(mail.TextBody?.trim() ? mail.TextBody : htmlToText(mail.HtmlBody ?? ''));
  const { files, refused } = await sortFiles(mail);
  // Refused files are named on the message's last line, for the team; the requester reads a note instead.
  const note = notAttachedLine(refused);
  // A new request's subject as the portal cuts it; the rest goes at the top of its message (receive_email).
  const subject = cutSubject(subjectOf(mail));
  const room = MESSAGE_MAX_LENGTH - note.length - (subject.rest ? subject.rest.length + 2 : 0);
  const body = (text || (files.length ? '(files only)' : '(no text)')).slice(0, Math.max(room, 0)) + note;
  await ensureUser(from, mail.FromFull?.Name ?? mail.FromName);
  const received = forwardId
    ? admin().rpc('receive_forward_reply', {
        p_provider_message_id: mail.MessageID,
        p_message_id: header(mail, 'Message-ID') ?? null,
        p_forward_id: forwardId,
        p_from: from,
        p_sender_verified: senderVerified(mail.Headers, from, trustedAuthservIds()),
        p_body: body,
        p_attachments: files.map(({ bytes: _, ...row }) => row),
      })
    : receiveEmail(mail, from, workspaceSlug, thread, subject, body, files, copied(recipients, from));
  const { data, error } = await received;
  // People copied who have no account yet: made (as a sender's is), then the same call adds them (and
  // answers as a replay: the first answer is the one to give).
  if (!error && data.cc_unknown?.length) {
    for (const address of data.cc_unknown as string[]) await ensureUser(address, undefined);
    const again = await receiveEmail(mail, from, workspaceSlug, thread, subject, body, files, data.cc_unknown);
    if (again.error) {
      console.error(`adding copied people failed: ${again.error.message}`);
      return json(500, { error: again.error.message });
    }
  }
  if (error) {
    // Postmark stops retrying on 403: mail no workspace takes is not worth another try.
    if (error.message === 'not_found') return json(403, { error: `${error.details} not found` });
    // A member's address in From, not authenticated by the provider: nobody speaks as them.
    if (error.message === 'forbidden') {
      console.warn(`${mail.MessageID}: refused, From ${from} is a team member and not authenticated`);
      return json(403, { error: 'sender not verified' });
    }
    // An answer to a forward of a ticket closed since: nothing to add it to.
    if (error.message === 'ticket_closed') return json(403, { error: 'ticket closed' });
    console.error(`receiving failed: ${error.message}`);
    return json(500, { error: error.message });
  }
  try {
    await storeFiles(data.attachments, files);
  } catch (e) {
    // Postmark retries on a 5xx: the replay stores what is missing.
    console.error((e as Error).message);
    return json(500, { error: 'attachments not stored' });
  }
  if (refused.length) console.log(`${mail.MessageID}: not attached: ${refused.map((f) => f.name).join('; ')}`);
  const { attachments: _, cc_unknown: _cc, ...result } = data;
  return json(200, { ...result, files: files.length, refused: refused.length });
});

const subjectOf = (mail: PostmarkInbound) => (mail.Subject ?? '').replace(/^\s*((re|fwd?|aw|sv):\s*)+/i, '');

/** The other people an email is addressed to: its To and Cc, without the sender and Tend's own addresses. */
function copied(recipients: string[], from: string): string[] {
  const ours = (a: string) => a.endsWith(`@${inboundDomain()}`) || a === addressOf(fromAddress());
  return [...new Set(recipients)].filter((a) => a.includes('@') && a !== from && !ours(a));
}

/** receive_email: a reply on its thread, a follow-up, or a new request (80_email.sql); `cc`: who follows it. */
function receiveEmail(
  mail: PostmarkInbound,
  from: string,
  workspaceSlug: string | undefined,
  thread: { ticketId: string; recipientId: string | null } | null,
  subject: { subject: string; rest: string },
  body: string,
  files: File[],
  cc: string[],
) {
  return admin().rpc('receive_email', {
    p_provider_message_id: mail.MessageID,
    p_message_id: header(mail, 'Message-ID') ?? null,
    p_from: from,
    p_workspace_slug: workspaceSlug ?? null,
    p_ticket_id: thread?.ticketId ?? null,
    p_recipient_id: thread?.recipientId ?? null,
    p_sender_verified: senderVerified(mail.Headers, from, trustedAuthservIds()),
    p_subject: subject.subject,
    p_subject_rest: subject.rest || null,
    p_body: body,
    p_attachments: files.map(({ bytes: _, ...row }) => row),
    p_cc: cc,
  });
}
