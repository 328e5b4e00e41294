// Followers on the real stack (issue 27 item 7; supabase/schemas/54_followers.sql,
// docs/decisions/064-followers.md): members add and remove them; RLS per role (a follower reads the
// tickets they follow and their public messages, never a note, and nothing else); the team's replies
// reach each follower by email with a reply address of their own, and their answer is their public
// message; the people an inbound email copies follow its ticket unless the workspace turned that off.
// Also issue 29's leftovers on the same mail path: a forward's answer from a follower, the forward
// limits, and issue 25's inbound subject over the limit.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { waitFor } from '../../scripts/lib/wait.ts';
import {
  ACME,
  PEOPLE,
  createUser,
  openTicket,
  startDbStack,
  userJwt,
  type DbStack,
  type Person,
} from '../support/db.ts';

const SECRET = 'followers-inbound-secret';
const DOMAIN = 'tend.localhost';
let db: DbStack;
let envDir: string;

interface Mail {
  Subject: string;
  Text: string;
  To: { Address: string }[];
  ReplyTo: { Address: string }[];
}

/** The emails to `email` whose subject contains `subject`, once there are `n` of them. */
const mailsAbout = (email: string, subject: string, n = 1): Promise<Mail[]> =>
  waitFor(`${n} email(s) to ${email} about "${subject}"`, async () => {
    const found = (await messagesTo(db.stack.mailUrl, email, { notifications: true })).filter((m) =>
      m.Subject.includes(subject),
    );
    return (
      found.length >= n &&
      Promise.all(found.map(async (m) => (await fetch(`${db.stack.mailUrl}/api/v1/message/${m.ID}`)).json()))
    );
  });

/** Posts an email to inbound-email as Postmark would. */
const inbound = (from: string, to: string, extra: Record<string, unknown> = {}) =>
  fetch(`${db.stack.apiUrl}/functions/v1/inbound-email`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Basic ${btoa(`postmark:${SECRET}`)}` },
    body: JSON.stringify({
      MessageID: crypto.randomUUID(),
      From: from,
      FromFull: { Email: from, Name: '', MailboxHash: '' },
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

const unique = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@outside.test`;

/** PostgREST as a user made for the test, with a JWT like auth's. */
async function asUser(email: string): Promise<{ id: string; client: SupabaseClient }> {
  const id = await createUser(db, email);
  const jwt = await userJwt(db.stack.jwtSecret, { id, email });
  const client = createClient(db.stack.apiUrl, db.stack.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { Authorization: `Bearer ${jwt}` } },
  });
  return { id, client };
}

const follow = async (who: Person, ticketId: string, email: string) =>
  (await (await db.as(who)).rpc('add_ticket_follower', { p_ticket_id: ticketId, p_email: email })).error?.message ??
  'ok';

const followers = async (ticketId: string) =>
  (
    await db.sql(
      `select u.email from ticket_followers f join auth.users u on u.id = f.user_id where f.ticket_id = $1 order by u.email`,
      [ticketId],
    )
  ).rows.map((r) => r.email as string);

