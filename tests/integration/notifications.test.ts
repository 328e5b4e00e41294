// The team's notifications on the real stack (issue 29 item 6; docs/decisions/045-notifications.md):
// what each event stores and emails per member setting and team default, the bell's count, the daily
// digest, and who may read, mark and change what (row-level security per role).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { ACME, PEOPLE, createUser, openTicket, startDbStack, type DbStack, type Person } from '../support/db.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const DOMAIN = 'tend.localhost';
let db: DbStack;
let envDir: string;

beforeAll(async () => {
  envDir = mkdtempSync(path.join(os.tmpdir(), 'tend-notify-env-'));
  const envFile = path.join(envDir, '.env');
  writeFileSync(envFile, `APP_URL=http://localhost:3999\nINBOUND_EMAIL_DOMAIN=${DOMAIN}\n`);
  db = await startDbStack({ functionsEnvFile: envFile });
}, 120_000);
afterAll(async () => {
  await db?.teardown();
  rmSync(envDir, { recursive: true, force: true });
});

/** SQL as role postgres (the cron jobs run as it). */
async function asPostgres(text: string, params?: unknown[]) {
  const c = new pg.Client({ connectionString: db.stack.dbUrl });
  await c.connect();
  try {
    return await c.query(text, params);
  } finally {
    await c.end();
  }
}

/** Every call the database queued to the functions has been answered. */
const settled = () =>
  waitFor('notify to finish', async () => {
    const { rows } = await db.sql('select count(*)::int as n from net.http_request_queue');
    return rows[0].n === 0;
  });

const mails = async (email: string, subject: string) =>
  (await messagesTo(db.stack.mailUrl, email, { notifications: true })).filter((m) => m.Subject.includes(subject));

const notificationsOf = async (person: Person, ticketId: string) =>
  (
    await db.sql(
      'select kind, actor_id, in_app, email, read_at from notifications where recipient_id = $1 and ticket_id = $2 order by created_at',
      [PEOPLE[person].id, ticketId],
    )
  ).rows;

const unread = async (person: Person) => (await (await db.as(person)).rpc('unread_notifications')).data as number;

async function setMine(person: Person, settings: { kind: string; email: string; in_app: boolean }[]) {
  const { error } = await (await db.as(person)).rpc('save_notification_settings', {
    p_workspace_id: ACME,
    p_settings: settings,
  });
  if (error) throw new Error(error.message);
}

beforeEach(async () => {
  await db.sql('delete from notification_settings; delete from notification_defaults');
});

