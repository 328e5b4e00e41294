// inbound-email: the webhook an inbound mail provider calls for each email to the inbound domain,
// in Postmark's inbound JSON (From/FromFull, To/ToFull, Cc/CcFull, OriginalRecipient, Subject,
// TextBody, HtmlBody, Headers [{Name, Value}], MessageID, Attachments). Postmark authenticates with
// HTTP basic auth in the webhook URL (https://postmark:<INBOUND_EMAIL_SECRET>@…): anything else is 401.
// The email becomes a reply on its thread (the Reply-To token, else In-Reply-To/References), a
// follow-up request when that thread is closed, or a new request in the workspace whose address it
// was sent to (<slug>@<INBOUND_EMAIL_DOMAIN>). Mail to an unsubscribe address stops notifications.
import { inboundDomain, readToken, referencedMessages } from '../_shared/email.ts';
import { admin, json } from '../_shared/platform.ts';
import { htmlToText, stripQuoted } from '../_shared/quoted.ts';

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
  Attachments?: { Name: string; ContentType: string; ContentLength: number; Content: string }[];
}

const MAX_BODY = 20_000;

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

/** The thread the email answers: our Reply-To token first, then the messages its headers name. */
async function findThread(mail: PostmarkInbound, recipients: string[]): Promise<string | null> {
  for (const to of recipients) {
    const ticketId = await readToken('reply', to);
    if (ticketId) return ticketId;
  }
  const ids = referencedMessages(header(mail, 'References'), header(mail, 'In-Reply-To'));
  if (!ids.length) return null;
  const { data, error } = await admin().from('messages').select('id, ticket_id').in('id', ids);
  if (error) throw error;
  const byId = new Map(data.map((m) => [m.id, m.ticket_id as string]));
  return ids.map((id) => byId.get(id)).find(Boolean) ?? null;
}

/** The sender's user: an unknown address becomes a customer (a confirmed user, as a sign-up makes). */
async function ensureUser(email: string, name: string | undefined): Promise<void> {
  const { error } = await admin().auth.admin.createUser({
    email,
    email_confirm: true,
    user_metadata: name ? { display_name: name.slice(0, 60) } : {},
  });
  if (error && error.code !== 'email_exists') throw error;
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
    const userId = await readToken('unsubscribe', to);
    if (!userId) continue;
    const { error } = await admin().from('email_unsubscribes').upsert({ user_id: userId }, { ignoreDuplicates: true });
    if (error) throw error;
    return json(200, { outcome: 'unsubscribed' });
  }

  const domain = inboundDomain();
  const workspaceSlug = recipients
    .filter((a) => a.endsWith(`@${domain}`))
    .map((a) => a.slice(0, -domain.length - 1))
    .find((local) => !local.includes('+'));
  const ticketId = await findThread(mail, recipients);
  if (!ticketId && !workspaceSlug) return json(403, { error: 'not addressed to a workspace or a thread' });

  const text = stripQuoted(mail.TextBody?.trim() ? mail.TextBody : htmlToText(mail.HtmlBody ?? ''));
  const body = (text || '(no text)').slice(0, MAX_BODY);
  await ensureUser(from, mail.FromFull?.Name ?? mail.FromName);
  const { data, error } = await admin().rpc('receive_email', {
    p_provider_message_id: mail.MessageID,
    p_message_id: header(mail, 'Message-ID') ?? null,
    p_from: from,
    p_workspace_slug: workspaceSlug ?? null,
    p_ticket_id: ticketId,
    p_subject: (mail.Subject ?? '').replace(/^\s*((re|fwd?|aw|sv):\s*)+/i, ''),
    p_body: body,
  });
  if (error) {
    // Postmark stops retrying on 403: mail no workspace takes is not worth another try.
    if (error.message === 'not_found') return json(403, { error: `${error.details} not found` });
    console.error(`receive_email failed: ${error.message}`);
    return json(500, { error: error.message });
  }
  if (mail.Attachments?.length)
    console.log(`${mail.Attachments.length} attachment(s) of ${mail.MessageID} not stored: no attachments table yet`);
  return json(200, data);
});
