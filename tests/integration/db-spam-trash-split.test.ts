// Spam, Trash and split in the database (docs/product.md#spam-and-trash, docs/product.md#split;
// docs/decisions/063-spam-and-trash.md, docs/decisions/053-merge-and-split.md), and the history line of a custom
// field's change (docs/product.md#customers-companies-and-ticket-fields). Per role: who may move, empty, purge and
// split; what Spam and Trash leave out (views and counts, the requester's portal, reports, notifications, assignment,
// the SLA clock, the team's messages); the sender's later mail landing in Spam; the purge job; two splits of one
// message at once ending with one.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../scripts/lib/wait.ts';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE, backendPid, createUser, openTicket, userJwt, waitingFor } from '../support/db.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];
const member = (role: Role) => role === 'acmeAdmin' || role === 'acmeAgent';

const db = dbFixture();
const clients = {} as Record<Role, SupabaseClient>;
beforeAll(async () => {
  for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
});

const place = async (id: string) =>
  (await db.sql('select spam_at is not null as spam, trashed_at is not null as trash from tickets where id = $1', [id]))
    .rows[0] as { spam: boolean; trash: boolean } | undefined;
const move = (c: SupabaseClient, ids: string[], action: string) =>
  c.rpc('move_tickets', { p_ticket_ids: ids, p_action: action });
const inbox = async (view: string) => {
  const { data, error } = await clients.acmeAgent.rpc('inbox', { p_slug: 'acme', p_view: view, p_limit: 1000 });
  if (error) throw new Error(`inbox: ${error.message}`);
  return data as { counts: Record<string, number>; total: number | null; tickets: { id: string }[] };
};
const ids = async (view: string) => (await inbox(view)).tickets.map((t) => t.id);
/** An email from `from`, as inbound-email hands it over (a reply to `ticket`'s thread, or a new request). */
const mail = (from: string, ticket: string | null, body = 'Buy cheap watches') =>
  db.service().rpc('receive_email', {
    p_provider_message_id: crypto.randomUUID(),
    p_message_id: `<${crypto.randomUUID()}@mail.test>`,
    p_from: from,
    p_workspace_slug: 'acme',
    p_ticket_id: ticket,
    p_subject: 'Cheap watches',
    p_body: body,
  });
const events = async (id: string) =>
  (
    await db.sql(
      'select type, actor_id, "from", "to", field from ticket_events where ticket_id = $1 order by created_at, id',
      [id],
    )
  ).rows;
/** A client signed in as `who`, as Auth's token would sign them in. */
const signedIn = async (who: { id: string; email: string }) =>
  createClient(db.stack.apiUrl, db.stack.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { Authorization: `Bearer ${await userJwt(db.stack.jwtSecret, who)}` } },
  });
/**
 * A request of a new customer of its own, through the portal's create_ticket: marking it as spam marks
 * only them (the seeded customers stay clean for the other tests).
 */