describe('a customer’s new request', () => {
  it('shows in every member’s bell and emails nobody by default (Tend’s default for new requests)', async () => {
    const before = await unread('acmeAgent');
    const t = await openTicket(db, 'acmeCustomer', 'Quiet by default');
    for (const who of ['acmeAdmin', 'acmeAgent', 'acmeAgent2'] as const)
      expect(await notificationsOf(who, t.id)).toEqual([
        { kind: 'new_request', actor_id: PEOPLE.acmeCustomer.id, in_app: true, email: 'off', read_at: null },
      ]);
    expect(await unread('acmeAgent')).toBe(before + 1);
    // Nothing for another workspace's team, and no bell at all for a customer.
    expect((await db.sql('select count(*)::int n from notifications where ticket_id = $1', [t.id])).rows[0].n).toBe(3);
    expect(await unread('acmeCustomer')).toBeNull();
    // The bell as every page asks for it, beside the viewer's time zone setting (viewer_state).
    for (const [who, count] of [
      ['acmeAgent', before + 1],
      ['acmeCustomer', null],
    ] as const)
      expect((await (await db.as(who)).rpc('viewer_state')).data, who).toMatchObject({ unread: count });
    // And as the inbox and the ticket page carry it in their own call (docs/decisions/082-page-calls.md).
    const agent = await db.as('acmeAgent');
    expect((await agent.rpc('inbox', { p_slug: 'acme' })).data).toMatchObject({ viewer: { unread: before + 1 } });
    expect((await agent.rpc('ticket_page', { p_slug: 'acme', p_number: t.number })).data).toMatchObject({
      viewer: { unread: before + 1 },
    });
    await settled();
    for (const who of [PEOPLE.acmeAdmin, PEOPLE.acmeAgent, PEOPLE.acmeAgent2])
      expect(await mails(who.email, 'Quiet by default')).toEqual([]);
  });

  it('emails the members who chose it, with the message, the ticket’s link and their own Reply-To', async () => {
    await setMine('acmeAgent2', [{ kind: 'new_request', email: 'each', in_app: false }]);
    const t = await openTicket(db, 'acmeCustomer', 'Wake me up');
    const [summary] = await waitFor('the email to agent2', async () => {
      const found = await mails(PEOPLE.acmeAgent2.email, 'Wake me up');
      return found.length ? found : null;
    });
    const mail = await (await fetch(`${db.stack.mailUrl}/api/v1/message/${summary.ID}`)).json();
    expect(mail.Subject).toBe(`[Acme Support] #${t.number} Wake me up`);
    expect(mail.Text).toContain('opened a new request');
    expect(mail.Text).toContain('Please help, it is smoking.');
    expect(mail.Text).toContain(`http://localhost:3999/w/acme/tickets/${t.number}`);
    expect(mail.ReplyTo[0].Address).toMatch(
      new RegExp(`^reply\\+${t.id.replace(/-/g, '')}\\.${PEOPLE.acmeAgent2.id.slice(0, 8)}\\.[0-9a-f]{16}@`),
    );
    // Not in the bell (in_app off), but kept for the email's sake, and marked emailed once sent.
    const n = await waitFor('the notification marked emailed', async () => {
      const { rows } = await db.sql(
        'select id, in_app, emailed_at from notifications where recipient_id = $1 and ticket_id = $2',
        [PEOPLE.acmeAgent2.id, t.id],
      );
      return rows[0]?.emailed_at && rows[0];
    });
    expect(mail.MessageID).toBe(`n.${n.id}@${DOMAIN}`);
    expect(n.in_app).toBe(false);
    await settled();
    expect(await mails(PEOPLE.acmeAgent.email, 'Wake me up')).toEqual([]);
  });

  it('follows the team’s default an admin set, unless the member chose otherwise; nothing at all is stored for "off" and no bell', async () => {
    const admin = await db.as('acmeAdmin');
    const { error } = await admin.rpc('save_notification_settings', {
      p_workspace_id: ACME,
      p_settings: [{ kind: 'new_request', email: 'each', in_app: true }],
      p_team: true,
    });
    expect(error).toBeNull();
    await setMine('acmeAgent', [{ kind: 'new_request', email: 'off', in_app: false }]);
    const t = await openTicket(db, 'acmeCustomer', 'Team default on');
    await waitFor(
      'the default’s emails',
      async () => (await mails(PEOPLE.acmeAgent2.email, 'Team default on')).length === 1,
    );
    await waitFor('the admin’s too', async () => (await mails(PEOPLE.acmeAdmin.email, 'Team default on')).length === 1);
    expect(await notificationsOf('acmeAgent', t.id)).toEqual([]);
    await settled();
    expect(await mails(PEOPLE.acmeAgent.email, 'Team default on')).toEqual([]);
    // The member's choice equal to the team's is not kept as theirs: they follow the team from then on.
    await setMine('acmeAgent', [{ kind: 'new_request', email: 'each', in_app: true }]);
    const { rows } = await db.sql('select count(*)::int n from notification_settings where user_id = $1', [
      PEOPLE.acmeAgent.id,
    ]);
    expect(rows[0].n).toBe(0);
    const { data: prefs } = await (await db.as('acmeAgent')).rpc('notification_preferences', { p_workspace_id: ACME });
    expect(prefs.find((p: { kind: string }) => p.kind === 'new_request')).toMatchObject({
      email: 'each',
      in_app: true,
      own: false,
      team_email: 'each',
    });
  });
});

