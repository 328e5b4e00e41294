// notify: called by the database (through pg_net) for every public reply of the team written through the
// API (trigger messages_notify), every notification a member gets by email each time (private.notify_member
// queues it; one call sends every queued one, {"type":"notifications"}: docs/decisions/101-notification-emails-in-batches.md),
// each member's daily digest (private.send_digests), each solved request's satisfaction survey
// (private.ask_satisfaction), each request acknowledged outside business hours (private.acknowledge_after_hours)
// and every invitation sent or resent (trigger invitations_notify). A team's reply goes to the requester and
// the ticket's followers (docs/decisions/064-followers.md), each with the thread's link and a one-click sign-in
// link of its own. A notification (a customer's new request or reply, an assignment, …) goes to its member;
// a digest lists what waited for them. Notes are never sent. An invitation goes to the invitee, with the link
// to /invite/<token>. A forward (public.forward_ticket) goes to its outside address. Each recipient gets a
// Reply-To of their own. Each (Message-ID, recipient) is claimed in email_deliveries first: a retried call
// sends nothing twice.
import '../_shared/react-production.ts'; // first: before React loads
import { createElement } from 'react';
import { ATTACHMENTS_BUCKET } from '../_shared/attachment-rules.ts';
import { brandOf, senderOf, type EmailSettings } from '../_shared/email-brand.ts';
import { FILE_LINK_DAYS, formatSize, splitFiles } from '../_shared/email-files.ts';
import {
  DigestEmail,
  renderEmail,
  renderThreadEmail,
  SurveyEmail,
  surveyEmailText,
  threadEmailText,
  type EmailFile,
  type EmailMessage,
  type ThreadEmailProps,
} from '../_shared/email-layout.tsx';
import {
  appUrl,
  escapeHtml,
  forwardAddress,
  fromAddress,
  inboundDomain,
  messageIdOf,
  replyAddress,
  sendEmail,
  unsubscribeAddress,
  type OutgoingEmail,
} from '../_shared/email.ts';
import type { FileRef } from '../_shared/markdown.ts';
import { isMarkdownMessage, type MessageBody, messageEmailHtml, messageText } from '../_shared/message-html.ts';
import { splitNotAttached } from '../_shared/not-attached.ts';
import { notificationHeadline, type NotificationKind } from '../_shared/notifications.ts';
import { admin, isServiceRole, json } from '../_shared/platform.ts';
import { fillPlaceholders, placeholderValues } from '../_shared/placeholders.ts';
import { PORTAL_STATUS_LABELS, TEAM_STATUS_LABELS } from '../_shared/status-labels.ts';
import { SURVEY_ANSWERS, SURVEY_DAYS, type SurveyRating } from '../_shared/survey.ts';
import { fileLinkToken } from '../_shared/tokens.ts';

interface Recipient {
  id: string;
  email: string;
}

interface Thread {
  message: { id: string; kind: string; body: string; author_id: string; ticket_id: string; created_at: string };
  ticket: {
    id: string;
    number: number;
    subject: string;
    status: keyof typeof PORTAL_STATUS_LABELS;
    requester_id: string;
    assignee_id: string | null;
  };
  workspace: { id: string; slug: string; name: string; time_zone: string };
  /** Public messages of the ticket, oldest first. */
  replies: { id: string }[];
  /** Its requester and followers: whose messages are shown as written (isMarkdownMessage). */
  customers: string[];
}

/** A ticket's customers: its requester and its followers (docs/decisions/064-followers.md). */
async function customersOf(ticketId: string, requesterId: string): Promise<string[]> {
  const { data, error } = await admin().from('ticket_followers').select('user_id').eq('ticket_id', ticketId);
  if (error) throw error;
  return [requesterId, ...data.map((f) => f.user_id as string)];
}

/** How many earlier public messages an email quotes under the new one. */
const EARLIER_MESSAGES = 5;

async function loadThread(messageId: string): Promise<Thread | null> {
  const db = admin();
  const { data: message, error } = await db
    .from('messages')
    .select('id, kind, body, author_id, ticket_id, created_at')
    .eq('id', messageId)
    .maybeSingle();
  if (error) throw error;
  if (!message) return null;
  // The ticket with its followers, and its public messages, together.
  const [{ data: ticket, error: e2 }, { data: replies, error: e3 }] = await Promise.all([
    db
      .from('tickets')
      .select(
        'id, number, subject, status, requester_id, assignee_id, workspace:workspaces(id, slug, name, time_zone), ticket_followers(user_id)',
      )
      .eq('id', message.ticket_id)
      .single(),
    db
      .from('messages')
      .select('id')
      .eq('ticket_id', message.ticket_id)
      .eq('kind', 'reply')
      .order('created_at')
      .order('id'),
  ]);
  if (e2) throw e2;
  if (e3) throw e3;
  const { workspace, ticket_followers, ...rest } = ticket as unknown as Thread['ticket'] & {
    workspace: Thread['workspace'];
    ticket_followers: { user_id: string }[];
  };
  const customers = [rest.requester_id, ...ticket_followers.map((f) => f.user_id)];
  return { message, ticket: rest, workspace, replies, customers };
}

async function emailOf(userId: string): Promise<string | null> {
  const { data } = await admin().auth.admin.getUserById(userId);
  return data.user?.email ?? null;
}

async function displayName(userId: string): Promise<string> {
  const { data } = await admin().from('profiles').select('display_name').eq('user_id', userId).maybeSingle();
  return data?.display_name || 'Someone';
}

/**
 * A link that signs the customer in and lands on the thread: a token of this email's own, of which the
 * database keeps the hash; the app's /auth/confirm spends it once, within its hours, however many
 * emails or codes come after it (docs/decisions/035-email-sign-in-links.md).
 */
async function signInLink(userId: string, next: string): Promise<{ url: string; hours: number } | null> {
  const token = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  const { data: expires, error } = await admin().rpc('create_email_sign_in_link', {
    p_user_id: userId,
    p_next: next,
    p_token_hash: await sha256Hex(token),
  });
  if (error) {
    console.error(`sign-in link for ${userId} not made: ${error.message}`);
    return null;
  }
  const hours = Math.round((Date.parse(expires as string) - Date.now()) / 3_600_000);
  return { url: `${appUrl()}/auth/confirm?${new URLSearchParams({ link: token, next })}`, hours };
}

