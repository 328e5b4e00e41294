// Email both ways on the real stack (issue 17 item 3): the database calls notify through pg_net
// with Vault's project URL and key; notify sends through SMTP to the mail catcher; inbound-email
// takes Postmark's inbound JSON; close-solved runs from pg_cron.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { ACME, PEOPLE, openTicket, startDbStack, type DbStack, type Person, userJwt } from '../support/db.ts';
import { waitFor } from '../../scripts/lib/wait.ts';
import { idToken } from '../../supabase/functions/_shared/tokens.ts';

const SECRET = 'inbound-test-secret';
const APP_URL = 'http://localhost:3999';
const DOMAIN = 'tend.localhost';
let db: DbStack;
let envDir: string;
let envFile: string;
// The inbound function believes Authentication-Results from this server only (INBOUND_AUTHSERV_ID).
const AUTHSERV = 'mx.inbound.test';
const baseEnv = `INBOUND_EMAIL_SECRET=${SECRET}\nAPP_URL=${APP_URL}\nINBOUND_EMAIL_DOMAIN=${DOMAIN}\nINBOUND_AUTHSERV_ID=${AUTHSERV}\n`;

interface Mail {
  ID: string;
  From: { Name: string; Address: string };
  Subject: string;
  Text: string;
  HTML: string;
  MessageID: string;
  ReplyTo: { Address: string }[];
  headers: Record<string, string[]>;
}

/** The mails to `email` once there are `n` of them, newest first, with their headers. */
async function mailsTo(email: string, n = 1): Promise<Mail[]> {
  const list = await waitFor(`${n} email(s) to ${email}`, async () => {
    const found = await messagesTo(db.stack.mailUrl, email, { notifications: true });
    return found.length >= n && found;
  });
  return Promise.all(
    list.map(async ({ ID }) => {
      const m = await (await fetch(`${db.stack.mailUrl}/api/v1/message/${ID}`)).json();
      const headers = await (await fetch(`${db.stack.mailUrl}/api/v1/message/${ID}/headers`)).json();
      return { ...m, headers };
    }),
  );
}

/** SQL as role postgres (migrations, the SQL editor). */
async function asPostgres(text: string, params?: unknown[]) {
  const c = new pg.Client({ connectionString: db.stack.dbUrl });
  await c.connect();
  try {
    return await c.query(text, params);
  } finally {
    await c.end();
  }
}

/** The newest mail to `email` whose subject contains `subject`, once it has come. */
const mailAbout = (email: string, subject: string) =>
  waitFor(`an email to ${email} about "${subject}"`, async () => {
    const all = await messagesTo(db.stack.mailUrl, email, { notifications: true });
    return (
      all.some((m) => m.Subject.includes(subject)) && (await mailsTo(email)).find((m) => m.Subject.includes(subject))
    );
  });

const notify = (body: unknown, key = db.stack.serviceRoleKey) =>
  fetch(`${db.stack.apiUrl}/functions/v1/notify`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

const basic = (password: string) => `Basic ${btoa(`postmark:${password}`)}`;
const inbound = (mail: Record<string, unknown>, auth: string | null = basic(SECRET)) =>
  fetch(`${db.stack.apiUrl}/functions/v1/inbound-email`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: auth } : {}) },
    body: JSON.stringify(mail),
  });

/** A Postmark inbound payload (postmarkapp.com/developer/webhooks/inbound-webhook). */
function postmark(from: string, to: string, extra: Record<string, unknown> = {}) {
  return {
    MessageID: crypto.randomUUID(),
    From: from,
    FromName: 'Pat Sender',
    FromFull: { Email: from, Name: 'Pat Sender', MailboxHash: '' },
    To: to,
    ToFull: [{ Email: to, Name: '', MailboxHash: '' }],
    OriginalRecipient: to,
    Subject: 'Re: Help',
    TextBody: 'Thanks!',
    HtmlBody: '',
    Headers: [],
    Attachments: [],
    ...extra,
  };
}

async function agentReply(ticketId: string, body: string, kind = 'reply') {
  const c = await db.as('acmeAgent');
  const { data, error } = await c.rpc('post_message', { p_ticket_id: ticketId, p_body: body, p_kind: kind });
  if (error) throw new Error(`post_message: ${error.message}`);
  return data as { id: string };
}

beforeAll(async () => {
  envDir = mkdtempSync(path.join(os.tmpdir(), 'tend-email-env-'));
  envFile = path.join(envDir, '.env');
  writeFileSync(envFile, baseEnv);
  db = await startDbStack({ functionsEnvFile: envFile });
}, 120_000);
afterAll(async () => {
  await db?.teardown();
  rmSync(envDir, { recursive: true, force: true });
});

describe('Vault', () => {
  it('holds the project URL and service key the stack wrote; postgres reads them, API roles cannot', async () => {
    const { rows } = await asPostgres('select name, decrypted_secret from vault.decrypted_secrets order by name');
    expect(rows).toEqual([
      { name: 'project_url', decrypted_secret: db.stack.apiUrl },
      { name: 'service_role_key', decrypted_secret: db.stack.serviceRoleKey },
    ]);
    const id = (await asPostgres(`select vault.create_secret('s3cret', 'extra', 'a test') as id`)).rows[0].id;
    const read = await asPostgres('select decrypted_secret from vault.decrypted_secrets where id = $1', [id]);
    expect(read.rows[0].decrypted_secret).toBe('s3cret');
    for (const role of ['anon', 'authenticated', 'service_role']) {
      const { rows: can } = await db.sql(
        `select has_schema_privilege($1, 'vault', 'usage') as schema, has_function_privilege($1, 'vault.create_secret(text, text, text, uuid)', 'execute') as fn`,
        [role],
      );
      expect(can[0]).toEqual({ schema: false, fn: false });
    }
  });
});