beforeAll(async () => {
  envDir = mkdtempSync(path.join(os.tmpdir(), 'tend-followers-env-'));
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

describe('adding and removing followers', () => {
  it('members add and remove them; a customer, another team and anon may not', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Who may follow');
    const cases: [Person, string][] = [
      ['acmeCustomer', 'not_found'],
      ['acmeCustomer2', 'not_found'],
      ['globexAdmin', 'not_found'],
      ['acmeAgent', 'ok'],
    ];
    for (const [who, outcome] of cases) expect(await follow(who, t.id, PEOPLE.globexCustomer.email), who).toBe(outcome);
    const anon = await db.anon().rpc('add_ticket_follower', { p_ticket_id: t.id, p_email: PEOPLE.acmeCustomer2.email });
    expect(anon.error).not.toBeNull();
    expect(await followers(t.id)).toEqual([PEOPLE.globexCustomer.email]);
    // Twice changes nothing.
    expect(await follow('acmeAdmin', t.id, PEOPLE.globexCustomer.email.toUpperCase())).toBe('ok');
    expect(await followers(t.id)).toEqual([PEOPLE.globexCustomer.email]);

    const remove = async (who: Person) =>
      (
        await (
          await db.as(who)
        ).rpc('remove_ticket_follower', {
          p_ticket_id: t.id,
          p_user_id: PEOPLE.globexCustomer.id,
        })
      ).error?.message ?? 'ok';
    expect(await remove('acmeCustomer')).toBe('not_found');
    expect(await remove('globexAgent')).toBe('not_found');
    expect(await followers(t.id)).toEqual([PEOPLE.globexCustomer.email]);
    expect(await remove('acmeAgent2')).toBe('ok');
    expect(await followers(t.id)).toEqual([]);
    // The history says who did it.
    const { rows } = await db.sql(
      `select type, actor_id, "to" from ticket_events where ticket_id = $1 and type like 'follower%' order by id`,
      [t.id],
    );
    expect(rows).toEqual([
      { type: 'follower_added', actor_id: PEOPLE.acmeAgent.id, to: PEOPLE.globexCustomer.email },
      { type: 'follower_removed', actor_id: PEOPLE.acmeAgent2.id, to: PEOPLE.globexCustomer.email },
    ]);
  });

  it('refuses the requester, a member, a bad or unknown address, a closed ticket, and a 21st follower', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Follower rules');
    expect(await follow('acmeAgent', t.id, PEOPLE.acmeCustomer.email)).toBe('follower_is_requester');
    expect(await follow('acmeAgent', t.id, PEOPLE.acmeAgent2.email)).toBe('follower_is_member');
    expect(await follow('acmeAgent', t.id, 'not an address')).toBe('email_invalid');
    expect(await follow('acmeAgent', t.id, unique('nobody'))).toBe('not_found');
    for (let i = 0; i < 20; i++) {
      const email = unique(`crowd${i}`);
      await createUser(db, email);
      expect(await follow('acmeAgent', t.id, email)).toBe('ok');
    }
    const last = unique('one-too-many');
    await createUser(db, last);
    expect(await follow('acmeAgent', t.id, last)).toBe('followers_full');
    expect((await followers(t.id)).length).toBe(20);

    const closed = await openTicket(db, 'acmeCustomer', 'Closed one');
    await db.sql(`update tickets set status = 'closed' where id = $1`, [closed.id]);
    expect(await follow('acmeAgent', closed.id, PEOPLE.acmeCustomer2.email)).toBe('ticket_closed');
  });
});