describe('assignment and the customer’s replies', () => {
  it('tells the assignee (in the app and by email) when someone else assigns a ticket, not when they take it themselves', async () => {
    const t = await openTicket(db, 'acmeCustomer2', 'Give it to agent2');
    const agent = await db.as('acmeAgent');
    expect((await agent.from('tickets').update({ assignee_id: PEOPLE.acmeAgent2.id }).eq('id', t.id)).error).toBeNull();
    const notes = await notificationsOf('acmeAgent2', t.id);
    expect(notes.at(-1)).toMatchObject({ kind: 'assigned', actor_id: PEOPLE.acmeAgent.id, email: 'each' });
    const mail = await waitFor('the assignment email', async () => {
      const found = await mails(PEOPLE.acmeAgent2.email, 'Give it to agent2');
      return found.length ? found[0] : null;
    });
    expect(mail.Subject).toBe(`Re: [Acme Support] #${t.number} Give it to agent2`);
    // Taking one yourself: nothing.
    const t2 = await openTicket(db, 'acmeCustomer2', 'Mine now');
    const agent2 = await db.as('acmeAgent2');
    await agent2.from('tickets').update({ assignee_id: PEOPLE.acmeAgent2.id }).eq('id', t2.id);
    expect((await notificationsOf('acmeAgent2', t2.id)).map((n) => n.kind)).toEqual(['new_request']);
  });

  it('tells only the assignee when the requester replies; the team’s own replies tell no member', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Assigned thread');
    await db.sql('update tickets set assignee_id = $1 where id = $2', [PEOPLE.acmeAgent.id, t.id]);
    const customer = await db.as('acmeCustomer');
    await customer.rpc('post_message', { p_ticket_id: t.id, p_body: 'Any news?' });
    expect((await notificationsOf('acmeAgent', t.id)).map((n) => n.kind)).toEqual(['new_request', 'customer_reply']);
    expect((await notificationsOf('acmeAgent2', t.id)).map((n) => n.kind)).toEqual(['new_request']);
    const mail = await waitFor('the reply email to the assignee', async () => {
      const found = await mails(PEOPLE.acmeAgent.email, 'Assigned thread');
      return found.length ? found[0] : null;
    });
    expect(mail.Subject).toBe(`Re: [Acme Support] #${t.number} Assigned thread`);
    const before = (await db.sql('select count(*)::int n from notifications where ticket_id = $1', [t.id])).rows[0].n;
    await (await db.as('acmeAgent2')).rpc('post_message', { p_ticket_id: t.id, p_body: 'Looking into it' });
    await (await db.as('acmeAgent2')).rpc('post_message', { p_ticket_id: t.id, p_body: 'A note', p_kind: 'note' });
    expect((await db.sql('select count(*)::int n from notifications where ticket_id = $1', [t.id])).rows[0].n).toBe(
      before,
    );
  });

  it('says one thing per person and ticket in one transaction: assigned and replied to at once is one notification', async () => {
    const t = await openTicket(db, 'acmeCustomer2', 'Both at once');
    // One transaction: the customer's reply (while unassigned) and an assignment to agent.
    await db.sql(
      `begin;
       select set_config('request.jwt.claims', json_build_object('sub', '${PEOPLE.acmeCustomer2.id}', 'role', 'authenticated')::text, true);
       set local role authenticated;
       insert into messages (ticket_id, body) values ('${t.id}', 'One more thing');
       reset role;
       select set_config('request.jwt.claims', json_build_object('sub', '${PEOPLE.acmeAdmin.id}', 'role', 'authenticated')::text, true);
       update tickets set assignee_id = '${PEOPLE.acmeAgent.id}' where id = '${t.id}';
       commit;`,
    );
    expect((await notificationsOf('acmeAgent', t.id)).map((n) => n.kind)).toEqual(['new_request', 'new_request']);
  });

  it('stores nothing written by a direct database session (seed, imports)', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Imported later');
    const before = (await db.sql('select count(*)::int n from notifications')).rows[0].n;
    await db.sql(`insert into messages (ticket_id, author_id, body) values ($1, $2, 'imported')`, [
      t.id,
      PEOPLE.acmeCustomer.id,
    ]);
    await db.sql('update tickets set assignee_id = $1 where id = $2', [PEOPLE.acmeAgent.id, t.id]);
    expect((await db.sql('select count(*)::int n from notifications')).rows[0].n).toBe(before);
  });
});