/** A workspace's look and sender (email-brand.ts), read once per email. */
async function emailSettings(workspaceId: string): Promise<EmailSettings | null> {
  const { data, error } = await admin()
    .from('workspace_email_settings')
    .select('sender_name, sender_address, accent_color, logo_path, footer, verified_domain')
    .eq('workspace_id', workspaceId)
    .maybeSingle();
  if (error) throw error;
  return data;
}

// A formatter per time zone, made once per worker: making one costs more than the email's other text.
const formats = new Map<string, Intl.DateTimeFormat>();

/** "27 Nov 2026, 13:05" in the workspace's time zone. */
function formatWhen(iso: string, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone });
    formats.set(timeZone, format);
  }
  return format.format(new Date(iso));
}

/** A message as a customer's email shows it: without the line naming a mailed message's refused files (the team's). */
const customerBody = (body: string) => splitNotAttached(body).text;

/** The public messages before `t.message`, newest first, at most EARLIER_MESSAGES, as the email shows them. */
async function earlierMessages(t: Thread): Promise<EmailMessage[]> {
  const { data, error } = await admin()
    .from('messages')
    .select('id, body, author_id, created_at')
    .eq('ticket_id', t.ticket.id)
    .eq('kind', 'reply')
    .lt('created_at', t.message.created_at)
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .limit(EARLIER_MESSAGES);
  if (error) throw error;
  const team = await teamOf(t.workspace.id, [...new Set(data.map((m) => m.author_id))]);
  return Promise.all(
    data.map(async (m) => {
      // Earlier messages' images are named, not shown: the email carries the new message's files only.
      const body: MessageBody = {
        body: customerBody(m.body),
        markdown: isMarkdownMessage(m.author_id, t.customers),
      };
      return {
        author: await displayName(m.author_id),
        when: formatWhen(m.created_at, t.workspace.time_zone),
        html: messageEmailHtml(body),
        text: messageText(body),
        fromTeam: team.has(m.author_id),
      };
    }),
  );
}

/** Which of `userIds` are members of the workspace (the team's side of a conversation). */
async function teamOf(workspaceId: string, userIds: string[]): Promise<Set<string>> {
  if (!userIds.length) return new Set();
  const { data, error } = await admin()
    .from('memberships')
    .select('user_id')
    .eq('workspace_id', workspaceId)
    .in('user_id', userIds);
  if (error) throw error;
  return new Set(data.map((m) => m.user_id as string));
}

/**
 * A reply's files for its email: those that fit (EMAIL_FILES_MAX_BYTES together) go with it, read from
 * storage; the rest as links that work for FILE_LINK_DAYS without signing in (the file-link function).
 * `refs` finds them by name for the body's `attachment:<name>`: an image that goes with the email is
 * shown inline, by its Content-ID (docs/decisions/056-rich-replies-one-sanitiser.md); one that is a
 * link is linked.
 */
async function replyFiles(messageId: string) {
  const db = admin();
  const { data, error } = await db
    .from('attachments')
    .select('id, file_name, size, mime_type, path')
    .eq('message_id', messageId);
  if (error) throw error;
  const { attached, linked } = splitFiles(data);
  const secret = Deno.env.get('EMAIL_TOKEN_SECRET') || Deno.env.get('SUPABASE_SERVICE_ROLE_KEY') || '';
  const expires = new Date(Date.now() + FILE_LINK_DAYS * 86_400_000);
  const base = `${(Deno.env.get('SUPABASE_URL') ?? '').replace(/\/+$/, '')}/functions/v1/file-link`;
  const [contents, links] = await Promise.all([
    Promise.all(
      attached.map(async (f) => {
        const { data: blob, error: e } = await db.storage.from(ATTACHMENTS_BUCKET).download(f.path);
        if (e || !blob) throw new Error(`file ${f.id} unreadable: ${e?.message}`);
        return new Uint8Array(await blob.arrayBuffer());
      }),
    ),
    Promise.all(linked.map(async (f) => `${base}?t=${await fileLinkToken(secret, f.id, expires)}`)),
  ]);
  const inline = new Set<string>();
  const cidOf = (id: string) => `${id}@${inboundDomain()}`;
  const refs = (name: string): FileRef | null => {
    const a = attached.find((f) => f.file_name === name);
    if (a && /^image\//.test(a.mime_type)) {
      inline.add(a.id);
      return { src: `cid:${cidOf(a.id)}` };
    }
    const at = linked.findIndex((f) => f.file_name === name);
    // A file that goes with the email is named in the text; one too big is its link.
    return at >= 0 ? { href: links[at] } : a ? {} : null;
  };
  const shown: EmailFile[] = [
    ...attached.map((f) => ({ name: f.file_name, size: formatSize(f.size) })),
    ...linked.map((f, i) => ({ name: f.file_name, size: formatSize(f.size), url: links[i] })),
  ];
  /** The files for nodemailer, once the body was rendered with `refs` (which marks the inline ones). */
  const attachments = () =>
    attached.map((f, i) => ({
      filename: f.file_name,
      content: contents[i],
      contentType: f.mime_type,
      ...(inline.has(f.id) ? { cid: cidOf(f.id) } : {}),
    }));
  return { attachments, shown, refs };
}

/** What every recipient's email of one message shares, read once: the author, the look, the thread, the files. */
async function messageParts(t: Thread) {
  const [who, settings, earlier, files] = await Promise.all([
    displayName(t.message.author_id),
    emailSettings(t.workspace.id),
    earlierMessages(t),
    replyFiles(t.message.id),
  ]);
  return { who, settings, earlier, files };
}