describe('notify', () => {
  it('mails an agent’s public reply to the requester: text, deep link, sign-in link, threading headers', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Mail me back');
    const m = await agentReply(t.id, 'We replaced the toner.\n\nAnything else?');
    const mail = await mailAbout(PEOPLE.acmeCustomer.email, 'Mail me back');
    expect(mail.Subject).toBe(`Re: Mail me back [#${t.number}]`);
    expect(mail.Text).toContain('We replaced the toner.');
    expect(mail.Text).toContain(`${APP_URL}/support/acme/requests/${t.number}`);
    // A one-click sign-in of this email's own (the app's /auth/confirm spends it): the database keeps
    // its token's hash, for this customer and this thread, for 24 hours (email.spec.ts signs in with it).
    const signIn = /(http:\/\/localhost:3999\/auth\/confirm\?\S+)/.exec(mail.Text)?.[1];
    expect(signIn).toBeTruthy();
    const link = new URL(signIn!);
    expect(link.searchParams.get('link')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(link.searchParams.get('next')).toBe(`/support/acme/requests/${t.number}`);
    expect(mail.Text).toContain('The button signs you in, once, within 24 hours.');
    const { rows: stored } = await db.sql(
      `select user_id, next, round(extract(epoch from expires_at - created_at) / 3600) as hours, used_at
         from email_sign_in_links where token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')`,
      [link.searchParams.get('link')],
    );
    expect(stored).toEqual([
      { user_id: PEOPLE.acmeCustomer.id, next: `/support/acme/requests/${t.number}`, hours: '24', used_at: null },
    ]);
    expect(mail.HTML).toContain('We replaced the toner.');
    expect(mail.HTML).toContain(`href="${APP_URL}/support/acme/requests/${t.number}"`);
    expect(mail.MessageID).toBe(`m.${m.id}@${DOMAIN}`);
    const first = (await db.sql(`select id from messages where ticket_id = $1 order by created_at limit 1`, [t.id]))
      .rows[0].id;
    expect(mail.headers['In-Reply-To']).toEqual([`<m.${first}@${DOMAIN}>`]);
    expect(mail.headers.References?.[0]).toContain(`<m.${first}@${DOMAIN}>`);
    // The customer's own Reply-To: the ticket, the first 8 hex of her id, a MAC; 64 characters before the @.
    const replyTo = mail.ReplyTo[0].Address;
    expect(replyTo).toMatch(
      new RegExp(
        `^reply\\+${t.id.replace(/-/g, '')}\\.${PEOPLE.acmeCustomer.id.slice(0, 8)}\\.[0-9a-f]{16}@${DOMAIN}$`,
      ),
    );
    expect(replyTo.split('@')[0]).toHaveLength(64);
    expect(mail.headers['List-Unsubscribe']?.[0]).toMatch(
      /^<mailto:unsubscribe\+[0-9a-f]{32}\.[0-9a-f]{20}@tend\.localhost/,
    );
    const delivery = await db.sql('select status, attempts from email_deliveries where message_id = $1', [
      `<m.${m.id}@${DOMAIN}>`,
    ]);
    expect(delivery.rows).toEqual([{ status: 'sent', attempts: 1 }]);
  });

  it('never mails a note: the trigger skips it and notify refuses it', async () => {
    const t = await openTicket(db, 'acmeCustomer2', 'Secret stuff');
    const note = await agentReply(t.id, 'INTERNAL: customer is difficult', 'note');
    const queued = await db.sql(`select count(*)::int as n from net._http_response r where r.content like $1`, [
      `%${note.id}%`,
    ]);
    expect(queued.rows[0].n).toBe(0);
    const res = await notify({ type: 'message', message_id: note.id });
    expect(await res.json()).toEqual({ sent: [], skipped: 'note' });
    // A reply after it arrives alone: the note never does.
    await agentReply(t.id, 'Public answer');
    // Counting mails first would race earlier tests' mails still on their way: wait for the answer's own.
    const mails = await waitFor('the public answer mailed', async () => {
      const all = await mailsTo(PEOPLE.acmeCustomer2.email);
      return all.some((m) => m.Text.includes('Public answer')) && all;
    });
    for (const mail of mails) expect(mail.Text).not.toContain('INTERNAL');
  });

  it('sends a customer’s message to no one as a message email: the team hears of it through notifications', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Team please look');
    const { rows } = await db.sql(`select id from messages where ticket_id = $1`, [t.id]);
    const res = await notify({ type: 'message', message_id: rows[0].id });
    expect(await res.json()).toEqual({ sent: [], skipped: 'a customer’s message: the team is notified' });
    // The trigger didn't call notify for it either (nothing queued or sent for its Message-ID).
    const deliveries = await db.sql('select recipient from email_deliveries where message_id = $1', [
      `<m.${rows[0].id}@${DOMAIN}>`,
    ]);
    expect(deliveries.rows).toEqual([]);
  });

  it('is idempotent by message id: a retried call sends nothing twice', async () => {
    const t = await openTicket(db, 'acmeCustomer2', 'Only once');
    const m = await agentReply(t.id, 'Exactly once');
    const countOnce = async () =>
      (await mailsTo(PEOPLE.acmeCustomer2.email)).filter((x) => x.Text.includes('Exactly once')).length;
    await waitFor('the first email', async () => (await countOnce()) === 1);
    const again = await notify({ type: 'message', message_id: m.id });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ sent: [], already_sent: [PEOPLE.acmeCustomer2.email] });
    expect(await countOnce()).toBe(1);
  });

  it('answers 401 to callers without the service role', async () => {
    const res = await notify({ type: 'message', message_id: crypto.randomUUID() }, db.stack.anonKey);
    expect(res.status).toBe(401);
  });
});