describe('the daily digest', () => {
  it('holds the notifications of members who chose it, then mails one digest at 8:00 in the workspace’s time zone', async () => {
    await setMine('acmeAgent2', [
      { kind: 'new_request', email: 'digest', in_app: true },
      { kind: 'assigned', email: 'digest', in_app: true },
    ]);
    const t1 = await openTicket(db, 'acmeCustomer', 'Digest one');
    const t2 = await openTicket(db, 'acmeCustomer2', 'Digest two');
    await (await db.as('acmeAdmin')).from('tickets').update({ assignee_id: PEOPLE.acmeAgent2.id }).eq('id', t2.id);
    await settled();
    expect(await mails(PEOPLE.acmeAgent2.email, 'Digest')).toEqual([]);
    const job = await asPostgres(`select schedule, command from cron.job where jobname = 'notification-digests'`);
    expect(job.rows).toEqual([{ schedule: '0 * * * *', command: 'select private.send_digests()' }]);
    await db.sql(`update workspaces set time_zone = 'Europe/Berlin' where id = $1`, [ACME]);
    try {
      // 06:00 UTC is 07:00 in Berlin in winter: not yet; 07:00 UTC is 08:00 there.
      expect((await asPostgres(`select private.send_digests('2026-12-01 06:00:00+00') as n`)).rows[0].n).toBe(0);
      expect(
        (await asPostgres(`select private.send_digests('2026-12-01 07:00:00+00') as n`)).rows[0].n,
      ).toBeGreaterThan(0);
      const [digest] = await waitFor('the digest', async () => {
        const found = await mails(PEOPLE.acmeAgent2.email, 'Your daily digest');
        return found.length ? found : null;
      });
      const mail = await (await fetch(`${db.stack.mailUrl}/api/v1/message/${digest.ID}`)).json();
      expect(mail.Subject).toMatch(/^\[Acme Support\] Your daily digest: \d+ notifications$/);
      expect(mail.Text).toContain(`opened a new request #${t1.number} “Digest one”`);
      expect(mail.Text).toContain(`assigned #${t2.number} “Digest two” to you`);
      expect(mail.Text).toContain(`http://localhost:3999/w/acme/tickets/${t1.number}`);
      // The HTML part: the workspace's layout, a link per line.
      expect(mail.HTML).toContain('role="presentation"');
      expect(mail.HTML).toContain(`href="http://localhost:3999/w/acme/tickets/${t1.number}"`);
      // notify marks them emailed once the catcher took the email: waited for, not raced.
      await waitFor('the digest’s notifications marked emailed', async () => {
        const { rows } = await db.sql(
          `select count(*)::int n from notifications where recipient_id = $1 and email = 'digest' and emailed_at is null`,
          [PEOPLE.acmeAgent2.id],
        );
        return rows[0].n === 0;
      });
      // Nothing waits any more: the next 8 o'clock sends nothing to them.
      await settled();
      await asPostgres(`select private.send_digests('2026-12-02 07:00:00+00')`);
      await settled();
      expect(await mails(PEOPLE.acmeAgent2.email, 'Your daily digest')).toHaveLength(1);
    } finally {
      await db.sql(`update workspaces set time_zone = 'UTC' where id = $1`, [ACME]);
    }
  });
});