/** The team's reply to the requester or a follower: branded, the reply on top, then the conversation so far. */
async function customerEmail(
  t: Thread,
  to: Recipient,
  parts: Awaited<ReturnType<typeof messageParts>>,
): Promise<OutgoingEmail> {
  const follower = to.id !== t.ticket.requester_id;
  const path = `/support/${t.workspace.slug}/requests/${t.ticket.number}`;
  const threadUrl = `${appUrl()}${path}`;
  const { who, settings, earlier, files } = parts;
  const [signIn, unsubscribe, replyTo] = await Promise.all([
    signInLink(to.id, path),
    unsubscribeAddress(to.id),
    replyAddress(t.ticket.id, to.id),
  ]);
  const brand = brandOf(t.workspace.name, settings, Deno.env.get('SUPABASE_URL') ?? '');
  const body: MessageBody = {
    body: customerBody(t.message.body),
    markdown: isMarkdownMessage(t.message.author_id, t.customers),
    files: files.refs,
  };
  // The first message of a conversation the team started ("New conversation") opens it.
  const opens = t.replies[0]?.id === t.message.id;
  const why = follower ? `you follow request #${t.ticket.number} of ${brand.name}` : `you wrote to ${brand.name}`;
  const fine = `You get this email because ${why}. Reply "unsubscribe" to ${unsubscribe} to stop these emails.`;
  const props: ThreadEmailProps & { fine: string } = {
    brand,
    heading: opens ? `${who} wrote to you` : `${who} replied to ${follower ? 'a request you follow' : 'your request'}`,
    ticket: { number: t.ticket.number, subject: t.ticket.subject, status: PORTAL_STATUS_LABELS[t.ticket.status] },
    message: {
      author: who,
      when: formatWhen(t.message.created_at, t.workspace.time_zone),
      html: messageEmailHtml(body),
      text: messageText(body),
      fromTeam: true,
    },
    files: files.shown,
    filesNote: files.shown.some((f) => f.url)
      ? `Files too big to go with an email are links; each works for ${FILE_LINK_DAYS} days.`
      : undefined,
    earlier,
    button: {
      label: 'View the conversation',
      url: signIn?.url ?? threadUrl,
      note: signIn
        ? `The button signs you in, once, within ${signIn.hours} hours. The conversation is always at`
        : undefined,
      link: signIn ? threadUrl : undefined,
    },
    answer: 'Reply to this email to answer.',
    fine,
  };
  return {
    from: senderOf(t.workspace.name, settings, fromAddress()),
    to: to.email,
    subject: `${opens ? '' : 'Re: '}${t.ticket.subject} [#${t.ticket.number}]`,
    text: threadEmailText(props),
    html: renderThreadEmail(props),
    ...threading(t),
    replyTo,
    headers: { 'List-Unsubscribe': `<mailto:${unsubscribe}?subject=unsubscribe>` },
    attachments: files.attachments(),
  };
}

interface Notification {
  id: string;
  kind: NotificationKind;
  recipient_id: string;
  actor_id: string | null;
  message_id: string | null;
  email: 'each' | 'digest' | 'off';
  created_at: string;
  ticket: {
    id: string;
    number: number;
    subject: string;
    created_at: string;
    status: keyof typeof TEAM_STATUS_LABELS;
    requester_id: string;
  } | null;
  workspace: { id: string; slug: string; name: string; time_zone: string };
}

/** What a notification says, in a line (the bell's wording): a request made in the same transaction is new. */
const headline = (n: Notification, actor: string) =>
  notificationHeadline(n.kind, actor, n.ticket, n.created_at === n.ticket?.created_at);

/** A member's notifications of a workspace that wait for their digest, oldest first. */
async function loadDigest(workspaceId: string, recipientId: string) {
  const { data, error } = await admin()
    .from('notifications')
    .select(
      'id, kind, recipient_id, actor_id, message_id, email, created_at, ticket:tickets(id, number, subject, created_at, status, requester_id), workspace:workspaces(id, slug, name, time_zone)',
    )
    .eq('workspace_id', workspaceId)
    .eq('recipient_id', recipientId)
    .eq('email', 'digest')
    .is('emailed_at', null)
    .order('created_at')
    .order('id')
    .limit(200);
  if (error) throw error;
  return data as unknown as Notification[];
}

/** Besides the notification, what its email shows, and its claim (public.notification_email, 80_email.sql). */
interface NotificationToEmail extends Notification {
  recipient_email: string | null;
  actor: { display_name: string } | null;
  message: {
    id: string;
    body: string;
    author_id: string;
    created_at: string;
    author: { display_name: string } | null;
  } | null;
  ticket:
    | (NonNullable<Notification['ticket']> & { ticket_followers: { user_id: string }[]; replies: { id: string }[] })
    | null;
  workspace: Notification['workspace'] & { workspace_email_settings: EmailSettings | null };
  /** Whether this call may send it (claim_email_delivery's answer); absent when it is not to be emailed now. */
  claimed?: boolean;
}

/** One notification with everything its email needs, its delivery claimed in the same call; null if it is gone. */
async function claimNotificationEmail(id: string): Promise<NotificationToEmail | null> {
  const { data, error } = await admin().rpc('notification_email', {
    p_notification_id: id,
    p_message_id: notificationMessageId(id),
  });
  if (error) throw error;
  return data as NotificationToEmail | null;
}

/** A profile's name as emails show it (displayName's words for a missing one). */
const nameOf = (profile: { display_name: string } | null) => profile?.display_name || 'Someone';

/**
 * The email of one notification, in the workspace's look (046) like its replies: what happened, the
 * message if there is one (rendered as the thread shows it), the button to the ticket.
 */