describe('what a follower reads (RLS per role)', () => {
  it('the tickets they follow, their public messages and their people; never a note; nothing once removed', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Read as a follower');
    const other = await openTicket(db, 'acmeCustomer', 'Not followed');
    const agent = await db.as('acmeAgent');
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Public answer' });
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Internal only', p_kind: 'note' });
    expect(await follow('acmeAgent', t.id, PEOPLE.acmeCustomer2.email)).toBe('ok');

    const bodies = async (who: Person, ticketId = t.id) =>
      ((await (await db.as(who)).from('messages').select('body').eq('ticket_id', ticketId)).data ?? [])
        .map((m) => m.body)
        .sort();
    const expected: Record<Person, string[]> = {
      acmeAdmin: ['Internal only', 'Please help, it is smoking.', 'Public answer'],
      acmeAgent: ['Internal only', 'Please help, it is smoking.', 'Public answer'],
      acmeAgent2: ['Internal only', 'Please help, it is smoking.', 'Public answer'],
      acmeCustomer: ['Please help, it is smoking.', 'Public answer'],
      acmeCustomer2: ['Please help, it is smoking.', 'Public answer'],
      globexAdmin: [],
      globexAgent: [],
      globexCustomer: [],
    };
    for (const [who, seen] of Object.entries(expected)) expect(await bodies(who as Person), who).toEqual(seen);
    expect((await db.anon().from('messages').select('body').eq('ticket_id', t.id)).data ?? []).toEqual([]);

    const follower = await db.as('acmeCustomer2');
    // The ticket and its workspace, not the other ticket.
    expect((await follower.from('tickets').select('subject').in('id', [t.id, other.id])).data).toEqual([
      { subject: 'Read as a follower' },
    ]);
    expect(await bodies('acmeCustomer2', other.id)).toEqual([]);
    expect((await follower.from('workspaces').select('slug').eq('id', ACME)).data).toEqual([{ slug: 'acme' }]);
    // The names in the thread: the agent's and the requester's.
    const names = await follower
      .from('profiles')
      .select('user_id')
      .in('user_id', [PEOPLE.acmeAgent.id, PEOPLE.acmeCustomer.id]);
    expect(names.data?.length).toBe(2);
    // Their own following row, not the list of others; the member list function answers nothing.
    expect((await follower.from('ticket_followers').select('user_id').eq('ticket_id', t.id)).data).toEqual([
      { user_id: PEOPLE.acmeCustomer2.id },
    ]);
    expect((await follower.rpc('ticket_follower_list', { p_slug: 'acme', p_number: t.number })).data).toEqual([]);
    const listed = await agent.rpc('ticket_follower_list', { p_slug: 'acme', p_number: t.number });
    expect(listed.data).toEqual([
      expect.objectContaining({ user_id: PEOPLE.acmeCustomer2.id, email: PEOPLE.acmeCustomer2.email }),
    ]);
    // The requester reads the follower's name (their messages are in the thread).
    const requesterSees = await (await db.as('acmeCustomer'))
      .from('profiles')
      .select('user_id')
      .eq('user_id', PEOPLE.acmeCustomer2.id);
    expect(requesterSees.data?.length).toBe(1);

    // A follower answers in public; not a note; and can't change the ticket (marking it solved is the requester's).
    const reply = await follower.rpc('post_message', { p_ticket_id: t.id, p_body: 'Follower here' });
    expect(reply.error).toBeNull();
    const note = await follower.rpc('post_message', { p_ticket_id: t.id, p_body: 'sneaky', p_kind: 'note' });
    expect(note.error?.message).toBe('forbidden');
    const solved = await follower.from('tickets').update({ status: 'solved' }).eq('id', t.id).select('id');
    expect(solved.data ?? []).toEqual([]);
    expect((await db.sql('select status from tickets where id = $1', [t.id])).rows[0].status).not.toBe('solved');

    // Removed: nothing any more.
    await agent.rpc('remove_ticket_follower', { p_ticket_id: t.id, p_user_id: PEOPLE.acmeCustomer2.id });
    expect(await bodies('acmeCustomer2')).toEqual([]);
    expect((await follower.from('tickets').select('id').eq('id', t.id)).data).toEqual([]);
    const after = await follower.rpc('post_message', { p_ticket_id: t.id, p_body: 'Still here?' });
    expect(after.error?.message).toBe('not_found');
  });
});