describe('invitation email', () => {
  const sha256 = async (s: string) =>
    Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s))).toString('hex');
  const newToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const invitationMails = async (email: string) =>
    (await messagesTo(db.stack.mailUrl, email, { notifications: true })).filter((m) => m.Subject.includes('invited'));

  it('mails the invitee a link to /invite/<token> through notify; a resend mails the new link, a retried call nothing', async () => {
    const email = `invitee-${Date.now()}@example.test`;
    const admin = await db.as('acmeAdmin');
    const token = newToken();
    const { data, error } = await admin
      .from('invitations')
      .insert({
        workspace_id: ACME,
        email,
        role: 'agent',
        token_hash: await sha256(token),
        invited_by: PEOPLE.acmeAdmin.id,
      })
      .select('id')
      .setHeader('X-Invitation-Token', token)
      .single();
    expect(error).toBeNull();
    const [mail] = await mailsTo(email);
    expect(mail.Subject).toMatch(/ invited you to Acme Support on Tend$/);
    expect(mail.Text).toContain(`Accept the invitation: ${APP_URL}/invite/${token}`);
    expect(mail.Text).toContain('as an agent');
    expect(mail.HTML).toContain(`href="${APP_URL}/invite/${token}"`);
    expect(mail.ReplyTo[0].Address).toBe(PEOPLE.acmeAdmin.email);
    expect(mail.MessageID).toMatch(new RegExp(`^i\\.${data!.id}\\.[0-9a-f]{16}@${DOMAIN}$`));

    // The same delivery again (a retried webhook): already sent, nothing new.
    const again = await notify({ type: 'invitation', invitation_id: data!.id, token });
    expect(await again.json()).toEqual({ sent: [], already_sent: [email], failed: [] });

    // A resend is a new token: a new email with the new link; the old token's call is superseded.
    const second = newToken();
    const resent = await admin
      .from('invitations')
      .update({ token_hash: await sha256(second) })
      .eq('id', data!.id)
      .select('id')
      .setHeader('X-Invitation-Token', second);
    expect(resent.data).toHaveLength(1);
    const mails = await mailsTo(email, 2);
    expect(mails[0].Text).toContain(`${APP_URL}/invite/${second}`);
    expect(await (await notify({ type: 'invitation', invitation_id: data!.id, token })).json()).toEqual({
      sent: [],
      skipped: 'superseded',
    });
    expect(await invitationMails(email)).toHaveLength(2);
  });

  it('refuses a sixth invitation email to one address within the hour (too_many_attempts), writing nothing', async () => {
    const email = `often-${Date.now()}@example.test`;
    const admin = await db.as('acmeAdmin');
    const first = newToken();
    const { data } = await admin
      .from('invitations')
      .insert({ workspace_id: ACME, email, token_hash: await sha256(first), invited_by: PEOPLE.acmeAdmin.id })
      .select('id')
      .setHeader('X-Invitation-Token', first)
      .single();
    const resend = async () => {
      const token = newToken();
      return admin
        .from('invitations')
        .update({ token_hash: await sha256(token) })
        .eq('id', data!.id)
        .select('token_hash')
        .setHeader('X-Invitation-Token', token);
    };
    // Each email sent before the next resend (a resend before it would supersede it).
    for (let n = 1; n <= 5; n++) {
      if (n > 1) expect((await resend()).error).toBeNull();
      await waitFor(`invitation email ${n}`, async () => (await invitationMails(email)).length === n);
    }
    const before = (await db.sql('select token_hash from invitations where id = $1', [data!.id])).rows[0];
    const refused = await resend();
    expect(refused.error).toMatchObject({ code: 'P0001', message: 'too_many_attempts' });
    expect((await db.sql('select token_hash from invitations where id = $1', [data!.id])).rows[0]).toEqual(before);
  });

  it('counts each invitation and resend as it is written: quick or parallel, the sixth to one address is refused with the wait', async () => {
    const admin = await db.as('acmeAdmin');
    const inviteNew = async (email: string) => {
      const token = newToken();
      return admin
        .from('invitations')
        .insert({ workspace_id: ACME, email, token_hash: await sha256(token), invited_by: PEOPLE.acmeAdmin.id })
        .select('id')
        .setHeader('X-Invitation-Token', token)
        .single();
    };
    const resend = async (id: string) => {
      const token = newToken();
      return admin
        .from('invitations')
        .update({ token_hash: await sha256(token) })
        .eq('id', id)
        .select('id')
        .setHeader('X-Invitation-Token', token);
    };

    // One after the other, without waiting for the emails: the invitation and four resends, then refused.
    const quick = `quick-${Date.now()}@example.test`;
    const { data, error } = await inviteNew(quick);
    expect(error).toBeNull();
    for (let n = 2; n <= 5; n++) expect((await resend(data!.id)).error, `write ${n}`).toBeNull();
    const refused = await resend(data!.id);
    expect(refused.error).toMatchObject({ code: 'P0001', message: 'too_many_attempts', details: 'invitation emails' });
    // The hint is the wait in seconds: the first of the five leaves the hour in about an hour.
    expect(Number(refused.error!.hint)).toBeGreaterThan(3500);
    expect(Number(refused.error!.hint)).toBeLessThanOrEqual(3600);

    // All at once: an invitation, then seven resends in parallel; four pass, three are refused.
    const parallel = `parallel-${Date.now()}@example.test`;
    const first = await inviteNew(parallel);
    const results = await Promise.all(Array.from({ length: 7 }, () => resend(first.data!.id)));
    expect(results.filter((r) => !r.error)).toHaveLength(4);
    expect(results.filter((r) => r.error?.message === 'too_many_attempts')).toHaveLength(3);
    const { rows } = await db.sql('select count(*)::int as n from invitation_sends where email = $1', [parallel]);
    expect(rows[0].n).toBe(5);
  });

  it('refuses to invite someone who is already a member (already_member): nothing written, nothing mailed', async () => {
    const admin = await db.as('acmeAdmin');
    const token = newToken();
    const { error } = await admin
      .from('invitations')
      .insert({
        workspace_id: ACME,
        email: PEOPLE.acmeAgent.email.toUpperCase(),
        token_hash: await sha256(token),
        invited_by: PEOPLE.acmeAdmin.id,
      })
      .setHeader('X-Invitation-Token', token);
    expect(error).toMatchObject({ code: 'P0001', message: 'already_member' });
    const { rows } = await db.sql(
      `select (select count(*)::int from invitations where token_hash = $1) as invitations,
              (select count(*)::int from invitation_sends where email = $2) as counted`,
      [await sha256(token), PEOPLE.acmeAgent.email],
    );
    expect(rows[0]).toEqual({ invitations: 0, counted: 0 });
    await waitFor('the queue to drain', async () => {
      const { rows: queued } = await db.sql('select count(*)::int as n from net.http_request_queue');
      return queued[0].n === 0;
    });
    expect(await invitationMails(PEOPLE.acmeAgent.email)).toHaveLength(0);
  });

  it('sends nothing for a write without the token, or with a token that is not the row’s', async () => {
    const email = `silent-${Date.now()}@example.test`;
    const admin = await db.as('acmeAdmin');
    const token = newToken();
    const insert = (header?: string) => {
      const q = admin
        .from('invitations')
        .insert({
          workspace_id: ACME,
          email,
          token_hash: crypto.randomUUID().replace(/-/g, '').repeat(2),
          invited_by: PEOPLE.acmeAdmin.id,
        })
        .select('id');
      return header ? q.setHeader('X-Invitation-Token', header) : q;
    };
    expect((await insert()).error).toBeNull();
    expect((await insert(token)).error).toBeNull();
    // Every queued request is answered, and none was for these invitations.
    await waitFor('the queue to drain', async () => {
      const { rows } = await db.sql('select count(*)::int as n from net.http_request_queue');
      return rows[0].n === 0;
    });
    expect(await invitationMails(email)).toHaveLength(0);
    const { rows } = await db.sql('select count(*)::int as n from email_deliveries where recipient = $1', [email]);
    expect(rows[0].n).toBe(0);
  });
});