function notificationEmail(n: NotificationToEmail, to: Recipient, replyTo: string): OutgoingEmail {
  const ticket = n.ticket!;
  const ticketUrl = `${appUrl()}/w/${n.workspace.slug}/tickets/${ticket.number}`;
  const settingsUrl = `${appUrl()}/account#notifications`;
  const actor = n.actor_id ? nameOf(n.actor) : 'Tend';
  const settings = n.workspace.workspace_email_settings;
  const customers = [ticket.requester_id, ...ticket.ticket_followers.map((f) => f.user_id)];
  const replies = ticket.replies;
  const isNew = n.kind === 'new_request' && n.created_at === ticket.created_at;
  const line = `${headline(n, actor)} in ${n.workspace.name}`;
  const m = n.message;
  const body: MessageBody | null = m ? { body: m.body, markdown: isMarkdownMessage(m.author_id, customers) } : null;
  const props: ThreadEmailProps & { fine: string } = {
    brand: brandOf(n.workspace.name, settings, Deno.env.get('SUPABASE_URL') ?? ''),
    heading: line,
    ticket: { number: ticket.number, subject: ticket.subject, status: TEAM_STATUS_LABELS[ticket.status] },
    message: {
      author: m ? nameOf(m.author) : actor,
      when: formatWhen(m?.created_at ?? n.created_at, n.workspace.time_zone),
      html: body ? messageEmailHtml(body) : `<p style="margin:0 0 12px">${escapeHtml(line)}.</p>`,
      text: body ? messageText(body) : `${line}.`,
      fromTeam: !!m && !customers.includes(m.author_id),
    },
    files: [],
    earlier: [],
    button: { label: 'Open the ticket', url: ticketUrl },
    answer: body ? 'Reply to this email to answer the customer.' : 'Open the ticket to answer.',
    fine: `You get this email because of your notification settings: ${settingsUrl}`,
  };
  // Threaded with the ticket's messages; a message's notification answers it.
  const at = n.message_id ? replies.findIndex((r) => r.id === n.message_id) : -1;
  const earlier = (at < 0 ? replies : replies.slice(0, at + 1)).map((r) => messageIdOf(r.id));
  return {
    from: senderOf(n.workspace.name, settings, fromAddress()),
    to: to.email,
    subject: `${isNew ? '' : 'Re: '}[${n.workspace.name}] #${ticket.number} ${ticket.subject}`,
    text: threadEmailText(props),
    html: renderThreadEmail(props),
    messageId: notificationMessageId(n.id),
    ...(earlier.length
      ? { inReplyTo: earlier.at(-1), references: [...new Set([earlier[0], ...earlier.slice(-9)])] }
      : {}),
    replyTo,
  };
}

const notificationMessageId = (id: string) => `<n.${id}@${inboundDomain()}>`;

async function notifyNotification(notificationId: string) {
  const n = await claimNotificationEmail(notificationId);
  if (!n) return { status: 404, body: { error: 'notification not found' } };
  if (n.email !== 'each' || !n.ticket) return { status: 200, body: { sent: [], skipped: `email ${n.email}` } };
  const email = n.recipient_email;
  const outcome = newOutcome();
  if (!email) return { status: 200, body: outcome };
  const ticketId = n.ticket.id;
  const messageId = notificationMessageId(n.id);
  if (!n.claimed) outcome.already_sent.push(email);
  else {
    const error = await sendClaimed(
      outcome,
      messageId,
      email,
      async () => notificationEmail(n, { id: n.recipient_id, email }, await replyAddress(ticketId, n.recipient_id)),
      // Its delivery sent and the notification emailed, in one call.
      () =>
        admin().rpc('notification_emailed', { p_notification_id: n.id, p_message_id: messageId, p_recipient: email }),
    );
    if (error) throw error;
  }
  if (outcome.already_sent.length) await markEmailed([n.id]);
  return { status: outcome.failed.length ? 502 : 200, body: outcome };
}

/** How many queued notifications one claim takes (a batch claims again while it finds this many). */
const BATCH = 50;
/** How long a batch collects notices before it claims them. */
const BATCH_WINDOW_MS = 200;

/**
 * Every queued notification's email (private.notification_emails; docs/decisions/101-notification-emails-in-batches.md):
 * read and claimed together (public.claim_notification_emails), sent over the pooled SMTP connections, then
 * recorded sent together. What each email is, and the claim per (Message-ID, recipient), are
 * notifyNotification's; a failed one is recorded failed and retried by the retry job, as there.
 */
async function notifyNotifications() {
  const outcome = newOutcome();
  // The notices committed meanwhile join this batch: their transactions see its call still queued and
  // queue none (private.email_notification). A queue worker's batch window; an email waits this long at most.
  await new Promise((r) => setTimeout(r, BATCH_WINDOW_MS));
  for (;;) {
    const { data, error } = await admin().rpc('claim_notification_emails', {
      p_domain: inboundDomain(),
      p_limit: BATCH,
    });
    if (error) throw error;
    const list = data as NotificationToEmail[];
    const sent = { message_ids: [] as string[], recipients: [] as string[] };
    const emailed: string[] = [];
    await Promise.all(
      list.map(async (n) => {
        const email = n.recipient_email;
        if (n.email !== 'each' || !n.ticket || !email) return;
        if (!n.claimed) {
          outcome.already_sent.push(email);
          emailed.push(n.id);
          return;
        }
        const ticketId = n.ticket.id;
        const messageId = notificationMessageId(n.id);
        await sendClaimed(
          outcome,
          messageId,
          email,
          async () => notificationEmail(n, { id: n.recipient_id, email }, await replyAddress(ticketId, n.recipient_id)),
          async () => {
            sent.message_ids.push(messageId);
            sent.recipients.push(email);
            emailed.push(n.id);
            return { error: null };
          },
        );
      }),
    );
    if (emailed.length) {
      const { error: e2 } = await admin().rpc('notification_emails_sent', {
        p_message_ids: sent.message_ids,
        p_recipients: sent.recipients,
        p_notification_ids: emailed,
      });
      if (e2) throw e2;
    }
    if (list.length < BATCH) break;
  }
  return { status: outcome.failed.length ? 502 : 200, body: outcome };
}

async function markEmailed(ids: string[]) {
  const { error } = await admin().from('notifications').update({ emailed_at: new Date().toISOString() }).in('id', ids);
  if (error) throw error;
}