const strangerTicket = async () => {
  const email = `customer-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const requester = await createUser(db, email);
  const client = await signedIn({ id: requester, email });
  const { data, error } = await client.rpc('create_ticket', {
    p_workspace_slug: 'acme',
    p_subject: 'Hello',
    p_body: 'Hi there',
  });
  if (error) throw new Error(`create_ticket: ${error.message}`);
  return { id: data[0].id as string, number: data[0].number as number, requester, email, client };
};
const notificationsOf = async (ticket: string) =>
  (await db.sql('select count(*)::int as n from notifications where ticket_id = $1', [ticket])).rows[0].n as number;

describe('Spam and Trash, per role', () => {
  for (const role of ROLES)
    for (const action of ['spam', 'trash'] as const)
      it(`${role}: ${member(role) ? 'moves' : 'may not move'} a ticket to ${action === 'spam' ? 'Spam' : 'Trash'}`, async () => {
        const t = await strangerTicket();
        const { data, error } = await move(clients[role], [t.id], action);
        if (member(role)) expect(data).toEqual({ updated: 1, skipped: {} });
        else expect(error?.message, role).toMatch(role === 'anon' ? /permission denied/ : /^not_found$/);
        expect(await place(t.id)).toEqual({
          spam: member(role) && action === 'spam',
          trash: member(role) && action === 'trash',
        });
      });

  for (const role of ROLES)
    it(`${role}: ${role === 'acmeAdmin' ? 'empties' : 'may not empty'} the workspace's Trash`, async () => {
      const t = await openTicket(db);
      expect((await move(clients.acmeAgent, [t.id], 'trash')).error).toBeNull();
      const { data, error } = await clients[role].rpc('empty_trash', { p_workspace_id: ACME });
      if (role === 'acmeAdmin') expect(data).toBeGreaterThanOrEqual(1);
      else
        expect(error?.message, role).toMatch(
          role === 'anon' ? /permission denied/ : role === 'acmeAgent' ? /^forbidden$/ : /^not_found$/,
        );
      expect(await place(t.id)).toEqual(role === 'acmeAdmin' ? undefined : { spam: false, trash: true });
    });

  it('only members read who is marked as spam; nobody writes it directly', async () => {
    const sender = await createUser(db);
    await db.sql('insert into spam_senders (workspace_id, user_id) values ($1, $2)', [ACME, sender]);
    for (const role of ROLES) {
      const { data } = await clients[role].from('spam_senders').select('user_id').eq('user_id', sender);
      expect(data?.length ?? 0, role).toBe(member(role) ? 1 : 0);
    }
    const { error } = await clients.acmeAdmin
      .from('spam_senders')
      .insert({ workspace_id: ACME, user_id: PEOPLE.acmeCustomer2.id });
    expect(error?.code).toBe('42501');
  });
});