describe('inbound-email', () => {
  it('refuses unsigned and forged calls with 401', async () => {
    const mail = postmark(PEOPLE.acmeCustomer.email, `acme@${DOMAIN}`);
    expect((await inbound(mail, null)).status).toBe(401);
    expect((await inbound(mail, basic('wrong'))).status).toBe(401);
    expect((await inbound(mail, `Bearer ${db.stack.serviceRoleKey}`)).status).toBe(401);
    const made = await db.sql('select count(*)::int as n from inbound_emails where provider_message_id = $1', [
      mail.MessageID,
    ]);
    expect(made.rows[0].n).toBe(0);
  });

  it('turns a reply to the Reply-To address into a reply on that thread, quoted history stripped; a replay adds nothing', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Reply by mail');
    await agentReply(t.id, 'Did that help?');
    const mail = await mailAbout(PEOPLE.acmeCustomer.email, 'Reply by mail');
    const replyTo = mail.ReplyTo[0].Address;
    const payload = postmark(PEOPLE.acmeCustomer.email, replyTo, {
      TextBody: `Yes, it works now.\n\nOn Tue, 24 Nov 2026 at 10:00, Acme Support <support@${DOMAIN}> wrote:\n> Did that help?\n`,
    });
    const res = await inbound(payload);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'reply', ticket_id: t.id, duplicate: false });
    const replay = await inbound(payload);
    expect(await replay.json()).toMatchObject({ outcome: 'reply', ticket_id: t.id, duplicate: true });
    const { rows } = await db.sql(`select body, author_id from messages where ticket_id = $1 order by created_at`, [
      t.id,
    ]);
    expect(rows.at(-1)).toEqual({ body: 'Yes, it works now.', author_id: PEOPLE.acmeCustomer.id });
    expect(rows.filter((r) => r.body === 'Yes, it works now.')).toHaveLength(1);
  });

  it('threads by In-Reply-To/References when the token is missing, and refuses a forged token', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Thread by headers');
    const m = await agentReply(t.id, 'Header threading');
    const forged = `reply+${t.id.replace(/-/g, '')}.${'0'.repeat(20)}@${DOMAIN}`;
    const byHeaders = postmark(PEOPLE.acmeCustomer.email, forged, {
      TextBody: 'Answer threaded by headers',
      Headers: [
        { Name: 'In-Reply-To', Value: `<m.${m.id}@${DOMAIN}>` },
        { Name: 'References', Value: `<m.${crypto.randomUUID()}@elsewhere> <m.${m.id}@${DOMAIN}>` },
        { Name: 'Message-ID', Value: '<abc@mail.example.test>' },
      ],
    });
    expect(await (await inbound(byHeaders)).json()).toMatchObject({ outcome: 'reply', ticket_id: t.id });
    // A forged token and no headers: nothing routes it, and it names no workspace.
    const lost = await inbound(postmark(PEOPLE.acmeCustomer.email, forged));
    expect(lost.status).toBe(403);
  });

  it('opens a request in the workspace its address belongs to; an unknown sender becomes a customer', async () => {
    const from = `newcomer-${Date.now()}@example.test`;
    const res = await inbound(
      postmark(from, `acme@${DOMAIN}`, {
        Subject: 'Fwd: Cannot log in',
        TextBody: 'I cannot log in.\n\n-- \nPat\nCEO, Example',
      }),
    );
    const out = await res.json();
    expect(out).toMatchObject({ outcome: 'request', duplicate: false });
    const { rows } = await db.sql(
      `select t.workspace_id, t.subject, m.body, u.email from tickets t join messages m on m.ticket_id = t.id
         join auth.users u on u.id = t.requester_id where t.id = $1`,
      [out.ticket_id],
    );
    expect(rows).toEqual([{ workspace_id: ACME, subject: 'Cannot log in', body: 'I cannot log in.', email: from }]);
  });

  it('opens a follow-up request linked to a closed ticket', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Closed one');
    await db.sql(`update tickets set status = 'closed' where id = $1`, [t.id]);
    const m = await db.sql(`select id from messages where ticket_id = $1`, [t.id]);
    const res = await inbound(
      postmark(PEOPLE.acmeCustomer.email, `support@${DOMAIN}`, {
        TextBody: 'It broke again',
        Headers: [{ Name: 'In-Reply-To', Value: `<m.${m.rows[0].id}@${DOMAIN}>` }],
      }),
    );
    const out = await res.json();
    expect(out).toMatchObject({ outcome: 'follow_up', follow_up_of: t.id });
    const { rows } = await db.sql('select follow_up_of, status, requester_id from tickets where id = $1', [
      out.ticket_id,
    ]);
    expect(rows).toEqual([{ follow_up_of: t.id, status: 'new', requester_id: PEOPLE.acmeCustomer.id }]);
  });

  it('stores the files as web uploads are, names the refused ones in the message, and a replay stores nothing twice', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Mail with files');
    await agentReply(t.id, 'Send me a photo');
    const replyTo = (await mailAbout(PEOPLE.acmeCustomer.email, 'Mail with files')).ReplyTo[0].Address;
    const png = Buffer.from([
      0x89,
      0x50,
      0x4e,
      0x47,
      0x0d,
      0x0a,
      0x1a,
      0x0a,
      ...Array.from({ length: 300 }, (_, i) => i % 256),
    ]);
    const text = Buffer.from('line one\nline two\n');
    const file = (Name: string, bytes: Buffer, ContentType = 'application/octet-stream') => ({
      Name,
      ContentType,
      ContentLength: bytes.length,
      Content: bytes.toString('base64'),
    });
    const payload = postmark(PEOPLE.acmeCustomer.email, replyTo, {
      TextBody: 'Here you go.',
      Attachments: [
        file('../Screen shot é.png', png, 'image/png'),
        file('setup.exe', Buffer.from('MZ')),
        file('huge.pdf', Buffer.alloc(10 * 1024 * 1024 + 1)),
        file('notes.txt', text, 'text/plain'),
        ...['a', 'b', 'c', 'd'].map((n) => file(`${n}.txt`, text)),
      ],
    });
    const res = await inbound(payload);
    expect(res.status).toBe(200);
    const out = await res.json();
    expect(out).toMatchObject({ outcome: 'reply', ticket_id: t.id, duplicate: false, files: 5, refused: 3 });
    // The refused files are named at the end of the message, which is posted anyway.
    const message = (await db.sql('select body from messages where id = $1', [out.message_id])).rows[0].body;
    expect(message).toBe(
      'Here you go.\n\n[Not attached: setup.exe (file type not accepted); huge.pdf (over 10 MB); d.txt (more than 5 files)]',
    );

    // The agent downloads each file with the right bytes, from a path like a web upload's.
    const agent = await db.as('acmeAgent');
    const { data: rows, error } = await agent
      .from('attachments')
      .select('id, path, file_name, size, mime_type, uploader_id')
      .eq('message_id', out.message_id)
      .order('file_name');
    expect(error).toBeNull();
    expect(rows!.map((r) => [r.file_name, r.size, r.mime_type])).toEqual([
      ['../Screen shot é.png', png.length, 'image/png'],
      ['a.txt', text.length, 'text/plain'],
      ['b.txt', text.length, 'text/plain'],
      ['c.txt', text.length, 'text/plain'],
      ['notes.txt', text.length, 'text/plain'],
    ]);
    expect(rows![0].path).toBe(`${ACME}/${t.id}/${rows![0].id}/._Screen shot e.png`);
    expect(rows![0].uploader_id).toBe(PEOPLE.acmeCustomer.id);
    for (const row of rows!) {
      const { data: signed } = await agent.storage.from('attachments').createSignedUrl(row.path, 60);
      const bytes = Buffer.from(await (await fetch(signed!.signedUrl)).arrayBuffer());
      expect(bytes.equals(row.mime_type === 'image/png' ? png : text), row.file_name).toBe(true);
    }

    // A replay (Postmark retries): the same message, the same files, nothing new.
    const replay = await inbound(payload);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ message_id: out.message_id, duplicate: true });
    const counts = await db.sql(
      `select (select count(*)::int from attachments where ticket_id = $1) as rows,
              (select count(*)::int from storage.objects where bucket_id = 'attachments' and name like $2) as objects,
              (select count(*)::int from messages where ticket_id = $1 and body like 'Here you go.%') as messages`,
      [t.id, `${ACME}/${t.id}/%`],
    );
    expect(counts.rows[0]).toEqual({ rows: 5, objects: 5, messages: 1 });
  });

  it('stores the files of a mail that opens a request, and completes a delivery cut off before its files were stored', async () => {
    const pdf = Buffer.from('%PDF-1.4 pretend');
    const payload = postmark(PEOPLE.acmeCustomer2.email, `acme@${DOMAIN}`, {
      Subject: 'Invoice attached',
      TextBody: '',
      Attachments: [{ Name: 'invoice.pdf', ContentType: 'application/pdf', Content: pdf.toString('base64') }],
    });
    const out = await (await inbound(payload)).json();
    expect(out).toMatchObject({ outcome: 'request', files: 1, refused: 0 });
    const { rows } = await db.sql('select id, path from attachments where message_id = $1', [out.message_id]);
    expect(rows).toHaveLength(1);
    expect((await db.sql('select body from messages where id = $1', [out.message_id])).rows[0].body).toBe(
      '(files only)',
    );
    // The first delivery recorded the file but died before storing it: the replay stores it.
    await db.service().storage.from('attachments').remove([rows[0].path]);
    expect((await (await inbound(payload)).json()).duplicate).toBe(true);
    const customer = await db.as('acmeCustomer2');
    const { data } = await customer.storage.from('attachments').download(rows[0].path);
    expect(Buffer.from(await data!.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it('stops a customer’s notifications through the List-Unsubscribe address', async () => {
    const t = await openTicket(db, 'acmeCustomer2', 'Unsubscribe me');
    await agentReply(t.id, 'First answer');
    const mail = await mailAbout(PEOPLE.acmeCustomer2.email, 'Unsubscribe me');
    const address = /<mailto:([^?>]+)/.exec(mail.headers['List-Unsubscribe'][0])![1];
    expect(await (await inbound(postmark(PEOPLE.acmeCustomer2.email, address))).json()).toEqual({
      outcome: 'unsubscribed',
    });
    const m = await agentReply(t.id, 'Second answer');
    const res = await notify({ type: 'message', message_id: m.id });
    expect(await res.json()).toMatchObject({ audience: 'customer', sent: [] });
    await db.sql('delete from email_unsubscribes where user_id = $1', [PEOPLE.acmeCustomer2.id]);
  });
});

describe('inbound-email: whom a mail speaks for (docs/decisions/034-inbound-email-trust.md)', () => {
  const customer = PEOPLE.acmeCustomer.email;
  const agent = PEOPLE.acmeAgent.email;
  /** The provider's own SPF result, as Postmark writes it at the top of the headers. */
  const spf = (result: 'Pass' | 'Fail', envelope: string) => ({
    Name: 'Received-SPF',
    Value: `${result} (sender SPF ${result === 'Pass' ? 'authorized' : 'not authorized'}) identity=mailfrom; client-ip=192.0.2.10; helo=mail.example.test; envelope-from=${envelope}; receiver=abc@inbound.postmarkapp.com`,
  });
  const results = (server: string, value: string) => ({ Name: 'Authentication-Results', Value: `${server}; ${value}` });
  const bodies = async (ticketId: string) =>
    (await db.sql('select body, author_id from messages where ticket_id = $1 order by created_at', [ticketId])).rows;
  /** Every queued call to notify has been answered (what would have been mailed has been). */
  const drained = () =>
    waitFor('the queue to drain', async () => {
      const { rows } = await db.sql('select count(*)::int as n from net.http_request_queue');
      return rows[0].n === 0;
    });
  // The agent answers by email: they chose to hear of every new request by email (notification settings).
  beforeAll(async () => {
    await db.sql(
      `insert into notification_settings (workspace_id, user_id, kind, email, in_app) values ($1, $2, 'new_request', 'each', true)`,
      [ACME, PEOPLE.acmeAgent.id],
    );
  });
  afterAll(async () => {
    await db.sql('delete from notification_settings where user_id = $1', [PEOPLE.acmeAgent.id]);
  });

  it('refuses mail that claims to be an agent without the provider’s authentication, whatever headers the sender wrote: nothing is posted or mailed', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Refund please');
    await agentReply(t.id, 'Looking into it');
    const replyTo = (await mailAbout(customer, 'Refund please')).ReplyTo[0].Address;
    for (const [what, headers] of [
      ['no results', []],
      // Her copy of a passing result, below the provider's failing one.
      ['a passing SPF below a failing one', [spf('Fail', agent), spf('Pass', agent)]],
      // A pass for her own domain, and results from a server nobody named.
      [
        'results of an untrusted server',
        [
          spf('Pass', customer),
          results('mx.evil.test', 'dkim=pass header.d=acme.test; dmarc=pass header.from=acme.test'),
        ],
      ],
      // Our server's results, but for another domain.
      [
        'a pass for another domain',
        [results(AUTHSERV, 'dkim=pass header.d=example.test; spf=pass smtp.mailfrom=example.test')],
      ],
    ] as const) {
      const res = await inbound(postmark(agent, replyTo, { TextBody: 'Refund approved.', Headers: headers }));
      expect(res.status, what).toBe(403);
      expect(await res.json(), what).toEqual({ error: 'sender not verified' });
    }
    // Through the thread's headers, or to the workspace's address: the same.
    const [m] = (await db.sql(`select id from messages where ticket_id = $1 limit 1`, [t.id])).rows;
    const threaded = postmark(agent, `support@${DOMAIN}`, {
      TextBody: 'Refund approved.',
      Headers: [{ Name: 'In-Reply-To', Value: `<m.${m.id}@${DOMAIN}>` }],
    });
    expect((await inbound(threaded)).status).toBe(403);
    expect((await inbound(postmark(agent, `acme@${DOMAIN}`, { TextBody: 'Refund approved.' }))).status).toBe(403);

    await drained();
    expect((await bodies(t.id)).map((r) => r.body)).not.toContain('Refund approved.');
    const { rows } = await db.sql(`select count(*)::int as n from messages where body = 'Refund approved.'`);
    expect(rows[0].n).toBe(0);
    const mails = await mailsTo(customer);
    expect(mails.filter((mail) => mail.Text.includes('Refund approved'))).toEqual([]);
  });

  it('takes an agent’s reply to their own address once the provider authenticated their domain (SPF, or DKIM from the trusted server)', async () => {
    const t = await openTicket(db, 'acmeCustomer2', 'Agent answers by mail');
    const address = (await mailAbout(agent, 'Agent answers by mail')).ReplyTo[0].Address;
    expect(address).toMatch(
      new RegExp(`^reply\\+${t.id.replace(/-/g, '')}\\.${PEOPLE.acmeAgent.id.slice(0, 8)}\\.[0-9a-f]{16}@`),
    );
    const bySpf = await inbound(
      postmark(agent, address, { TextBody: 'On it (SPF).', Headers: [spf('Pass', 'bounces@mail.acme.test')] }),
    );
    expect(await bySpf.json()).toMatchObject({ outcome: 'reply', ticket_id: t.id });
    const byDkim = await inbound(
      postmark(agent, address, {
        TextBody: 'On it (DKIM).',
        Headers: [
          spf('Fail', 'agent@forwarder.test'),
          results(
            AUTHSERV,
            'spf=fail smtp.mailfrom=forwarder.test; dkim=pass (good signature) header.d=acme.test header.s=s1',
          ),
        ],
      }),
    );
    expect(await byDkim.json()).toMatchObject({ outcome: 'reply', ticket_id: t.id });
    expect((await bodies(t.id)).slice(-2)).toEqual([
      { body: 'On it (SPF).', author_id: PEOPLE.acmeAgent.id },
      { body: 'On it (DKIM).', author_id: PEOPLE.acmeAgent.id },
    ]);
    // A team reply moves a new request on, as in the app.
    expect((await db.sql('select status from tickets where id = $1', [t.id])).rows[0].status).toBe('open');
  });

  it('turns a reply from anyone but the address’s recipient into a request of their own', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Mine alone');
    await agentReply(t.id, 'Here is your answer');
    const customersAddress = (await mailAbout(customer, 'Mine alone')).ReplyTo[0].Address;
    const agentsAddress = (await mailAbout(agent, 'Mine alone')).ReplyTo[0].Address;
    expect(agentsAddress).not.toBe(customersAddress);
    const tries = [
      // Someone she forwarded her email to.
      [PEOPLE.acmeCustomer2.email, customersAddress, PEOPLE.acmeCustomer2.id],
      // She, on the address that was the agent's (a forwarded team email).
      [customer, agentsAddress, PEOPLE.acmeCustomer.id],
    ] as const;
    for (const [from, to, requester] of tries) {
      const out = await (
        await inbound(postmark(from, to, { Subject: 'Re: Mine alone', TextBody: `From ${from}` }))
      ).json();
      expect(out, `${from} → ${to}`).toMatchObject({ outcome: 'request' });
      expect(out.ticket_id).not.toBe(t.id);
      const { rows } = await db.sql('select workspace_id, requester_id from tickets where id = $1', [out.ticket_id]);
      expect(rows).toEqual([{ workspace_id: ACME, requester_id: requester }]);
    }
    expect((await bodies(t.id)).map((r) => r.body)).toEqual(['Please help, it is smoking.', 'Here is your answer']);
  });

  it('keeps the older one-per-ticket addresses and the thread’s headers working: for its requester, and for members the provider authenticated', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Old address');
    const [first] = (await db.sql(`select id from messages where ticket_id = $1`, [t.id])).rows;
    // What emails sent before this change carry (EMAIL_TOKEN_SECRET defaults to the service-role key).
    const old = `reply+${await idToken(db.stack.serviceRoleKey, 'reply', t.id)}@${DOMAIN}`;
    const ways = {
      'the old address': (from: string, extra = {}) => postmark(from, old, extra),
      'the headers': (from: string, extra = {}) =>
        postmark(from, `support@${DOMAIN}`, {
          Headers: [{ Name: 'In-Reply-To', Value: `<m.${first.id}@${DOMAIN}>` }],
          ...extra,
        }),
    };
    for (const [way, mail] of Object.entries(ways)) {
      expect(await (await inbound(mail(customer, { TextBody: `Customer by ${way}` }))).json(), way).toMatchObject({
        outcome: 'reply',
        ticket_id: t.id,
      });
      expect((await inbound(mail(agent, { TextBody: `Forged by ${way}` }))).status, way).toBe(403);
      const authenticated = mail(agent, { TextBody: `Agent by ${way}` });
      const withSpf = { ...authenticated, Headers: [spf('Pass', agent), ...(authenticated.Headers as object[])] };
      expect(await (await inbound(withSpf)).json(), way).toMatchObject({ outcome: 'reply', ticket_id: t.id });
      const other = await (await inbound(mail(PEOPLE.acmeCustomer2.email, { TextBody: `Other by ${way}` }))).json();
      expect(other.outcome, way).toBe('request');
    }
    expect((await bodies(t.id)).map((r) => r.body)).toEqual([
      'Please help, it is smoking.',
      'Customer by the old address',
      'Agent by the old address',
      'Customer by the headers',
      'Agent by the headers',
    ]);
  });

  it('moves the status as a reply in the app does: the requester’s email reopens a pending request, and the history names her', async () => {
    const t = await openTicket(db, 'acmeCustomer2', 'Waiting on you');
    const c = await db.as('acmeAgent');
    const { error } = await c.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Which model?',
      p_new_status: 'pending',
    });
    expect(error).toBeNull();
    const replyTo = (await mailAbout(PEOPLE.acmeCustomer2.email, 'Waiting on you')).ReplyTo[0].Address;
    const out = await (await inbound(postmark(PEOPLE.acmeCustomer2.email, replyTo, { TextBody: 'The X200.' }))).json();
    expect(out).toMatchObject({ outcome: 'reply', ticket_id: t.id });
    expect((await db.sql('select status from tickets where id = $1', [t.id])).rows[0].status).toBe('open');
    const { rows } = await db.sql(
      `select actor_id, "from", "to" from ticket_events where ticket_id = $1 and type = 'status' order by id`,
      [t.id],
    );
    expect(rows.at(-1)).toEqual({ actor_id: PEOPLE.acmeCustomer2.id, from: 'pending', to: 'open' });
  });
});