/** One member's digest for one workspace: every notification that waited for it, oldest first. */
async function notifyDigest(workspaceId: string, recipientId: string) {
  const list = await loadDigest(workspaceId, recipientId);
  if (!list.length) return { status: 200, body: { sent: [], skipped: 'nothing waiting' } };
  const email = await emailOf(recipientId);
  const outcome = newOutcome();
  if (!email) return { status: 200, body: outcome };
  const workspace = list[0].workspace;
  const names = new Map<string, string>();
  for (const id of new Set(list.map((n) => n.actor_id).filter((id): id is string => !!id)))
    names.set(id, await displayName(id));
  const lines = list.map((n) => ({
    line: headline(n, n.actor_id ? names.get(n.actor_id)! : 'Tend'),
    url: n.ticket ? `${appUrl()}/w/${workspace.slug}/tickets/${n.ticket.number}` : `${appUrl()}/notifications`,
  }));
  // One id per set of notifications: a retried call finds the same email sent; new ones make a new email.
  const hash = (await sha256Hex(list.map((n) => n.id).join(','))).slice(0, 16);
  const messageId = `<d.${workspaceId}.${recipientId}.${hash}@${inboundDomain()}>`;
  const count = `${list.length} notification${list.length === 1 ? '' : 's'}`;
  await deliver(outcome, messageId, email, null, async () => ({
    to: email,
    subject: `[${workspace.name}] Your daily digest: ${count}`,
    text: [
      `What happened in ${workspace.name} since your last digest (${count}):`,
      '',
      ...lines.map((l) => `- ${l.line}\n  ${l.url}`),
      '',
      `Choose what you get and how: ${appUrl()}/account#notifications`,
    ].join('\n'),
    // The team's look (046): the digest is the workspace's, like its replies.
    html: renderEmail(
      createElement(DigestEmail, {
        brand: brandOf(workspace.name, await emailSettings(workspaceId), Deno.env.get('SUPABASE_URL') ?? ''),
        heading: `What happened in ${workspace.name} since your last digest (${count})`,
        items: lines,
        settingsUrl: `${appUrl()}/account#notifications`,
      }),
    ),
    messageId,
  }));
  if (outcome.sent.length || outcome.already_sent.length) await markEmailed(list.map((n) => n.id));
  return { status: outcome.failed.length ? 502 : 200, body: outcome };
}

/** Message-ID, and what it answers: the previous public message, and the thread's first. */
function threading(t: Thread) {
  const at = t.replies.findIndex((r) => r.id === t.message.id);
  const earlier = (at < 0 ? t.replies : t.replies.slice(0, at)).map((r) => messageIdOf(r.id));
  return {
    messageId: messageIdOf(t.message.id),
    ...(earlier.length
      ? { inReplyTo: earlier.at(-1), references: [...new Set([earlier[0], ...earlier.slice(-9)])] }
      : {}),
  };
}

/** The team's public reply goes to the requester and the followers (but those who unsubscribed);
 * customers' messages reach the team as notifications instead (private.notify_member). */
async function recipients(t: Thread): Promise<string[] | null> {
  const db = admin();
  const { data: member, error } = await db
    .from('memberships')
    .select('user_id')
    .eq('workspace_id', t.workspace.id)
    .eq('user_id', t.message.author_id)
    .maybeSingle();
  if (error) throw error;
  if (!member || t.message.author_id === t.ticket.requester_id) return null;
  const { data: optedOut, error: e2 } = await db
    .from('email_unsubscribes')
    .select('user_id')
    .in('user_id', t.customers);
  if (e2) throw e2;
  const out = new Set(optedOut.map((u) => u.user_id as string));
  return t.customers.filter((id) => !out.has(id));
}

async function notifyMessage(messageId: string) {
  // With NOTIFY_TIMINGS set (npm run bench:email), one log line per message says when each step ended.
  const marks: Record<string, number> = { start: Date.now() };
  const t = await loadThread(messageId);
  if (!t) return { status: 404, body: { error: 'message not found' } };
  if (t.message.kind !== 'reply') return { status: 200, body: { sent: [], skipped: 'note' } };
  const ids = await recipients(t);
  if (!ids) return { status: 200, body: { sent: [], skipped: 'a customer’s message: the team is notified' } };
  marks.loaded = Date.now();
  const outcome = newOutcome();
  // Read once for all recipients, when the first email is built (a retry that sends nothing reads nothing).
  let parts: ReturnType<typeof messageParts> | undefined;
  await Promise.all(
    ids.map(async (id) => {
      const email = await emailOf(id);
      if (!email) return;
      await deliver(outcome, messageIdOf(t.message.id), email, t.ticket.id, async () => {
        const shared = await (parts ??= messageParts(t));
        marks.read ??= Date.now();
        const built = await customerEmail(t, { id, email }, shared);
        marks.built ??= Date.now();
        return built;
      });
    }),
  );
  marks.sent = Date.now();
  if (Deno.env.get('NOTIFY_TIMINGS')) console.log(`notify timings ${messageId} ${JSON.stringify(marks)}`);
  return { status: outcome.failed.length ? 502 : 200, body: { audience: 'customer', ...outcome } };
}

/**
 * A solved request's satisfaction survey (private.ask_satisfaction) goes to its requester, unless they
 * unsubscribed: the question and three links, each recording its answer without signing in (a token for
 * this one survey, signed by the database). Threaded with the request's messages.
 */
