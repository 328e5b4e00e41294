// New conversations and forwards on the real stack (issue 29 item 5; supabase/schemas/88_rich_mail.sql,
// docs/decisions/057-new-conversations-and-forwards.md): ensure-customer makes the customer's account for
// members only; start_conversation opens the ticket with the agent's message, which notify mails to the
// customer, whose answer threads through inbound-email; forward_ticket mails a ticket or one public
// message to an outside address whose answer comes back through inbound-email as an internal note,
// which the customer never sees. RLS per role on the forwards.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { waitFor } from '../../scripts/lib/wait.ts';
import { ACME, PEOPLE, openTicket, startDbStack, type DbStack, type Person } from '../support/db.ts';

const SECRET = 'rich-mail-inbound-secret';
const DOMAIN = 'tend.localhost';
let db: DbStack;
let envDir: string;

interface Mail {
  Subject: string;
  Text: string;
  HTML: string;
  From: { Name: string; Address: string };
  ReplyTo: { Address: string }[];
  MessageID: string;
  Attachments: { FileName: string }[];
}

/** The newest email to `email` whose subject contains `subject`, once it has come. */
const mailAbout = (email: string, subject: string): Promise<Mail> =>
  waitFor(`an email to ${email} about "${subject}"`, async () => {
    const found = (await messagesTo(db.stack.mailUrl, email, { notifications: true })).find((m) =>
      m.Subject.includes(subject),
    );
    return found && (await (await fetch(`${db.stack.mailUrl}/api/v1/message/${found.ID}`)).json());
  });