describe('who reads and changes what', () => {
  it('leaves a notification’s email to the platform: its read-and-claim and its "sent" are the service role’s, the claim taken once', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Claim me');
    const [{ id }] = (
      await db.sql(
        `insert into notifications (workspace_id, recipient_id, kind, ticket_id, in_app, email)
         values ($1, $2, 'assigned', $3, true, 'each') returning id`,
        [ACME, PEOPLE.acmeAgent2.id, t.id],
      )
    ).rows;
    const messageId = `<n.${id}@${DOMAIN}>`;
    for (const client of [db.anon(), await db.as('acmeAgent2'), await db.as('acmeAdmin')]) {
      const read = await client.rpc('notification_email', { p_notification_id: id, p_message_id: messageId });
      expect(read.error).not.toBeNull();
      expect(read.data).toBeNull();
      const sent = await client.rpc('notification_emailed', {
        p_notification_id: id,
        p_message_id: messageId,
        p_recipient: PEOPLE.acmeAgent2.email,
      });
      expect(sent.error).not.toBeNull();
    }
    const state = async () =>
      (
        await db.sql(
          `select n.emailed_at, d.status from notifications n
             left join email_deliveries d on d.message_id = $2 where n.id = $1`,
          [id, messageId],
        )
      ).rows[0];
    expect(await state()).toEqual({ emailed_at: null, status: null });
    // The platform: what the email shows, claimed once; a second call finds it being sent.
    const service = db.service();
    const first = await service.rpc('notification_email', { p_notification_id: id, p_message_id: messageId });
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({
      id,
      kind: 'assigned',
      email: 'each',
      recipient_email: PEOPLE.acmeAgent2.email,
      actor: null,
      message: null,
      ticket: { id: t.id, number: t.number, subject: 'Claim me', ticket_followers: [] },
      workspace: { id: ACME, slug: 'acme' },
      claimed: true,
    });
    expect(first.data.ticket.replies).toHaveLength(1);
    const again = await service.rpc('notification_email', { p_notification_id: id, p_message_id: messageId });
    expect(again.data.claimed).toBe(false);
    expect(await state()).toEqual({ emailed_at: null, status: 'sending' });
    const sent = await service.rpc('notification_emailed', {
      p_notification_id: id,
      p_message_id: messageId,
      p_recipient: PEOPLE.acmeAgent2.email,
    });
    expect(sent.error).toBeNull();
    expect(await state()).toEqual({ emailed_at: expect.any(Date), status: 'sent' });
    expect(
      (await service.rpc('notification_email', { p_notification_id: id, p_message_id: messageId })).data.claimed,
    ).toBe(false);
    expect(
      (await service.rpc('notification_email', { p_notification_id: crypto.randomUUID(), p_message_id: messageId }))
        .data,
    ).toBeNull();
  });

  it('a member reads and marks only their own notifications; the database sets the time; nobody writes one', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Mark me');
    const agent = await db.as('acmeAgent');
    const { data: mine } = await agent
      .from('notifications')
      .select('id, recipient_id, ticket_id')
      .eq('ticket_id', t.id);
    expect(mine).toEqual([expect.objectContaining({ recipient_id: PEOPLE.acmeAgent.id, ticket_id: t.id })]);
    // Another member's, another workspace's team, a customer: nothing of agent's.
    for (const who of ['acmeAgent2', 'globexAgent', 'acmeCustomer'] as const) {
      const { data } = await (await db.as(who)).from('notifications').select('id').eq('id', mine![0].id);
      expect(data).toEqual([]);
    }
    const { data: stolen } = await (await db.as('acmeAgent2'))
      .from('notifications')
      .update({ read_at: new Date().toISOString() })
      .eq('id', mine![0].id)
      .select('id');
    expect(stolen).toEqual([]);
    // Marked read at the database's time, not the one sent.
    const { data: read, error } = await agent
      .from('notifications')
      .update({ read_at: '2000-01-01T00:00:00Z' })
      .eq('id', mine![0].id)
      .select('read_at');
    expect(error).toBeNull();
    expect(new Date(read![0].read_at).getFullYear()).toBeGreaterThan(2020);
    // No other column, no insert, no delete.
    expect((await agent.from('notifications').update({ kind: 'mention' }).eq('id', mine![0].id)).error?.code).toBe(
      '42501',
    );
    const insert = await agent.from('notifications').insert({
      workspace_id: ACME,
      recipient_id: PEOPLE.acmeAgent2.id,
      kind: 'mention',
      in_app: true,
      email: 'each',
    });
    expect(insert.error?.code).toBe('42501');
    expect((await agent.from('notifications').delete().eq('id', mine![0].id)).error?.code).toBe('42501');
    // And no one calls the function that makes them.
    expect((await agent.rpc('notify_member' as never, {} as never)).error).not.toBeNull();
  });

  it('settings: a member changes only their own; only admins set the team’s defaults; both only in their workspaces', async () => {
    const agent = await db.as('acmeAgent');
    const team = await agent.rpc('save_notification_settings', {
      p_workspace_id: ACME,
      p_settings: [{ kind: 'new_request', email: 'each', in_app: true }],
      p_team: true,
    });
    expect(team.error?.message).toBe('forbidden');
    const direct = await agent
      .from('notification_defaults')
      .insert({ workspace_id: ACME, kind: 'new_request', email: 'each', in_app: true });
    expect(direct.error?.code).toBe('42501');
    const someoneElse = await agent.from('notification_settings').insert({
      workspace_id: ACME,
      user_id: PEOPLE.acmeAgent2.id,
      kind: 'assigned',
      email: 'off',
      in_app: false,
    });
    expect(someoneElse.error?.code).toBe('42501');
    const elsewhere = await (await db.as('globexAgent')).rpc('save_notification_settings', {
      p_workspace_id: ACME,
      p_settings: [{ kind: 'assigned', email: 'off', in_app: false }],
    });
    expect(elsewhere.error?.message).toBe('not_found');
    // Members read the team's defaults; nobody else does.
    await (await db.as('acmeAdmin')).rpc('save_notification_settings', {
      p_workspace_id: ACME,
      p_settings: [{ kind: 'assigned', email: 'digest', in_app: true }],
      p_team: true,
    });
    expect((await agent.from('notification_defaults').select('kind')).data).toEqual([{ kind: 'assigned' }]);
    expect((await (await db.as('globexAgent')).from('notification_defaults').select('kind')).data).toEqual([]);
    expect((await (await db.as('acmeCustomer')).from('notification_defaults').select('kind')).data).toEqual([]);
  });

  it('someone who leaves a workspace takes its notifications and settings along', async () => {
    const id = await createUser(db, 'leaver@example.test');
    await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'agent')`, [ACME, id]);
    await db.sql(
      `insert into notification_settings (workspace_id, user_id, kind, email, in_app) values ($1, $2, 'assigned', 'off', true)`,
      [ACME, id],
    );
    await openTicket(db, 'acmeCustomer', 'Before leaving');
    expect((await db.sql('select count(*)::int n from notifications where recipient_id = $1', [id])).rows[0].n).toBe(1);
    await db.sql('delete from memberships where user_id = $1', [id]);
    expect((await db.sql('select count(*)::int n from notifications where recipient_id = $1', [id])).rows[0].n).toBe(0);
    expect((await db.sql('select count(*)::int n from notification_settings where user_id = $1', [id])).rows[0].n).toBe(
      0,
    );
  });
});