async function notifySurvey(surveyId: string) {
  const db = admin();
  const { data, error } = await db
    .from('csat_surveys')
    .select(
      'id, question, requester_id, expires_at, ticket:tickets(id, number, subject, status, workspace:workspaces(id, slug, name))',
    )
    .eq('id', surveyId)
    .maybeSingle();
  if (error) throw error;
  if (!data) return { status: 404, body: { error: 'survey not found' } };
  const survey = data as unknown as {
    id: string;
    question: string;
    requester_id: string;
    expires_at: string;
    ticket: Thread['ticket'] & { workspace: Thread['workspace'] };
  };
  // Closed (its days are over, or the ticket was merged): nothing to ask any more.
  if (Date.parse(survey.expires_at) <= Date.now()) return { status: 200, body: { ...newOutcome(), skipped: 'closed' } };
  const { ticket } = survey;
  const [{ data: optedOut }, email, { data: token, error: e2 }, { data: replies, error: e3 }] = await Promise.all([
    db.from('email_unsubscribes').select('user_id').eq('user_id', survey.requester_id).maybeSingle(),
    emailOf(survey.requester_id),
    db.rpc('survey_token', { p_survey_id: survey.id }),
    db.from('messages').select('id').eq('ticket_id', ticket.id).eq('kind', 'reply').order('created_at').order('id'),
  ]);
  if (e2) throw e2;
  if (e3) throw e3;
  const outcome = newOutcome();
  if (optedOut || !email || !token) return { status: 200, body: { ...outcome, skipped: 'no recipient' } };
  const page = `${appUrl()}/support/${ticket.workspace.slug}/requests/${ticket.number}/rating`;
  const links = Object.fromEntries(
    SURVEY_ANSWERS.map((a) => [a.rating, `${page}?${new URLSearchParams({ t: token as string, rating: a.rating })}`]),
  ) as Record<SurveyRating, string>;
  const messageId = `<s.${survey.id}@${inboundDomain()}>`;
  const earlier = (replies ?? []).map((r) => messageIdOf(r.id));
  await deliver(outcome, messageId, email, ticket.id, async () => {
    const [settings, unsubscribe, replyTo] = await Promise.all([
      emailSettings(ticket.workspace.id),
      unsubscribeAddress(survey.requester_id),
      replyAddress(ticket.id, survey.requester_id),
    ]);
    const brand = brandOf(ticket.workspace.name, settings, Deno.env.get('SUPABASE_URL') ?? '');
    const props = {
      brand,
      ticket: { number: ticket.number, subject: ticket.subject, status: PORTAL_STATUS_LABELS[ticket.status] },
      question: survey.question,
      links,
      days: SURVEY_DAYS,
      fine: `You get this email because you wrote to ${brand.name}. Reply "unsubscribe" to ${unsubscribe} to stop these emails.`,
    };
    return {
      from: senderOf(ticket.workspace.name, settings, fromAddress()),
      to: email,
      subject: `${survey.question} [#${ticket.number}]`,
      text: surveyEmailText(props),
      html: renderEmail(createElement(SurveyEmail, props)),
      messageId,
      ...(earlier.length
        ? { inReplyTo: earlier.at(-1), references: [...new Set([earlier[0], ...earlier.slice(-9)])] }
        : {}),
      replyTo,
      headers: { 'List-Unsubscribe': `<mailto:${unsubscribe}?subject=unsubscribe>` },
    };
  });
  return { status: outcome.failed.length ? 502 : 200, body: outcome };
}

/** "Monday 30 November 2026, 08:00 (Europe/Berlin time)". */
const formatOpening = (iso: string, timeZone: string) =>
  `${new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone }).format(new Date(iso))} (${timeZone.replaceAll('_', ' ')} time)`;

/**
 * A request that arrived while the team was closed (private.acknowledge_after_hours) is acknowledged to its
 * requester, unless they unsubscribed: the canned reply the admins picked, its placeholders filled, then when
 * the team opens next (public.next_opening at the request's creation), in the team's reply layout.
 */
async function notifyAcknowledgement(ticketId: string) {
  const db = admin();
  const { data, error } = await db
    .from('tickets')
    .select(
      'id, number, subject, status, requester_id, assignee_id, created_at, workspace:workspaces(id, slug, name, time_zone)',
    )
    .eq('id', ticketId)
    .maybeSingle();
  if (error) throw error;
  if (!data) return { status: 404, body: { error: 'ticket not found' } };
  const { workspace, created_at, ...ticket } = data as unknown as Thread['ticket'] & {
    created_at: string;
    workspace: Thread['workspace'];
  };
  const [{ data: chosen, error: e2 }, { data: opens, error: e3 }, { data: optedOut }, email, { data: first }] =
    await Promise.all([
      db
        .from('after_hours_replies')
        .select('reply:canned_replies(body)')
        .eq('workspace_id', workspace.id)
        .maybeSingle(),
      db.rpc('next_opening', { p_workspace_id: workspace.id, p_at: created_at }),
      db.from('email_unsubscribes').select('user_id').eq('user_id', ticket.requester_id).maybeSingle(),
      emailOf(ticket.requester_id),
      db
        .from('messages')
        .select('id')
        .eq('ticket_id', ticket.id)
        .eq('kind', 'reply')
        .order('created_at')
        .order('id')
        .limit(1)
        .maybeSingle(),
    ]);
  if (e2) throw e2;
  if (e3) throw e3;
  const body = (chosen as unknown as { reply: { body: string } | null } | null)?.reply?.body;
  const outcome = newOutcome();
  if (!body || optedOut || !email)
    return { status: 200, body: { ...outcome, skipped: 'no reply chosen or no recipient' } };
  const messageId = `<a.${ticket.id}@${inboundDomain()}>`;
  await deliver(outcome, messageId, email, ticket.id, async () => {
    const path = `/support/${workspace.slug}/requests/${ticket.number}`;
    const threadUrl = `${appUrl()}${path}`;
    const [settings, signIn, requesterName, unsubscribe, replyTo] = await Promise.all([
      emailSettings(workspace.id),
      signInLink(ticket.requester_id, path),
      db.from('profiles').select('display_name').eq('user_id', ticket.requester_id).maybeSingle(),
      unsubscribeAddress(ticket.requester_id),
      replyAddress(ticket.id, ticket.requester_id),
    ]);
    const brand = brandOf(workspace.name, settings, Deno.env.get('SUPABASE_URL') ?? '');
    const filled = fillPlaceholders(
      body,
      placeholderValues({
        requester: { name: requesterName.data?.display_name, email },
        agent: { name: null },
        ticket,
        workspace,
      }),
    );
    const when = opens
      ? `We're closed right now: the team will answer from ${formatOpening(opens as string, workspace.time_zone)}.`
      : "We're closed right now: the team will answer as soon as it is back.";
    // The canned reply is the team's writing: Markdown, as their replies are (message-html.ts).
    const reply: MessageBody = { body: `${filled}\n\n${when}`, markdown: true };
    const props: ThreadEmailProps & { fine: string } = {
      brand,
      heading: 'We got your request',
      ticket: { number: ticket.number, subject: ticket.subject, status: PORTAL_STATUS_LABELS[ticket.status] },
      message: {
        author: brand.name,
        when: formatWhen(new Date().toISOString(), workspace.time_zone),
        html: messageEmailHtml(reply),
        text: messageText(reply),
        fromTeam: true,
      },
      files: [],
      earlier: [],
      button: {
        label: 'View your request',
        url: signIn?.url ?? threadUrl,
        note: signIn
          ? `The button signs you in, once, within ${signIn.hours} hours. Your request is always at`
          : undefined,
        link: signIn ? threadUrl : undefined,
      },
      answer: 'Reply to this email to add to your request.',
      fine: `You get this email because you wrote to ${brand.name}. Reply "unsubscribe" to ${unsubscribe} to stop these emails.`,
    };
    const start = first ? messageIdOf((first as { id: string }).id) : null;
    return {
      from: senderOf(workspace.name, settings, fromAddress()),
      to: email,
      subject: `Re: ${ticket.subject} [#${ticket.number}]`,
      text: threadEmailText(props),
      html: renderThreadEmail(props),
      messageId,
      ...(start ? { inReplyTo: start, references: [start] } : {}),
      replyTo,
      headers: { 'List-Unsubscribe': `<mailto:${unsubscribe}?subject=unsubscribe>` },
    };
  });
  return { status: outcome.failed.length ? 502 : 200, body: outcome };
}