describe('Spam', () => {
  it('leaves every other view and count, is listed in Spam, and comes back with "Not spam"', async () => {
    const t = await strangerTicket();
    const before = await inbox('unassigned');
    expect(before.tickets.map((x) => x.id)).toContain(t.id);
    expect((await move(clients.acmeAgent, [t.id], 'spam')).error).toBeNull();
    const after = await inbox('unassigned');
    expect(after.tickets.map((x) => x.id)).not.toContain(t.id);
    expect(after.counts.unassigned).toBe(before.counts.unassigned - 1);
    expect(after.counts.all).toBe(before.counts.all - 1);
    expect(after.counts.spam).toBe(before.counts.spam + 1);
    for (const view of ['mine', 'open', 'all', 'snoozed', 'trash']) expect(await ids(view), view).not.toContain(t.id);
    const spam = await inbox('spam');
    expect(spam.tickets.map((x) => x.id)).toContain(t.id);
    expect(spam.total).toBe(spam.counts.spam);
    // The counts still add up to what is there.
    const { rows } = await db.sql(
      `select count(*) filter (where spam_at is null and trashed_at is null)::int as listed,
              count(*) filter (where spam_at is not null and trashed_at is null)::int as spam from tickets where workspace_id = $1`,
      [ACME],
    );
    expect([after.counts.all, after.counts.spam]).toEqual([rows[0].listed, rows[0].spam]);
    // The requester sees their request as ever.
    expect((await t.client.from('tickets').select('status').eq('id', t.id)).data).toEqual([{ status: 'new' }]);

    expect((await move(clients.acmeAdmin, [t.id], 'not_spam')).data).toEqual({ updated: 1, skipped: {} });
    expect(await ids('unassigned')).toContain(t.id);
    expect((await events(t.id)).map((e) => [e.type, e.actor_id])).toEqual([
      ['created', t.requester],
      ['spam', PEOPLE.acmeAgent.id],
      ['not_spam', PEOPLE.acmeAdmin.id],
    ]);
  });

  it("sends the sender's later mail and portal requests to Spam, telling no one, assigning no one, running no clock", async () => {
    const email = `spammer-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const sender = await createUser(db, email);
    const first = await mail(email, null);
    expect(first.error).toBeNull();
    const firstId = first.data.ticket_id as string;
    // A request that isn't spam yet tells the team.
    expect(await notificationsOf(firstId)).toBeGreaterThan(0);
    // An older request of theirs, left where it is.
    const older = await mail(email, null, 'A real question');
    const olderId = older.data.ticket_id as string;
    expect((await move(clients.acmeAgent, [firstId], 'spam')).error).toBeNull();
    expect(
      (await db.sql('select user_id from spam_senders where workspace_id = $1 and user_id = $2', [ACME, sender])).rows,
    ).toHaveLength(1);

    // Round robin and a first-response target are on: neither applies to Spam.
    await db.sql(
      `insert into assignment_settings (workspace_id, mode) values ($1, 'round_robin')
                  on conflict (workspace_id) do update set mode = 'round_robin'`,
      [ACME],
    );
    await db.sql(
      `insert into sla_targets (workspace_id, priority, first_response_minutes, business_hours) values ($1, 'normal', 60, false)
                  on conflict (workspace_id, priority) do update set first_response_minutes = 60, business_hours = false`,
      [ACME],
    );
    const olderBefore = await notificationsOf(olderId);
    try {
      const request = await mail(email, null, 'More watches');
      expect(request.data.outcome).toBe('request');
      const reply = await mail(email, olderId, 'And more');
      expect(reply.data).toMatchObject({ outcome: 'reply', ticket_id: olderId });
      const portal = await (await db.as('acmeCustomer')).rpc('create_ticket', {
        p_workspace_slug: 'acme',
        p_subject: 'x',
        p_body: 'y',
      });
      const { rows } = await db.sql(
        `select t.id, t.spam_at is not null as spam, t.assignee_id, s.due_at
           from tickets t left join ticket_sla s on s.ticket_id = t.id where t.id = any ($1)`,
        [[request.data.ticket_id, olderId, portal.data[0].id]],
      );
      const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
      for (const id of [request.data.ticket_id, olderId])
        expect(byId[id], id).toMatchObject({ spam: true, assignee_id: null, due_at: null });
      expect(await notificationsOf(request.data.ticket_id)).toBe(0);
      expect(await notificationsOf(olderId)).toBe(olderBefore);
      // Someone else's portal request still goes the usual way: assigned, with a clock.
      expect(byId[portal.data[0].id].spam).toBe(false);
      expect(byId[portal.data[0].id].assignee_id).not.toBeNull();
      expect(byId[portal.data[0].id].due_at).not.toBeNull();
      expect((await events(request.data.ticket_id)).map((e) => [e.type, e.actor_id])).toEqual([
        ['created', sender],
        ['spam', null],
      ]);
      // The sender's own portal request lands in Spam too.
      const senderClient = await signedIn({ id: sender, email });
      const own = await senderClient.rpc('create_ticket', {
        p_workspace_slug: 'acme',
        p_subject: 'Watches',
        p_body: 'Cheap',
      });
      expect(own.error).toBeNull();
      expect(await place(own.data[0].id)).toEqual({ spam: true, trash: false });
      // They never learn it: their request reads as any other.
      expect((await senderClient.from('tickets').select('status').eq('id', own.data[0].id)).data).toEqual([
        { status: 'new' },
      ]);
    } finally {
      await db.sql(`update assignment_settings set mode = 'off' where workspace_id = $1`, [ACME]);
      await db.sql('delete from sla_targets where workspace_id = $1', [ACME]);
    }

    // "Not spam" brings back the ticket and the sender: their next mail is a request like any other.
    expect((await move(clients.acmeAgent, [firstId], 'not_spam')).error).toBeNull();
    expect((await db.sql('select 1 from spam_senders where user_id = $1', [sender])).rows).toHaveLength(0);
    const clean = await mail(email, null, 'Sorry, a real question');
    expect(await place(clean.data.ticket_id)).toEqual({ spam: false, trash: false });
    expect(await notificationsOf(clean.data.ticket_id)).toBeGreaterThan(0);
  });

  it("refuses the team's reply and note on a ticket in Spam or Trash, and merging it", async () => {
    const [s, t, other] = [await strangerTicket(), await openTicket(db), await openTicket(db)];
    await move(clients.acmeAgent, [s.id], 'spam');
    await move(clients.acmeAgent, [t.id], 'trash');
    for (const kind of ['reply', 'note']) {
      const post = (id: string) =>
        clients.acmeAgent.rpc('post_message', { p_ticket_id: id, p_body: 'Hello', p_kind: kind });
      expect((await post(s.id)).error?.message, kind).toBe('ticket_in_spam');
      expect((await post(t.id)).error?.message, kind).toBe('ticket_in_trash');
    }
    const merge = (a: string, b: string) => clients.acmeAgent.rpc('merge_tickets', { p_ticket_id: a, p_into: b });
    expect((await merge(s.id, other.id)).error?.message).toBe('ticket_in_spam');
    expect((await merge(other.id, t.id)).error?.message).toBe('ticket_in_trash');
  });

  it('asks no satisfaction survey when a ticket in Spam or Trash is solved (private.survey_wanted)', async () => {
    const [spam, trash, kept] = [await strangerTicket(), await openTicket(db), await openTicket(db)];
    await move(clients.acmeAgent, [spam.id], 'spam');
    await move(clients.acmeAgent, [trash.id], 'trash');
    const surveys = async (id: string) =>
      (await db.sql('select count(*)::int as n from csat_surveys where ticket_id = $1', [id])).rows[0].n as number;
    for (const t of [spam, trash, kept])
      expect((await clients.acmeAgent.from('tickets').update({ status: 'solved' }).eq('id', t.id)).error).toBeNull();
    expect([await surveys(spam.id), await surveys(trash.id), await surveys(kept.id)]).toEqual([0, 0, 1]);
  });

  it('moves in bulk: merged tickets skipped as such, another workspace as not found', async () => {
    const [a, b, c] = [await strangerTicket(), await strangerTicket(), await strangerTicket()];
    expect((await clients.acmeAgent.rpc('merge_tickets', { p_ticket_id: c.id, p_into: b.id })).error).toBeNull();
    const globex = (await db.sql('select id from tickets where workspace_id <> $1 limit 1', [ACME])).rows[0].id;
    const bulk = (action: string) =>
      clients.acmeAgent.rpc('bulk_update_tickets', { p_ticket_ids: [a.id, b.id, c.id, globex], p_action: action });
    expect((await bulk('spam')).data).toEqual({ updated: 2, skipped: { merged: 1, not_found: 1 } });
    expect((await bulk('spam')).data).toEqual({ updated: 0, skipped: { merged: 1, unchanged: 2, not_found: 1 } });
    expect((await bulk('trash')).data).toEqual({ updated: 2, skipped: { merged: 1, not_found: 1 } });
    // In Trash and Spam: Trash is where it is listed; restored, back to Spam.
    expect(await ids('trash')).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(await ids('spam')).not.toContain(a.id);
    expect((await bulk('restore')).data).toEqual({ updated: 2, skipped: { unchanged: 1, not_found: 1 } });
    expect(await ids('spam')).toEqual(expect.arrayContaining([a.id, b.id]));
  });
});

describe('Trash', () => {
  it('is gone for the requester (portal, thread, mail) and from the reports; Restore brings it all back', async () => {
    const report = async () => {
      const today = new Date().toISOString().slice(0, 10);
      const { data, error } = await clients.acmeAdmin.rpc('workspace_report', {
        p_slug: 'acme',
        p_from: today,
        p_to: today,
      });
      if (error) throw new Error(error.message);
      return data as { created: number };
    };
    const t = await openTicket(db);
    const created = (await report()).created;
    expect((await move(clients.acmeAgent, [t.id], 'trash')).error).toBeNull();
    expect((await report()).created).toBe(created - 1);
    expect((await clients.acmeCustomer.from('tickets').select('id').eq('id', t.id)).data).toEqual([]);
    expect((await clients.acmeCustomer.from('messages').select('id').eq('ticket_id', t.id)).data).toEqual([]);
    // Their answer by mail to the trashed thread is a new request, not lost in Trash.
    const answer = await mail(PEOPLE.acmeCustomer.email, t.id, 'Any news?');
    expect(answer.data.outcome).toBe('request');
    expect(answer.data.ticket_id).not.toBe(t.id);
    // The requester card of their other tickets leaves it out.
    const card = await clients.acmeAgent.rpc('requester_card', { p_ticket_id: answer.data.ticket_id });
    expect(card.data.recent.map((r: { number: number }) => r.number)).not.toContain(t.number);

    expect((await move(clients.acmeAgent, [t.id], 'restore')).error).toBeNull();
    // Back in the count, beside the request the mailed answer opened.
    expect((await report()).created).toBe(created + 1);
    expect((await clients.acmeCustomer.from('tickets').select('id').eq('id', t.id)).data).toEqual([{ id: t.id }]);
    expect((await events(t.id)).map((e) => e.type)).toEqual(['created', 'trashed', 'restored']);
  });

  it('is deleted for good by the purge job after 30 days, with the tickets merged into it and its files', async () => {
    const [old, recent, secondary] = [await openTicket(db), await openTicket(db), await openTicket(db)];
    expect(
      (await clients.acmeAgent.rpc('merge_tickets', { p_ticket_id: secondary.id, p_into: old.id })).error,
    ).toBeNull();
    const message = (await db.sql('select id from messages where ticket_id = $1 limit 1', [old.id])).rows[0].id;
    await db.sql(
      `insert into attachments (id, message_id, ticket_id, workspace_id, uploader_id, path, file_name, size, mime_type)
       values (gen_random_uuid(), $1, $2, $3, $4, $5, 'invoice.pdf', 10, 'application/pdf')`,
      [message, old.id, ACME, PEOPLE.acmeCustomer.id, `${ACME}/${old.id}/${crypto.randomUUID()}/invoice.pdf`],
    );
    await move(clients.acmeAgent, [old.id, recent.id], 'trash');
    await db.sql(`update tickets set trashed_at = now() - interval '30 days 1 minute' where id = $1`, [old.id]);
    await db.sql(`update tickets set trashed_at = now() - interval '29 days' where id = $1`, [recent.id]);
    const { rows } = await db.sql('select private.purge_trash() as n');
    expect(rows[0].n).toBe(1);
    for (const id of [old.id, secondary.id]) expect(await place(id), id).toBeUndefined();
    expect((await db.sql('select count(*)::int as n from attachments where ticket_id = $1', [old.id])).rows[0].n).toBe(
      0,
    );
    expect(await place(recent.id)).toEqual({ spam: false, trash: true });
    // The scheduler runs it every minute.
    const job = await db.sql(`select schedule, command from cron.job where jobname = 'purge-trash'`);
    expect(job.rows).toEqual([{ schedule: '* * * * *', command: 'select private.purge_trash()' }]);
  });

  it('purges a run at most, the oldest first, and what a run leaves goes on the next', async () => {
    const batch = (await db.sql('select private.purge_batch() as n')).rows[0].n as number;
    const made = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject)
       select $1, $2, 'Purge ' || g from generate_series(1, $3::int + 2) g returning id`,
      [ACME, PEOPLE.acmeCustomer.id, batch],
    );
    const all = made.rows.map((r) => r.id as string);
    expect((await move(clients.acmeAgent, all, 'trash')).error).toBeNull();
    // All 30 days in Trash and more, the first two the most recently trashed.
    await db.sql(
      `update tickets t set trashed_at = now() - interval '31 days' - (x.i * interval '1 second')
         from unnest($1::uuid[]) with ordinality x(id, i) where t.id = x.id`,
      [all],
    );
    const left = async () =>
      (await db.sql(`select id from tickets where id = any ($1::uuid[]) order by trashed_at desc`, [all])).rows.map(
        (r) => r.id as string,
      );
    expect((await db.sql('select private.purge_trash() as n')).rows[0].n).toBe(batch);
    expect(await left()).toEqual(all.slice(0, 2));
    expect((await db.sql('select private.purge_trash() as n')).rows[0].n).toBe(2);
    expect(await left()).toEqual([]);
  });

  it("every foreign key to a ticket or a message leads an index, so a ticket's delete reads no whole table", async () => {
    const { rows } = await db.sql(
      `select c.conrelid::regclass::text as "table", a.attname::text as "column"
         from pg_constraint c
         join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
        where c.contype = 'f' and c.confrelid in ('public.tickets'::regclass, 'public.messages'::regclass)
          and not exists (select 1 from pg_index i where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1])
        order by 1, 2`,
    );
    expect(rows).toEqual([]);
  });
});