describe('followers by email', () => {
  it('each gets the team’s public replies (never a note) with an address of their own, and answers as themselves', async () => {
    const subject = `Follow by mail ${crypto.randomUUID().slice(0, 6)}`;
    const t = await openTicket(db, 'acmeCustomer', subject);
    const friend = unique('friend');
    const { id: friendId } = await asUser(friend);
    expect(await follow('acmeAgent', t.id, friend)).toBe('ok');
    const agent = await db.as('acmeAgent');
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'A note the friend must not get', p_kind: 'note' });
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'We fixed it.', p_new_status: 'pending' });

    const [toFriend] = await mailsAbout(friend, subject);
    const [toRequester] = await mailsAbout(PEOPLE.acmeCustomer.email, subject);
    expect(toFriend.Text).toContain('We fixed it.');
    expect(toFriend.Text).toContain('replied to a request you follow');
    expect(toFriend.Text).not.toContain('must not get');
    expect(toRequester.Text).toContain('replied to your request');
    const friendAddress = toFriend.ReplyTo[0].Address;
    expect(friendAddress).not.toBe(toRequester.ReplyTo[0].Address);
    expect(friendAddress).toContain(friendId.replace(/-/g, '').slice(0, 8));

    // The friend answers: their public message on the thread, which reopens the pending ticket.
    const res = await inbound(friend, friendAddress, { TextBody: 'Confirmed, works for me too.' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'reply', ticket_id: t.id });
    const { rows } = await db.sql(
      `select m.kind, m.author_id, t.status from messages m join tickets t on t.id = m.ticket_id
        where m.body = 'Confirmed, works for me too.'`,
    );
    expect(rows).toEqual([{ kind: 'reply', author_id: friendId, status: 'open' }]);

    // Anyone else writing to the friend's address opens a request of their own.
    const stranger = unique('stranger');
    const other = await inbound(stranger, friendAddress, { Subject: 'Me too', TextBody: 'Me too' });
    expect(await other.json()).toMatchObject({ outcome: 'request' });
    expect(await followers(t.id)).toEqual([friend]);
  });

  it('an email that copies other people makes them followers: not the team, not the workspace’s addresses; the setting turns it off', async () => {
    const customer = unique('cc-sender');
    const colleague = unique('colleague');
    const subject = `Copied ${crypto.randomUUID().slice(0, 6)}`;
    const res = await inbound(customer, `acme@${DOMAIN}`, {
      Subject: subject,
      TextBody: 'My colleague is copied.',
      CcFull: [
        { Email: colleague, Name: 'Colleague', MailboxHash: '' },
        { Email: PEOPLE.acmeAgent.email, Name: 'Agent', MailboxHash: '' },
        { Email: `support@${DOMAIN}`, Name: '', MailboxHash: '' },
      ],
    });
    expect(res.status).toBe(200);
    const { ticket_id } = await res.json();
    expect(await followers(ticket_id)).toEqual([colleague]);
    // The colleague gets the team's reply.
    await (await db.as('acmeAgent')).rpc('post_message', { p_ticket_id: ticket_id, p_body: 'Hello both' });
    expect((await mailsAbout(colleague, subject))[0].Text).toContain('Hello both');

    // Off: nobody is added.
    await db.sql(`update workspaces set cc_adds_followers = false where id = $1`, [ACME]);
    try {
      const off = await inbound(unique('cc-off'), `acme@${DOMAIN}`, {
        Subject: 'Copied, off',
        CcFull: [{ Email: unique('not-added'), Name: '', MailboxHash: '' }],
      });
      expect(await followers((await off.json()).ticket_id)).toEqual([]);
    } finally {
      await db.sql(`update workspaces set cc_adds_followers = true where id = $1`, [ACME]);
    }
  });

  it('only an admin turns the copying off; an agent or a customer may not', async () => {
    for (const who of ['acmeAgent', 'acmeCustomer'] as Person[]) {
      const { data } = await (await db.as(who))
        .from('workspaces')
        .update({ cc_adds_followers: false })
        .eq('id', ACME)
        .select('id');
      expect(data ?? [], who).toEqual([]);
    }
    const admin = await (await db.as('acmeAdmin'))
      .from('workspaces')
      .update({ cc_adds_followers: true })
      .eq('id', ACME)
      .select('cc_adds_followers');
    expect(admin.data).toEqual([{ cc_adds_followers: true }]);
  });
});

describe('a forward’s answer', () => {
  it('from someone who follows the ticket is their public message; from anyone else an internal note', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Forward to a follower');
    const agent = await db.as('acmeAgent');
    const partner = unique('partner');
    const outsider = unique('outsider');
    await asUser(partner);
    expect(await follow('acmeAgent', t.id, partner)).toBe('ok');
    for (const to of [partner, outsider])
      expect((await agent.rpc('forward_ticket', { p_ticket_id: t.id, p_to: to })).error).toBeNull();
    for (const [who, text] of [
      [partner, 'Partner answer'],
      [outsider, 'Outsider answer'],
    ]) {
      const [mail] = await mailsAbout(who, 'Fwd: Forward to a follower');
      const res = await inbound(who, mail.ReplyTo[0].Address, { TextBody: text });
      expect(res.status).toBe(200);
    }
    const { rows } = await db.sql(
      `select body, kind from messages where ticket_id = $1 and body like '% answer' order by body`,
      [t.id],
    );
    expect(rows).toEqual([
      { body: 'Outsider answer', kind: 'note' },
      { body: 'Partner answer', kind: 'reply' },
    ]);
  });
});