interface Outcome {
  sent: string[];
  already_sent: string[];
  failed: { to: string; error: string }[];
}
const newOutcome = (): Outcome => ({ sent: [], already_sent: [], failed: [] });

/**
 * Sends one email unless this (Message-ID, recipient) was sent or is being sent: claimed in
 * email_deliveries first, then marked sent, or failed with the error (the next call retries it).
 */
async function deliver(
  outcome: Outcome,
  messageId: string,
  email: string,
  ticketId: string | null,
  build: () => Promise<OutgoingEmail>,
): Promise<void> {
  const db = admin();
  const { data: claimed, error } = await db.rpc('claim_email_delivery', {
    p_message_id: messageId,
    p_recipient: email,
    p_ticket_id: ticketId,
  });
  if (error) throw error;
  if (!claimed) return void outcome.already_sent.push(email);
  await sendClaimed(outcome, messageId, email, build, () =>
    db
      .from('email_deliveries')
      .update({ status: 'sent', sent_at: new Date().toISOString(), last_error: null })
      .match({ message_id: messageId, recipient: email }),
  );
}

/**
 * Sends an email this call claimed, then records it sent (`recordSent`, whose error it returns: an email
 * that went is never recorded failed); or records it failed with the error, and the next call retries it.
 */
async function sendClaimed(
  outcome: Outcome,
  messageId: string,
  email: string,
  build: () => Promise<OutgoingEmail>,
  recordSent: () => PromiseLike<{ error: unknown }>,
): Promise<unknown> {
  const db = admin();
  try {
    await sendEmail(await build());
  } catch (e) {
    const message = (e as Error).message ?? String(e);
    console.error(`sending ${messageId} to ${email} failed: ${message}`);
    await db
      .from('email_deliveries')
      .update({ status: 'failed', last_error: message })
      .match({ message_id: messageId, recipient: email });
    outcome.failed.push({ to: email, error: message });
    return null;
  }
  outcome.sent.push(email);
  return (await recordSent()).error;
}

/** How many of a ticket's public messages a forward of the whole conversation carries, newest first. */
const FORWARDED_MESSAGES = 20;

interface Forward {
  id: string;
  message_id: string | null;
  to_address: string;
  note: string;
  created_by: string;
  created_at: string;
  ticket: Thread['ticket'] & { workspace: Thread['workspace'] };
}

/**
 * A forward (88_rich_mail.sql) to its outside address: the agent's note on top, then the message or
 * the conversation (newest first), a single message's files with it. Its Reply-To is the forward's own
 * fwd+ address: the answer comes back into the ticket as an internal note (inbound-email).
 */
async function notifyForward(forwardId: string) {
  const db = admin();
  const { data, error } = await db
    .from('ticket_forwards')
    .select(
      'id, message_id, to_address, note, created_by, created_at, ticket:tickets(id, number, subject, status, requester_id, assignee_id, workspace:workspaces(id, slug, name, time_zone))',
    )
    .eq('id', forwardId)
    .maybeSingle();
  if (error) throw error;
  if (!data) return { status: 404, body: { error: 'forward not found' } };
  const f = data as unknown as Forward;
  const { workspace, ...ticket } = f.ticket;
  const one = f.message_id !== null;
  const query = db
    .from('messages')
    .select('id, body, author_id, created_at')
    .eq('ticket_id', ticket.id)
    .eq('kind', 'reply');
  const [{ data: messages, error: e2 }, who, settings, files, customers] = await Promise.all([
    one
      ? query.eq('id', f.message_id!)
      : query.order('created_at', { ascending: false }).order('id', { ascending: false }).limit(FORWARDED_MESSAGES),
    displayName(f.created_by),
    emailSettings(workspace.id),
    one ? replyFiles(f.message_id!) : Promise.resolve(null),
    customersOf(ticket.id, ticket.requester_id),
  ]);
  if (e2) throw e2;
  const team = await teamOf(workspace.id, [...new Set(messages.map((m) => m.author_id as string))]);
  const forwarded = await Promise.all(
    messages.map(async (m) => {
      const body: MessageBody = {
        body: m.body,
        markdown: isMarkdownMessage(m.author_id, customers),
        files: files?.refs,
      };
      return {
        author: await displayName(m.author_id),
        when: formatWhen(m.created_at, workspace.time_zone),
        html: messageEmailHtml(body),
        text: messageText(body),
        fromTeam: team.has(m.author_id),
      };
    }),
  );
  const brand = brandOf(workspace.name, settings, Deno.env.get('SUPABASE_URL') ?? '');
  const note: MessageBody = { body: f.note || `${who} forwarded this to you.`, markdown: true };
  const props: ThreadEmailProps & { fine: string } = {
    brand,
    heading: `${who} forwarded ${one ? 'a message' : 'a conversation'} to you`,
    ticket: { number: ticket.number, subject: ticket.subject, status: TEAM_STATUS_LABELS[ticket.status] },
    message: {
      author: who,
      when: formatWhen(f.created_at, workspace.time_zone),
      html: messageEmailHtml(note),
      text: messageText(note),
      fromTeam: true,
    },
    files: files?.shown ?? [],
    filesNote: files?.shown.some((x) => x.url)
      ? `Files too big to go with an email are links; each works for ${FILE_LINK_DAYS} days.`
      : undefined,
    earlier: forwarded,
    earlierTitle: one ? 'Forwarded message' : 'Forwarded conversation',
    answer: `Reply to this email to answer ${who}: your reply reaches ${brand.name}’s team only, never the customer.`,
    fine: `${who} of ${brand.name} forwarded this from request #${ticket.number}.`,
  };
  const messageId = `<f.${f.id}@${inboundDomain()}>`;
  const outcome = newOutcome();
  await deliver(outcome, messageId, f.to_address, ticket.id, async () => ({
    from: senderOf(workspace.name, settings, fromAddress()),
    to: f.to_address,
    subject: `Fwd: ${ticket.subject} [#${ticket.number}]`,
    text: threadEmailText(props),
    html: renderThreadEmail(props),
    messageId,
    replyTo: await forwardAddress(f.id),
    attachments: files?.attachments() ?? [],
  }));
  return { status: outcome.failed.length ? 502 : 200, body: outcome };
}