describe('split', () => {
  const split = (c: SupabaseClient, ticket: string, message: string) =>
    c.rpc('split_message', { p_ticket_id: ticket, p_message_id: message });
  /** A ticket whose requester wrote twice; the second message's id. */
  const twoMessages = async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Two questions');
    const second = await clients.acmeCustomer.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Also: my invoice is wrong',
    });
    if (second.error) throw new Error(second.error.message);
    return { ...t, message: second.data.id as string };
  };

  for (const role of ROLES)
    it(`${role}: ${member(role) ? 'splits' : 'may not split'} a message of the requester into a new ticket`, async () => {
      const t = await twoMessages();
      const { data, error } = await split(clients[role], t.id, t.message);
      if (member(role)) {
        expect(data).toMatchObject({ from: t.number });
        expect(data.number).toBeGreaterThan(t.number);
      } else expect(error?.message, role).toMatch(role === 'anon' ? /permission denied/ : /^not_found$/);
      const { rows } = await db.sql('select ticket_id from messages where id = $1', [t.message]);
      expect(rows[0].ticket_id === t.id, role).toBe(!member(role));
    });

  it('moves the message and its files to a new ticket of the same requester, linked both ways in the history', async () => {
    const t = await twoMessages();
    const file = crypto.randomUUID();
    await db.sql(
      `insert into attachments (id, message_id, ticket_id, workspace_id, uploader_id, path, file_name, size, mime_type)
       values ($1, $2, $3, $4, $5, $6, 'invoice.pdf', 10, 'application/pdf')`,
      [file, t.message, t.id, ACME, PEOPLE.acmeCustomer.id, `${ACME}/${t.id}/${file}/invoice.pdf`],
    );
    const { data, error } = await split(clients.acmeAgent, t.id, t.message);
    expect(error).toBeNull();
    const made = (await db.sql('select * from tickets where workspace_id = $1 and number = $2', [ACME, data.number]))
      .rows[0];
    expect(made).toMatchObject({ requester_id: PEOPLE.acmeCustomer.id, subject: 'Two questions', status: 'new' });
    expect((await db.sql('select id from messages where ticket_id = $1', [made.id])).rows).toEqual([{ id: t.message }]);
    expect((await db.sql('select body from messages where ticket_id = $1', [t.id])).rows).toEqual([
      { body: 'Please help, it is smoking.' },
    ]);
    expect((await db.sql('select ticket_id from attachments where id = $1', [file])).rows).toEqual([
      { ticket_id: made.id },
    ]);
    // The requester reads it as their own request.
    expect((await clients.acmeCustomer.from('messages').select('id').eq('ticket_id', made.id)).data).toEqual([
      { id: t.message },
    ]);
    // Search follows the words.
    const found = async (id: string) =>
      (
        await db.sql(`select search @@ websearch_to_tsquery('english', 'invoice') as hit from tickets where id = $1`, [
          id,
        ])
      ).rows[0].hit;
    expect([await found(t.id), await found(made.id)]).toEqual([false, true]);
    expect((await events(t.id)).at(-1)).toMatchObject({
      type: 'split_to',
      actor_id: PEOPLE.acmeAgent.id,
      to: String(data.number),
    });
    expect((await events(made.id)).map((e) => [e.type, e.from])).toEqual([
      ['created', null],
      ['split_from', String(t.number)],
    ]);
  });

  it("refuses a note or the team's reply, a ticket's only message, and a message of another ticket", async () => {
    const t = await twoMessages();
    const note = await clients.acmeAgent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Internal', p_kind: 'note' });
    const reply = await clients.acmeAgent.rpc('post_message', { p_ticket_id: t.id, p_body: 'We are on it' });
    expect((await split(clients.acmeAgent, t.id, note.data.id)).error?.message).toBe('split_not_customer');
    expect((await split(clients.acmeAgent, t.id, reply.data.id)).error?.message).toBe('split_not_customer');
    const only = await openTicket(db);
    const first = (await db.sql('select id from messages where ticket_id = $1', [only.id])).rows[0].id;
    expect((await split(clients.acmeAgent, only.id, first)).error?.message).toBe('split_only_message');
    expect((await split(clients.acmeAgent, only.id, t.message)).error?.message).toBe('message_moved');
  });

  it('two splits of one message at once: the first makes the ticket, the second is refused', async () => {
    const t = await twoMessages();
    const session = async (me: string) => {
      const c = new pg.Client({ connectionString: db.stack.dbUrl });
      c.on('error', () => undefined);
      await c.connect();
      await c.query('begin');
      await c.query(`select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`, [
        JSON.stringify({ sub: me, role: 'authenticated' }),
      ]);
      return c;
    };
    const [ca, cb] = [await session(PEOPLE.acmeAgent.id), await session(PEOPLE.acmeAdmin.id)];
    try {
      await ca.query('select public.split_message($1, $2)', [t.id, t.message]);
      const [pidA, pidB] = [await backendPid(ca), await backendPid(cb)];
      const second = cb.query('select public.split_message($1, $2)', [t.id, t.message]).then(
        () => 'split',
        (e: { message: string }) => e.message,
      );
      await waitFor("the second split queued behind the first's transaction", async () =>
        (await waitingFor(db, pidA)).some((s) => s.pid === pidB),
      );
      await ca.query('commit');
      expect(await second).toBe('message_moved');
      await cb.query('rollback');
    } finally {
      await Promise.all([ca.end(), cb.end()]);
    }
    const { rows } = await db.sql(
      `select count(*)::int as n from ticket_events where type = 'split_to' and ticket_id = $1`,
      [t.id],
    );
    expect(rows[0].n).toBe(1);
  });
});