describe('a workspace’s sender and look (issue 29 item 1; docs/decisions/046-sender-and-branding.md)', () => {
  const settings = () => db.sql('select * from workspace_email_settings where workspace_id = $1', [ACME]);
  const verify = async (person: 'acmeAdmin' | 'acmeAgent') =>
    fetch(`${db.stack.apiUrl}/functions/v1/verify-sender-domain`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${await userJwt(db.stack.jwtSecret, PEOPLE[person])}`,
        apikey: db.stack.anonKey,
      },
      body: JSON.stringify({ workspace_id: ACME }),
    });
  afterAll(async () => {
    await db.sql('delete from workspace_email_settings where workspace_id = $1', [ACME]);
  });

  it('are set by the workspace’s admins only; members read them; the verification is the function’s to write', async () => {
    const row = {
      workspace_id: ACME,
      sender_name: 'Acme Help Desk',
      sender_address: 'help@acme.example',
      accent_color: '#aa3300',
      footer: 'Acme Ltd · 1 Main Street',
    };
    // An agent, a customer, another workspace's admin: refused (RLS), nothing written.
    for (const person of ['acmeAgent', 'acmeCustomer', 'globexAdmin'] as const) {
      const { error } = await (await db.as(person)).from('workspace_email_settings').insert(row);
      expect(error?.code, person).toBe('42501');
    }
    expect((await settings()).rows).toEqual([]);
    const admin = await db.as('acmeAdmin');
    expect((await admin.from('workspace_email_settings').insert(row)).error).toBeNull();
    // A member reads them; a customer and another workspace's admin see nothing.
    const read = async (person: Person) =>
      (await (await db.as(person)).from('workspace_email_settings').select('sender_name').eq('workspace_id', ACME))
        .data;
    expect(await read('acmeAgent')).toEqual([{ sender_name: 'Acme Help Desk' }]);
    expect(await read('acmeCustomer')).toEqual([]);
    expect(await read('globexAdmin')).toEqual([]);
    // An agent's update changes nothing; an admin can't mark the domain verified.
    await (await db.as('acmeAgent'))
      .from('workspace_email_settings')
      .update({ sender_name: 'Hacked' })
      .eq('workspace_id', ACME);
    const forged = await admin
      .from('workspace_email_settings')
      .update({ verified_domain: 'acme.example' })
      .eq('workspace_id', ACME);
    expect(forged.error?.code).toBe('42501');
    // Bad values are refused by the database's checks too.
    const bad = await admin
      .from('workspace_email_settings')
      .update({ sender_name: 'Eve <eve@evil.example>' })
      .eq('workspace_id', ACME);
    expect(bad.error?.code).toBe('23514');
    expect((await settings()).rows[0]).toMatchObject({
      sender_name: 'Acme Help Desk',
      verified_domain: null,
      updated_by: PEOPLE.acmeAdmin.id,
    });
  });

  it('brand the team’s replies at once; the sender address is used only once its domain is verified, and threading holds', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Branded please');
    await agentReply(t.id, 'Our first answer.');
    const before = await mailAbout(PEOPLE.acmeCustomer.email, 'Branded please');
    // Not verified: the workspace's sender name at Tend's address.
    expect(before.From).toEqual({ Name: 'Acme Help Desk', Address: `support@${DOMAIN}` });
    expect(before.HTML).toContain('#aa3300');
    expect(before.HTML).toContain('Acme Ltd · 1 Main Street');
    expect(before.Text).toContain('Acme Ltd · 1 Main Street');

    // Only an admin may ask; in trust mode (a stack on a loopback address) the records aren't looked up.
    expect((await verify('acmeAgent')).status).toBe(403);
    const res = await verify('acmeAdmin');
    expect(await res.json()).toMatchObject({ domain: 'acme.example', verified: true, mode: 'trust' });
    expect((await settings()).rows[0]).toMatchObject({ verified_domain: 'acme.example' });

    const m = await agentReply(t.id, 'Our second answer.');
    const after = await waitFor('the second, verified, email', async () =>
      (await mailsTo(PEOPLE.acmeCustomer.email)).find((x) => x.Text.includes('Our second answer.')),
    );
    expect(after.From).toEqual({ Name: 'Acme Help Desk', Address: 'help@acme.example' });
    expect(after.MessageID).toBe(`m.${m.id}@${DOMAIN}`);
    expect(after.headers['In-Reply-To']?.[0]).toMatch(/^<m\.[0-9a-f-]{36}@tend\.localhost>$/);
    const replyTo = after.ReplyTo[0].Address;
    expect(replyTo).toMatch(new RegExp(`^reply\\+${t.id.replace(/-/g, '')}\\.`));
    // The conversation so far, under the reply: the earlier answer is quoted.
    expect(after.Text).toContain('--- Earlier in this conversation ---');
    expect(after.Text).toContain('> Our first answer.');
    // The customer's answer to it comes back to the thread.
    const answer = await inbound(postmark(PEOPLE.acmeCustomer.email, replyTo, { TextBody: 'Thanks, branded!' }));
    expect(await answer.json()).toMatchObject({ outcome: 'reply', ticket_id: t.id });

    // Another domain is not verified: Tend's address again, a new token to publish.
    const token = (await settings()).rows[0].verification_token;
    await (await db.as('acmeAdmin'))
      .from('workspace_email_settings')
      .update({ sender_address: 'help@acme-new.example' })
      .eq('workspace_id', ACME);
    expect((await settings()).rows[0]).toMatchObject({ verified_domain: null, verified_at: null });
    expect((await settings()).rows[0].verification_token).not.toBe(token);
    await agentReply(t.id, 'Our third answer.');
    const third = await waitFor('the third email', async () =>
      (await mailsTo(PEOPLE.acmeCustomer.email)).find((x) => x.Text.includes('Our third answer.')),
    );
    expect(third.From).toEqual({ Name: 'Acme Help Desk', Address: `support@${DOMAIN}` });
  });
});

describe('a reply’s files in its email (issue 29 item 3)', () => {
  it('go with it up to 10 MB together, named in the text part; the rest are links that work without signing in while the file exists', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Files by mail');
    const agent = await db.as('acmeAgent');
    const upload = async (name: string, type: string, size: number, storageName = name) => {
      const id = crypto.randomUUID();
      const key = `${PEOPLE.acmeAgent.id}/${ACME}/${t.id}/${id}/${storageName}`;
      // Every byte value, at a length that is no multiple of 3: base64's padding and all its characters.
      const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 7 + (i >> 8)) & 0xff);
      const { error } = await agent.storage.from('attachments').upload(key, bytes, { contentType: type });
      if (error) throw new Error(`upload ${name}: ${error.message}`);
      return { id, file_name: name, storage_name: storageName, bytes };
    };
    const files = [
      await upload('Étapes – résumé.pdf', 'application/pdf', 2 * 1024 * 1024 + 1, 'etapes.pdf'),
      await upload('screen.png', 'image/png', 300 * 1024 + 2),
      await upload('logs.zip', 'application/zip', 9 * 1024 * 1024),
    ];
    const { error } = await agent.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'The steps and the logs are attached.\n\n![the screen](attachment:screen.png)',
      p_attachments: files.map(({ bytes: _, ...f }) => f),
    });
    if (error) throw new Error(error.message);
    const mail = await waitFor('the email with files', async () =>
      (await mailsTo(PEOPLE.acmeCustomer.email)).find((x) => x.Text.includes('The steps and the logs are attached.')),
    );
    // In the MIME message: the two that fit (2.3 MB), by name, with their types and sizes; the image the
    // Markdown shows is inline, by its Content-ID, which the HTML shows.
    type Part = { PartID: string; FileName: string; ContentType: string; ContentID: string; Size: number };
    const { Attachments: attachedParts, Inline: inlineParts } = mail as Mail & { Attachments: Part[]; Inline: Part[] };
    expect(attachedParts.map((a) => [a.FileName, a.ContentType, a.ContentID, a.Size])).toEqual([
      ['Étapes – résumé.pdf', 'application/pdf', '', 2 * 1024 * 1024 + 1],
    ]);
    expect(inlineParts.map((a) => [a.FileName, a.ContentType, a.Size])).toEqual([
      ['screen.png', 'image/png', 300 * 1024 + 2],
    ]);
    expect(inlineParts[0].ContentID).toBe(`${files[1].id}@tend.localhost`);
    // The catcher shows a cid: image from its part, as a data: URL (Mailpit does the same).
    const shownImage = `src="data:image/png;base64,${Buffer.from(files[1].bytes).toString('base64')}"`;
    expect(mail.HTML.includes(shownImage), 'the image shown in the HTML').toBe(true);
    // Each file byte for byte, as the customer's mail client decodes it.
    for (const [part, file] of [
      [attachedParts[0], files[0]],
      [inlineParts[0], files[1]],
    ] as const) {
      const got = await fetch(`${db.stack.mailUrl}/api/v1/message/${mail.ID}/part/${part.PartID}`);
      expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(file.bytes)), file.file_name).toBe(true);
    }
    // The message as it came over SMTP (the catcher keeps it): no line over RFC 5322's 998 characters,
    // each file's part base64 in lines of 76 (RFC 2045), a non-ASCII name encoded (RFC 2231;
    // the catcher's FileName above is it decoded).
    const raw = readFileSync(path.join(db.stack.dir, 'mail', `${mail.ID}.eml`), 'latin1');
    expect(raw.split('\r\n').filter((l) => l.length > 998)).toEqual([]);
    expect(raw).toContain("filename*0*=utf-8''%C3%89tapes%20%E2%80%93%20r%C3%A9sum%C3%A9;\r\n filename*1=.pdf");
    const base64Bodies = [
      ...raw.matchAll(/Content-Transfer-Encoding: base64\r\n(?:[^\r]+\r\n)*\r\n([A-Za-z0-9+/=\r\n]+)/g),
    ];
    expect(base64Bodies.length).toBeGreaterThanOrEqual(2);
    for (const [, body] of base64Bodies) {
      const lines = body.trim().split('\r\n');
      expect(lines.slice(0, -1).every((l) => l.length === 76) && lines.at(-1)!.length <= 76).toBe(true);
    }
    expect(mail.Text).toContain('- Étapes – résumé.pdf (2.0 MB, attached)');
    expect(mail.Text).toContain('- screen.png (300 KB, attached)');
    expect(mail.Text).toContain('each works for 7 days');
    const link = /- logs\.zip \(9\.0 MB\): (\S+)/.exec(mail.Text)?.[1];
    expect(link).toMatch(
      new RegExp(`^${db.stack.apiUrl}/functions/v1/file-link\\?t=[0-9a-f]{32}\\.[0-9a-z]+\\.[0-9a-f]{32}$`),
    );
    expect(mail.HTML).toContain(`href="${link!.replace(/&/g, '&amp;')}"`);

    // The link, with no session: the file, as a download.
    const got = await fetch(link!);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-disposition')).toContain('filename="logs.zip"');
    expect(got.headers.get('content-type')).toBe('application/zip');
    expect((await got.arrayBuffer()).byteLength).toBe(9 * 1024 * 1024);
    // A token changed by one character, or for another file: nothing.
    const forged = link!.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    expect((await fetch(forged)).status).toBe(404);
    // The file removed: its link is dead.
    await asPostgres('delete from attachments where id = $1', [files[2].id]);
    expect((await fetch(link!)).status).toBe(404);
  });
});

describe('an agent’s signature (issue 29 item 4)', () => {
  it('is the user’s own: set, changed and removed by them, read by nobody else; the database holds its length', async () => {
    const agent = await db.as('acmeAgent');
    expect(
      (await agent.from('signatures').upsert({ body: 'Sam\nAcme Support' }, { onConflict: 'user_id' })).error,
    ).toBeNull();
    expect(
      (await agent.from('signatures').upsert({ body: 'Sam B.\nAcme Support' }, { onConflict: 'user_id' })).error,
    ).toBeNull();
    expect((await agent.from('signatures').select('user_id, body')).data).toEqual([
      { user_id: PEOPLE.acmeAgent.id, body: 'Sam B.\nAcme Support' },
    ]);
    // A teammate, the workspace's admin, a customer: nothing to read, nothing changed.
    for (const person of ['acmeAgent2', 'acmeAdmin', 'acmeCustomer'] as const) {
      const c = await db.as(person);
      expect((await c.from('signatures').select('body').eq('user_id', PEOPLE.acmeAgent.id)).data, person).toEqual([]);
      await c.from('signatures').update({ body: 'Hacked' }).eq('user_id', PEOPLE.acmeAgent.id);
      await c.from('signatures').delete().eq('user_id', PEOPLE.acmeAgent.id);
      // Written as someone else: refused.
      const forged = await c.from('signatures').insert({ user_id: PEOPLE.acmeAgent.id, body: 'Forged' });
      expect(forged.error?.code, person).toBe('42501');
    }
    const tooLong = await agent
      .from('signatures')
      .update({ body: 'x'.repeat(1001) })
      .eq('user_id', PEOPLE.acmeAgent.id);
    expect(tooLong.error?.code).toBe('23514');
    expect((await db.sql('select body from signatures where user_id = $1', [PEOPLE.acmeAgent.id])).rows).toEqual([
      { body: 'Sam B.\nAcme Support' },
    ]);
    await agent.from('signatures').delete().eq('user_id', PEOPLE.acmeAgent.id);
    expect((await db.sql('select body from signatures where user_id = $1', [PEOPLE.acmeAgent.id])).rows).toEqual([]);
  });
});

describe('the platform’s email bookkeeping', () => {
  it('is closed to every API role: sign-in links and invitation counts are neither read nor written, their functions refused', async () => {
    const token = crypto.randomUUID();
    for (const client of [db.anon(), await db.as('acmeCustomer'), await db.as('acmeAdmin')]) {
      for (const table of ['email_sign_in_links', 'invitation_sends']) {
        const read = await client.from(table).select('*').limit(1);
        expect(read.error?.code, table).toBe('42501');
        const write = await client.from(table).insert({ token_hash: 'a'.repeat(64), email: 'x@example.test' });
        expect(write.error, table).not.toBeNull();
      }
      const made = await client.rpc('create_email_sign_in_link', {
        p_user_id: PEOPLE.acmeCustomer.id,
        p_next: '/',
        p_token_hash: 'a'.repeat(64),
      });
      expect(made.error).not.toBeNull();
      expect((await client.rpc('use_email_sign_in_link', { p_token: token })).error).not.toBeNull();
    }
    // The service role (notify, and the app with the secret key) may: a link is spent once.
    const service = db.service();
    const hash = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))).toString('hex');
    expect(
      (
        await service.rpc('create_email_sign_in_link', {
          p_user_id: PEOPLE.acmeCustomer.id,
          p_next: '/support/acme',
          p_token_hash: hash,
        })
      ).error,
    ).toBeNull();
    expect((await service.rpc('use_email_sign_in_link', { p_token: token })).data).toEqual([
      { email: PEOPLE.acmeCustomer.email, next: '/support/acme' },
    ]);
    expect((await service.rpc('use_email_sign_in_link', { p_token: token })).error).toMatchObject({
      code: 'P0001',
      message: 'link_used',
    });
    expect((await service.rpc('use_email_sign_in_link', { p_token: 'not-a-token' })).error).toMatchObject({
      message: 'link_invalid',
    });
    // Only a path of this app is ever stored as where a link leads.
    for (const next of ['//evil.test', 'https://evil.test', '/\\evil.test']) {
      const refused = await service.rpc('create_email_sign_in_link', {
        p_user_id: PEOPLE.acmeCustomer.id,
        p_next: next,
        p_token_hash: 'b'.repeat(64),
      });
      expect(refused.error?.code, next).toBe('23514');
    }
  });
});

describe('close-solved', () => {
  it('is scheduled hourly, and its run closes tickets solved over 7 days ago with a history event', async () => {
    const job = await db.sql(`select jobid, schedule, username, command from cron.job where jobname = 'close-solved'`);
    expect(job.rows[0]).toMatchObject({ schedule: '0 * * * *', username: 'postgres' });
    expect(job.rows[0].command).toContain('/functions/v1/close-solved');
    const old = await openTicket(db, 'acmeCustomer', 'Solved long ago');
    const recent = await openTicket(db, 'acmeCustomer', 'Solved yesterday');
    await db.sql(`update tickets set status = 'solved', solved_at = now() - interval '8 days' where id = $1`, [old.id]);
    await db.sql(`update tickets set status = 'solved', solved_at = now() - interval '1 day' where id = $1`, [
      recent.id,
    ]);
    // Run it now through the scheduler (every second), as its owner may.
    await asPostgres(`select cron.alter_job($1, schedule := '1 seconds')`, [job.rows[0].jobid]);
    try {
      await waitFor('the old ticket to close', async () => {
        const { rows } = await db.sql('select status from tickets where id = $1', [old.id]);
        return rows[0].status === 'closed';
      });
    } finally {
      await db.sql(
        `set role postgres; select cron.alter_job(${job.rows[0].jobid}, schedule := '0 * * * *'); reset role`,
      );
    }
    expect((await db.sql('select status from tickets where id = $1', [recent.id])).rows[0].status).toBe('solved');
    const events = await db.sql(
      `select actor_id, "from", "to" from ticket_events where ticket_id = $1 and type = 'status' order by id`,
      [old.id],
    );
    expect(events.rows.at(-1)).toEqual({ actor_id: null, from: 'solved', to: 'closed' });
    const runs = await db.sql(`select status from cron.job_run_details where jobid = $1`, [job.rows[0].jobid]);
    expect(runs.rows.map((r) => r.status)).toContain('succeeded');
  });
});

describe('notify when the SMTP server fails', () => {
  it('retries with back-off, marks the delivery failed with the error, the retry job sends it once when SMTP is back; the reply is posted regardless', async () => {
    // An SMTP server of our own that refuses every recipient (451, "try later") until told otherwise.
    let refusing = true;
    const attempts: number[] = [];
    const received: string[] = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      // notify's pooled connection stays open: don't wait for it at close.
      closeTimeout: 100,
      onRcptTo(_address, _session, callback) {
        if (!refusing) return callback();
        attempts.push(Date.now());
        const error = Object.assign(new Error('4.3.0 Mailbox busy, try later'), { responseCode: 451 });
        callback(error);
      },
      onData(stream, _session, callback) {
        let text = '';
        stream.on('data', (chunk) => (text += chunk));
        stream.on('end', () => {
          received.push(text);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as { port: number }).port;

    // The ticket's own calls to notify are done first (the team's notifications).
    const t = await openTicket(db, 'acmeCustomer2', 'SMTP outage');
    await waitFor('notify to finish', async () => {
      const { rows } = await db.sql('select count(*)::int as n from net.http_request_queue');
      return rows[0].n === 0;
    });
    writeFileSync(envFile, `${baseEnv}SMTP_HOST=127.0.0.1\nSMTP_PORT=${port}\n`);
    try {
      const m = await agentReply(t.id, 'Answer during the outage');
      const mid = `<m.${m.id}@${DOMAIN}>`;
      // The app's write is done before the email is even tried: it never waits for SMTP.
      const { rows: now } = await db.sql('select status from email_deliveries where message_id = $1', [mid]);
      expect(now.map((r) => r.status)).not.toContain('failed');

      const failed = await waitFor('the delivery to fail', async () => {
        const { rows } = await db.sql(
          'select recipient, status, attempts, last_error, sent_at from email_deliveries where message_id = $1',
          [mid],
        );
        return rows[0]?.status === 'failed' && rows[0];
      });
      expect(failed).toMatchObject({ recipient: PEOPLE.acmeCustomer2.email, attempts: 1, sent_at: null });
      expect(failed.last_error).toContain('451');
      // Four tries, 0.25 s, 1 s and 4 s apart (and no more).
      expect(attempts).toHaveLength(4);
      const gaps = attempts.slice(1).map((at, i) => at - attempts[i]);
      for (const [i, least] of [250, 1000, 4000].entries()) expect(gaps[i]).toBeGreaterThanOrEqual(least * 0.9);

      // The server is back: the retry job (every 10 minutes; run now) delivers it once; after that
      // neither the job nor a repeated webhook sends it again.
      refusing = false;
      const job = await asPostgres(`select schedule, command from cron.job where jobname = 'retry-emails'`);
      expect(job.rows).toEqual([{ schedule: '*/10 * * * *', command: 'select private.retry_failed_emails()' }]);
      expect((await asPostgres('select private.retry_failed_emails() as n')).rows[0].n).toBe(1);
      await waitFor('the retried delivery', async () => {
        const { rows } = await db.sql('select status from email_deliveries where message_id = $1', [mid]);
        return rows[0].status === 'sent';
      });
      expect((await asPostgres('select private.retry_failed_emails() as n')).rows[0].n).toBe(0);
      const again = await notify({ type: 'message', message_id: m.id });
      expect(await again.json()).toMatchObject({ sent: [], already_sent: [PEOPLE.acmeCustomer2.email] });
      expect(received).toHaveLength(1);
      expect(received[0]).toContain('Answer during the outage');
      const { rows } = await db.sql('select status, attempts, last_error from email_deliveries where message_id = $1', [
        mid,
      ]);
      expect(rows).toEqual([{ status: 'sent', attempts: 2, last_error: null }]);
      expect(attempts).toHaveLength(4);
    } finally {
      writeFileSync(envFile, baseEnv);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 60_000);
});