interface Invitation {
  id: string;
  email: string;
  role: 'admin' | 'agent';
  token_hash: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
  invited_by: string | null;
  workspace: { name: string };
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The invitation email: who invites to which workspace, and the link to /invite/<token>. */
async function invitationEmail(inv: Invitation, token: string): Promise<OutgoingEmail> {
  const link = `${appUrl()}/invite/${token}`;
  const who = inv.invited_by ? await displayName(inv.invited_by) : 'An admin';
  const inviter = inv.invited_by ? await emailOf(inv.invited_by) : null;
  const role = inv.role === 'admin' ? 'an admin' : 'an agent';
  const days = Math.max(1, Math.round((Date.parse(inv.expires_at) - Date.now()) / 86_400_000));
  const text = [
    `${who} invited you to join ${inv.workspace.name} on Tend as ${role}.`,
    '',
    `Accept the invitation: ${link}`,
    '',
    `Sign in with this email address (${inv.email}); the link works for ${days} days.`,
    "If you weren't expecting this invitation, you can ignore this email.",
  ].join('\n');
  const html = [
    `<p>${escapeHtml(who)} invited you to join <strong>${escapeHtml(inv.workspace.name)}</strong> on Tend as ${role}.</p>`,
    `<p><a href="${escapeHtml(link)}">Accept the invitation</a></p>`,
    `<p>Sign in with this email address (${escapeHtml(inv.email)}); the link works for ${days} days.</p>`,
    "<p>If you weren't expecting this invitation, you can ignore this email.</p>",
  ].join('\n');
  return {
    to: inv.email,
    subject: `${who} invited you to ${inv.workspace.name} on Tend`,
    text,
    html,
    // One per token: a resend (a new token) is a new email, a retried call is not.
    messageId: `<i.${inv.id}.${inv.token_hash.slice(0, 16)}@${inboundDomain()}>`,
    ...(inviter ? { replyTo: inviter } : {}),
  };
}

async function notifyInvitation(invitationId: string, token: string) {
  const { data, error } = await admin()
    .from('invitations')
    .select('id, email, role, token_hash, expires_at, accepted_at, revoked_at, invited_by, workspace:workspaces(name)')
    .eq('id', invitationId)
    .maybeSingle();
  if (error) throw error;
  if (!data) return { status: 404, body: { error: 'invitation not found' } };
  const inv = data as unknown as Invitation;
  // A newer token was sent since (its own call mails it), or the invitation is done with.
  if ((await sha256Hex(token)) !== inv.token_hash) return { status: 200, body: { sent: [], skipped: 'superseded' } };
  if (inv.accepted_at || inv.revoked_at || Date.parse(inv.expires_at) <= Date.now())
    return { status: 200, body: { sent: [], skipped: 'not pending' } };
  const outcome = newOutcome();
  const mail = await invitationEmail(inv, token);
  await deliver(outcome, mail.messageId, inv.email, null, async () => mail);
  return { status: outcome.failed.length ? 502 : 200, body: outcome };
}

Deno.serve(async (req) => {
  if (req.method !== 'POST') return json(405, { error: 'method not allowed' });
  if (!isServiceRole(req)) return json(401, { error: 'service role required' });
  let payload: Record<string, unknown>;
  try {
    payload = await req.json();
  } catch {
    return json(400, { error: 'invalid JSON' });
  }
  const str = (key: string) => (typeof payload[key] === 'string' ? (payload[key] as string) : null);
  let answer: { status: number; body: unknown } | null = null;
  if (payload.type === 'message' && str('message_id')) answer = await notifyMessage(str('message_id')!);
  else if (payload.type === 'notification' && str('notification_id'))
    answer = await notifyNotification(str('notification_id')!);
  else if (payload.type === 'notifications') answer = await notifyNotifications();
  else if (payload.type === 'digest' && str('workspace_id') && str('recipient_id'))
    answer = await notifyDigest(str('workspace_id')!, str('recipient_id')!);
  else if (payload.type === 'survey' && str('survey_id')) answer = await notifySurvey(str('survey_id')!);
  else if (payload.type === 'acknowledgement' && str('ticket_id'))
    answer = await notifyAcknowledgement(str('ticket_id')!);
  else if (payload.type === 'invitation' && str('invitation_id') && str('token'))
    answer = await notifyInvitation(str('invitation_id')!, str('token')!);
  else if (payload.type === 'forward' && str('forward_id')) answer = await notifyForward(str('forward_id')!);
  if (answer) return json(answer.status, answer.body);
  return json(400, {
    error:
      'expected {"type": "message", "message_id"}, {"type": "notification", "notification_id"}, {"type": "notifications"}, {"type": "digest", "workspace_id", "recipient_id"}, {"type": "survey", "survey_id"}, {"type": "acknowledgement", "ticket_id"}, {"type": "invitation", "invitation_id", "token"} or {"type": "forward", "forward_id"}',
  });
});