/** Posts an email to inbound-email as Postmark would. */
const inbound = (from: string, to: string, extra: Record<string, unknown> = {}) =>
  fetch(`${db.stack.apiUrl}/functions/v1/inbound-email`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Basic ${btoa(`postmark:${SECRET}`)}` },
    body: JSON.stringify({
      MessageID: crypto.randomUUID(),
      From: from,
      FromFull: { Email: from, Name: 'Olive Outside', MailboxHash: '' },
      To: to,
      ToFull: [{ Email: to, Name: '', MailboxHash: '' }],
      Subject: 'Re: something',
      TextBody: 'Thanks!',
      HtmlBody: '',
      Headers: [],
      Attachments: [],
      ...extra,
    }),
  });

const ensureCustomer = async (person: Person | null, body: Record<string, unknown>) => {
  const client = person ? await db.as(person) : db.anon();
  const { error } = await client.functions.invoke('ensure-customer', { body });
  return error ? ((error as { context?: Response }).context?.status ?? 0) : 200;
};

const unique = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@outside.test`;

beforeAll(async () => {
  envDir = mkdtempSync(path.join(os.tmpdir(), 'tend-rich-mail-env-'));
  const envFile = path.join(envDir, '.env');
  writeFileSync(
    envFile,
    `INBOUND_EMAIL_SECRET=${SECRET}\nAPP_URL=http://localhost:3999\nINBOUND_EMAIL_DOMAIN=${DOMAIN}\n`,
  );
  db = await startDbStack({ functionsEnvFile: envFile });
}, 120_000);
afterAll(async () => {
  await db?.teardown();
  rmSync(envDir, { recursive: true, force: true });
});

describe('a new conversation', () => {
  it('ensure-customer makes an account for a member’s request only: 401 signed out, 403 a customer or another team, 400 a bad address', async () => {
    const email = unique('newbie');
    expect(await ensureCustomer(null, { workspace_id: ACME, email })).toBe(401);
    expect(await ensureCustomer('acmeCustomer', { workspace_id: ACME, email })).toBe(403);
    expect(await ensureCustomer('globexAgent', { workspace_id: ACME, email })).toBe(403);
    expect(await ensureCustomer('acmeAgent', { workspace_id: ACME, email: 'not an address' })).toBe(400);
    expect((await db.sql('select count(*)::int n from auth.users where email = $1', [email])).rows[0].n).toBe(0);
    expect(await ensureCustomer('acmeAgent', { workspace_id: ACME, email })).toBe(200);
    // Twice is fine: the account is there.
    expect(await ensureCustomer('acmeAgent', { workspace_id: ACME, email })).toBe(200);
    expect((await db.sql('select count(*)::int n from auth.users where email = $1', [email])).rows[0].n).toBe(1);
  });

  it('opens a ticket that waits on the customer, mails them the message, and their reply threads', async () => {
    const customer = unique('casey');
    expect(await ensureCustomer('acmeAgent', { workspace_id: ACME, email: customer })).toBe(200);
    const agent = await db.as('acmeAgent');
    const key = crypto.randomUUID();
    const start = () =>
      agent.rpc('start_conversation', {
        p_workspace_id: ACME,
        p_requester_email: customer.toUpperCase(),
        p_subject: 'Your order is ready',
        p_body: 'Hello, your **order** is ready for pickup.',
        p_client_key: key,
      });
    const { data, error } = await start();
    expect(error).toBeNull();
    const [ticket] = data as { id: string; number: number }[];
    // A resubmitted form opens nothing more.
    expect((await start()).data).toEqual([ticket]);
    const { rows } = await db.sql(
      `select t.status, t.assignee_id, u.email as requester, (select count(*)::int from messages m where m.ticket_id = t.id) as messages
         from tickets t join auth.users u on u.id = t.requester_id where t.id = $1`,
      [ticket.id],
    );
    expect(rows[0]).toEqual({ status: 'pending', assignee_id: PEOPLE.acmeAgent.id, requester: customer, messages: 1 });

    const mail = await mailAbout(customer, 'Your order is ready');
    expect(mail.Subject).toBe(`Your order is ready [#${ticket.number}]`);
    expect(mail.From.Name).toBe('Acme Support');
    expect(mail.Text).toMatch(/wrote to you/);
    expect(mail.Text).toContain('Hello, your order is ready for pickup.');
    expect(mail.HTML).toContain('<strong>order</strong>');

    // The customer answers by replying: a reply on the same ticket, which opens it again.
    const res = await inbound(customer, mail.ReplyTo[0].Address, { TextBody: 'On my way!' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'reply', ticket_id: ticket.id });
    const after = await db.sql(
      `select t.status, (select body from messages m where m.ticket_id = t.id order by created_at desc limit 1) as last
         from tickets t where t.id = $1`,
      [ticket.id],
    );
    expect(after.rows[0]).toEqual({ status: 'open', last: 'On my way!' });
  });

  it('is refused to a customer, to another team, with oneself, and for an address with no account', async () => {
    const args = (email: string) => ({
      p_workspace_id: ACME,
      p_requester_email: email,
      p_subject: 'Hello',
      p_body: 'Hi',
    });
    const cases: [Person, string, string][] = [
      ['acmeCustomer', PEOPLE.acmeCustomer2.email, 'not_found'],
      ['globexAgent', PEOPLE.acmeCustomer.email, 'not_found'],
      ['acmeAgent', PEOPLE.acmeAgent.email, 'requester_is_you'],
      ['acmeAgent', unique('nobody'), 'not_found'],
    ];
    for (const [who, email, code] of cases) {
      const { error } = await (await db.as(who)).rpc('start_conversation', args(email));
      expect(error?.message, `${who} → ${email}`).toBe(code);
    }
    expect((await db.anon().rpc('start_conversation', args(PEOPLE.acmeCustomer.email))).error).not.toBeNull();
  });
});

describe('a forward', () => {
  it('mails the conversation to the outside address, whose answer comes back as an internal note the customer never sees', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Broken hinge');
    const agent = await db.as('acmeAgent');
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'We asked the maker. _Hold on._' });
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Secret margin: 40%', p_kind: 'note' });
    const supplier = unique('supplier');
    const { data: forwardId, error } = await agent.rpc('forward_ticket', {
      p_ticket_id: t.id,
      p_to: supplier,
      p_note: 'Can you **replace** this hinge?',
    });
    expect(error).toBeNull();

    // The thread says so, as a note.
    const note = await db.sql(`select body, kind from messages where ticket_id = $1 order by created_at desc limit 1`, [
      t.id,
    ]);
    expect(note.rows[0]).toEqual({
      kind: 'note',
      body: `Forwarded this conversation to ${supplier}:\n\nCan you **replace** this hinge?`,
    });

    const mail = await mailAbout(supplier, 'Broken hinge');
    expect(mail.Subject).toBe(`Fwd: Broken hinge [#${t.number}]`);
    expect(mail.From.Name).toBe('Acme Support');
    expect(mail.HTML).toContain('<strong>replace</strong>');
    expect(mail.Text).toContain('Please help, it is smoking.');
    expect(mail.Text).toContain('We asked the maker. Hold on.');
    // Notes stay in the team.
    expect(mail.Text).not.toContain('Secret margin');
    expect(mail.HTML).not.toContain('Secret margin');
    const replyTo = mail.ReplyTo[0].Address;
    expect(replyTo).toMatch(new RegExp(`^fwd\\+[0-9a-f]{32}\\.[0-9a-f]{20}@${DOMAIN}$`));
    expect(replyTo).toContain((forwardId as string).replace(/-/g, ''));

    // The supplier answers: an internal note of theirs on the ticket, once however often it is posted.
    const answer = {
      MessageID: crypto.randomUUID(),
      TextBody: 'Yes, a new hinge ships Monday.',
    };
    for (let i = 0; i < 2; i++) {
      const res = await inbound(supplier, replyTo, answer);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ outcome: 'forward_reply', ticket_id: t.id, duplicate: i === 1 });
    }
    const notes = await db.sql(
      `select m.kind, u.email from messages m join auth.users u on u.id = m.author_id
        where m.ticket_id = $1 and m.body = 'Yes, a new hinge ships Monday.'`,
      [t.id],
    );
    expect(notes.rows).toEqual([{ kind: 'note', email: supplier }]);
    // The agent reads it; the customer doesn't.
    const seen = async (who: Person) =>
      (await (await db.as(who)).from('messages').select('body').eq('ticket_id', t.id)).data!.map((m) => m.body);
    expect(await seen('acmeAgent')).toContain('Yes, a new hinge ships Monday.');
    expect(await seen('acmeCustomer')).not.toContain('Yes, a new hinge ships Monday.');
    // No email went to the customer for it. Mails go out after the commit, in the background: a later public
    // reply is the marker, queued after anything the supplier's answer could have sent, so once its mail has come
    // the customer's mails about the ticket are the two replies' and neither quotes the supplier.
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'The new hinge is on its way.' });
    const customerMails = await waitFor('both replies mailed to the customer', async () => {
      const about = (await messagesTo(db.stack.mailUrl, PEOPLE.acmeCustomer.email, { notifications: true })).filter(
        (m) => m.Subject.includes('Broken hinge'),
      );
      return about.length >= 2 && about;
    });
    expect(customerMails.length).toBe(2);
    const texts = await Promise.all(
      customerMails.map(async (m) => (await (await fetch(`${db.stack.mailUrl}/api/v1/message/${m.ID}`)).json()).Text),
    );
    expect(texts.some((text) => text.includes('The new hinge is on its way.'))).toBe(true);
    expect(texts.some((text) => text.includes('We asked the maker.'))).toBe(true);
    for (const text of texts) expect(text).not.toContain('ships Monday');
  });

  it('one public message goes alone, and no note can be forwarded', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Single forward');
    const agent = await db.as('acmeAgent');
    const { data: reply } = await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Only this one.' });
    const { data: secret } = await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'internal', p_kind: 'note' });
    const to = unique('partner');
    const refused = await agent.rpc('forward_ticket', { p_ticket_id: t.id, p_to: to, p_message_id: secret.id });
    expect(refused.error?.message).toBe('not_found');
    const { error } = await agent.rpc('forward_ticket', { p_ticket_id: t.id, p_to: to, p_message_id: reply.id });
    expect(error).toBeNull();
    const mail = await mailAbout(to, 'Single forward');
    expect(mail.Text).toContain('Only this one.');
    expect(mail.Text).not.toContain('Please help, it is smoking.');
    expect(mail.Text).toContain('--- Forwarded message ---');
  });

  it('is refused to a customer, another team and a bad address; the forwards are the team’s to read', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Forward rules');
    const forward = async (who: Person, to = unique('x')) =>
      (await (await db.as(who)).rpc('forward_ticket', { p_ticket_id: t.id, p_to: to })).error?.message ?? 'ok';
    expect(await forward('acmeCustomer')).toBe('not_found');
    expect(await forward('globexAgent')).toBe('not_found');
    expect(await forward('acmeAgent', 'no address')).toBe('email_invalid');
    expect(await forward('acmeAgent2')).toBe('ok');
    const read = async (who: Person) =>
      (await (await db.as(who)).from('ticket_forwards').select('id').eq('ticket_id', t.id)).data?.length;
    expect(await read('acmeAdmin')).toBe(1);
    expect(await read('acmeAgent')).toBe(1);
    expect(await read('acmeCustomer')).toBe(0);
    expect(await read('globexAgent')).toBe(0);
    // Only forward_ticket writes them.
    const direct = await (await db.as('acmeAgent'))
      .from('ticket_forwards')
      .insert({ ticket_id: t.id, workspace_id: ACME, to_address: 'a@b.test' });
    expect(direct.error).not.toBeNull();
  });

  it('an answer to a forged fwd+ address, or from an unverified team member’s address, is refused', async () => {
    const forged = `fwd+${'0'.repeat(32)}.${'0'.repeat(20)}@${DOMAIN}`;
    expect((await inbound(unique('eve'), forged)).status).toBe(403);
    const t = await openTicket(db, 'acmeCustomer', 'Spoofed');
    const to = unique('vendor');
    await (await db.as('acmeAgent')).rpc('forward_ticket', { p_ticket_id: t.id, p_to: to });
    const mail = await mailAbout(to, 'Spoofed');
    const res = await inbound(PEOPLE.acmeAdmin.email, mail.ReplyTo[0].Address, { TextBody: 'I am the admin' });
    expect(res.status).toBe(403);
    const { rows } = await db.sql(`select count(*)::int n from messages where body = 'I am the admin'`);
    expect(rows[0].n).toBe(0);
  });
});

describe('member notification emails', () => {
  it('come in the workspace’s branded layout, with the message rendered as the thread shows it', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Branded notification');
    // An assignment emails the assignee each time by default.
    await (await db.as('acmeAdmin')).from('tickets').update({ assignee_id: PEOPLE.acmeAgent2.id }).eq('id', t.id);
    const mail = await mailAbout(PEOPLE.acmeAgent2.email, 'Branded notification');
    expect(mail.HTML).toContain('role="presentation"');
    expect(mail.HTML).toContain('Open the ticket');
    expect(mail.HTML).toContain(`href="http://localhost:3999/w/acme/tickets/${t.number}"`);
    expect(mail.From.Name).toBe('Acme Support');
    expect(mail.Text).toContain(`Request #${t.number}`);
  });
});