describe("a custom field's change in the history", () => {
  it('records who set or emptied which field, for members only', async () => {
    const t = await openTicket(db);
    const label = `Order ${crypto.randomUUID().slice(0, 6)}`;
    const field = (
      await db.sql(`insert into ticket_fields (workspace_id, label, kind) values ($1, $2, 'text') returning id`, [
        ACME,
        label,
      ])
    ).rows[0].id;
    const box = (
      await db.sql(`insert into ticket_fields (workspace_id, label, kind) values ($1, $2, 'checkbox') returning id`, [
        ACME,
        `${label} ok`,
      ])
    ).rows[0].id;
    const set = (values: Record<string, string>) =>
      clients.acmeAgent.rpc('set_ticket_fields', { p_ticket_id: t.id, p_values: values });
    expect((await set({ [field]: '1234', [box]: 'true' })).error).toBeNull();
    expect((await set({ [field]: '1234' })).error).toBeNull(); // unchanged: nothing written
    expect((await set({ [field]: '', [box]: '' })).error).toBeNull();
    // One call writes its fields in the order of their ids: each call's lines, sorted.
    const lines = (await events(t.id))
      .filter((e) => e.type === 'field')
      .map((e) => [e.actor_id, e.field, e.from, e.to]);
    const byField = (a: unknown[], b: unknown[]) => String(a[1]).localeCompare(String(b[1]));
    expect([...lines.slice(0, 2).sort(byField), ...lines.slice(2).sort(byField)]).toEqual([
      [PEOPLE.acmeAgent.id, label, null, '1234'],
      [PEOPLE.acmeAgent.id, `${label} ok`, null, 'yes'],
      [PEOPLE.acmeAgent.id, label, '1234', null],
      [PEOPLE.acmeAgent.id, `${label} ok`, 'yes', null],
    ]);
    const read = async (role: Role) =>
      (await clients[role].from('ticket_events').select('id').eq('ticket_id', t.id).eq('type', 'field')).data?.length ??
      0;
    expect(await read('acmeAdmin')).toBe(4);
    expect(await read('acmeCustomer')).toBe(0);
    expect(await read('globexAdmin')).toBe(0);
  });
});