describe('forward limits', () => {
  it('an agent forwards at most 20 an hour; the 21st is too_many_attempts with the seconds to wait', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Forward flood');
    const agent = await db.as('acmeAgent');
    const before = Number(
      (
        await db.sql(
          `select count(*) n from ticket_forwards where created_by = $1 and created_at > now() - interval '1 hour'`,
          [PEOPLE.acmeAgent.id],
        )
      ).rows[0].n,
    );
    for (let i = before; i < 20; i++)
      expect((await agent.rpc('forward_ticket', { p_ticket_id: t.id, p_to: unique(`f${i}`) })).error).toBeNull();
    const refused = await agent.rpc('forward_ticket', { p_ticket_id: t.id, p_to: unique('f21') });
    expect(refused.error?.message).toBe('too_many_attempts');
    expect(Number(refused.error?.hint)).toBeGreaterThan(3000);
    expect(Number(refused.error?.hint)).toBeLessThanOrEqual(3600);
    // Nothing written for it: no forward, no note.
    expect(
      (await db.sql(`select count(*)::int n from messages where ticket_id = $1 and body like '%f21-%'`, [t.id])).rows[0]
        .n,
    ).toBe(0);
    // Another agent still may.
    expect(
      (await (await db.as('acmeAgent2')).rpc('forward_ticket', { p_ticket_id: t.id, p_to: unique('g') })).error,
    ).toBeNull();
  });

  it('a workspace forwards at most 100 an hour, whoever sends them', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Workspace forward flood');
    const { rows } = await db.sql(
      `select count(*)::int n from ticket_forwards where workspace_id = $1 and created_at > now() - interval '1 hour'`,
      [ACME],
    );
    // The workspace's earlier forwards this hour, by an admin who forwards nothing else here.
    await db.sql(
      `insert into ticket_forwards (ticket_id, workspace_id, to_address, created_by)
       select $1, $2, 'old' || g || '@outside.test', $3 from generate_series(1, $4::int) g`,
      [t.id, ACME, PEOPLE.acmeAdmin.id, 99 - rows[0].n],
    );
    const agent2 = await db.as('acmeAgent2');
    expect((await agent2.rpc('forward_ticket', { p_ticket_id: t.id, p_to: unique('w100') })).error).toBeNull();
    const refused = await agent2.rpc('forward_ticket', { p_ticket_id: t.id, p_to: unique('w101') });
    expect(refused.error?.message).toBe('too_many_attempts');
    // Globex is not held by Acme's count.
    const { data: globex } = await (await db.as('globexCustomer')).rpc('create_ticket', {
      p_workspace_slug: 'globex',
      p_subject: 'Globex forward',
      p_body: 'Hi',
    });
    const forward = await (await db.as('globexAgent')).rpc('forward_ticket', {
      p_ticket_id: globex[0].id,
      p_to: unique('gx'),
    });
    expect(forward.error).toBeNull();
  });
});

describe('an inbound email’s subject over the limit', () => {
  it('is cut after a whole word, as the portal cuts one, and the rest starts the message', async () => {
    // 276 characters; the 200th inside a word (today's left(…, 200) cut there and dropped the rest).
    const words = ['Refund', ...Array.from({ length: 40 }, (_, i) => `word${i}`)].join(' ');
    const res = await inbound(unique('long-subject'), `acme@${DOMAIN}`, { Subject: words, TextBody: 'The body.' });
    expect(res.status).toBe(200);
    const { ticket_id } = await res.json();
    const { rows } = await db.sql(
      `select t.subject, m.body from tickets t join messages m on m.ticket_id = t.id where t.id = $1`,
      [ticket_id],
    );
    const cut = words.slice(0, words.lastIndexOf(' ', 200));
    expect(rows[0].subject).toBe(cut);
    expect(rows[0].body).toBe(`${words.slice(cut.length + 1)}\n\nThe body.`);
  });

  it('on a reply, changes nothing: the reply’s text is as written', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Long reply subject');
    await (await db.as('acmeAgent')).rpc('post_message', { p_ticket_id: t.id, p_body: 'Any news?' });
    const [mail] = await mailsAbout(PEOPLE.acmeCustomer.email, 'Long reply subject');
    const long = `Re: ${'very '.repeat(60)}long`;
    const res = await inbound(PEOPLE.acmeCustomer.email, mail.ReplyTo[0].Address, { Subject: long, TextBody: 'Yes.' });
    expect(await res.json()).toMatchObject({ outcome: 'reply', ticket_id: t.id });
    const { rows } = await db.sql(`select subject from tickets where id = $1`, [t.id]);
    expect(rows[0].subject).toBe('Long reply subject');
    const last = await db.sql(`select body from messages where ticket_id = $1 order by created_at desc limit 1`, [
      t.id,
    ]);
    expect(last.rows[0].body).toBe('Yes.');
  });
});
