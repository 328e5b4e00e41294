// Many people at once: numbering, claiming and crossing replies.
import { describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import pg from 'pg';
import { ACME, GLOBEX, PEOPLE, backendPid, createUser, openTicket, waitingFor, type Person } from '../support/db.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

describe('concurrency', () => {
  const db = dbFixture();

  it('gives 50 concurrent create_ticket calls 50 distinct consecutive numbers', async () => {
    const before = (await db.sql(`select ticket_seq from workspaces where id = $1`, [ACME])).rows[0].ticket_seq;
    const people: Person[] = ['acmeCustomer', 'acmeCustomer2', 'globexCustomer'];
    const tickets = await Promise.all(
      Array.from({ length: 50 }, (_, i) => openTicket(db, people[i % 3], `Concurrent request ${i}`)),
    );
    const numbers = tickets.map((t) => t.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => before + 1 + i));
  });

  it('never hands the same ticket to two of 20 agents claiming at once', async () => {
    // 20 agents in Acme, 30 unassigned requests waiting.
    const agents = Array.from({ length: 20 }, (_, i) => `e0000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    await db.sql(
      `with u as (insert into auth.users (instance_id, id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
         select '00000000-0000-0000-0000-000000000000', id::uuid, 'authenticated', 'authenticated', 'claimer' || n || '@acme.test', '{}', '{}', now(), now()
         from unnest($1::text[]) with ordinality as a(id, n) returning id)
       insert into memberships (workspace_id, user_id, role) select $2, id, 'agent' from u`,
      [agents, ACME],
    );
    await db.sql(
      `update tickets set assignee_id = 'a0000000-0000-4000-8000-000000000002' where workspace_id = $1 and assignee_id is null and status in ('new','open')`,
      [ACME],
    );
    for (let i = 0; i < 30; i++) await openTicket(db, 'acmeCustomer', `Queue ${i}`);
    const { SignJWT } = await import('jose');
    const { createClient } = await import('@supabase/supabase-js');
    const key = new TextEncoder().encode(db.stack.jwtSecret);
    const claims = await Promise.all(
      agents.map(async (id) => {
        const jwt = await new SignJWT({ sub: id, role: 'authenticated', aud: 'authenticated' })
          .setProtectedHeader({ alg: 'HS256' })
          .setExpirationTime('1h')
          .sign(key);
        const c = createClient(db.stack.apiUrl, db.stack.anonKey, {
          auth: { persistSession: false },
          global: { headers: { Authorization: `Bearer ${jwt}` } },
        });
        const { data, error } = await c.rpc('claim_next_ticket', { p_workspace_id: ACME }).maybeSingle();
        expect(error).toBeNull();
        return { agent: id, ticket: data as { id: string; assignee_id: string; status: string } };
      }),
    );
    const ids = claims.map((c) => c.ticket.id);
    expect(new Set(ids).size).toBe(20);
    for (const c of claims) expect(c.ticket).toMatchObject({ assignee_id: c.agent, status: 'open' });
    const { rows } = await db.sql(
      `select count(*)::int as n from tickets where id = any($1) and assignee_id is not null`,
      [ids],
    );
    expect(rows[0].n).toBe(20);
  });

  it('lets exactly one of two agents replying from the same page state through; the traffic cop stops the other', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Which plan should I pick?');
    const { rows } = await db.sql(`select id from messages where ticket_id = $1 order by created_at desc limit 1`, [
      t.id,
    ]);
    const seen = rows[0].id;
    const [a, b] = await Promise.all([db.as('acmeAgent'), db.as('acmeAgent2')]);
    const results = await Promise.all([
      a.rpc('post_message', { p_ticket_id: t.id, p_body: 'Pick Pro.', p_last_seen_message_id: seen }),
      b.rpc('post_message', { p_ticket_id: t.id, p_body: 'Pick Basic.', p_last_seen_message_id: seen }),
    ]);
    const ok = results.filter((r) => !r.error);
    const refused = results.filter((r) => r.error);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0].error).toMatchObject({ message: 'ticket_changed', details: ok[0].data.id });
    const replies = await db.sql(`select count(*)::int as n from messages where ticket_id = $1 and kind = 'reply'`, [
      t.id,
    ]);
    expect(replies.rows[0].n).toBe(2); // the customer's and one agent's
  });

  it("keeps each workspace's numbers consecutive when both take requests at once", async () => {
    const seq = async (ws: string) =>
      (await db.sql(`select ticket_seq from workspaces where id = $1`, [ws])).rows[0].ticket_seq as number;
    const [acmeBefore, globexBefore] = [await seq(ACME), await seq(GLOBEX)];
    const customer = await db.as('acmeCustomer');
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        customer
          .rpc('create_ticket', { p_workspace_slug: i % 2 ? 'globex' : 'acme', p_subject: `Both ${i}`, p_body: 'Hi' })
          .then((r) => ({ ws: i % 2 ? GLOBEX : ACME, r })),
      ),
    );
    for (const [ws, before] of [
      [ACME, acmeBefore],
      [GLOBEX, globexBefore],
    ] as const) {
      const numbers = results
        .filter((x) => x.ws === ws)
        .map((x) => x.r.data[0].number)
        .sort((a: number, b: number) => a - b);
      expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => before + 1 + i));
    }
  });

  it("refuses an agent reply written before the customer's newest message; notes and fresh replies go through", async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Traffic cop, sequential');
    const seen = (await db.sql(`select id from messages where ticket_id = $1`, [t.id])).rows[0].id;
    const customer = await db.as('acmeCustomer');
    const { data: newer } = await customer.rpc('post_message', { p_ticket_id: t.id, p_body: 'One more detail' });
    const agent = await db.as('acmeAgent');
    const stale = await agent.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Answer to the first message',
      p_last_seen_message_id: seen,
    });
    expect(stale.error).toMatchObject({ code: 'P0001', message: 'ticket_changed', details: newer.id });
    const note = await agent.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Internal',
      p_kind: 'note',
      p_last_seen_message_id: seen,
    });
    expect(note.error).toBeNull();
    const fresh = await agent.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Answer to both',
      p_last_seen_message_id: note.data.id,
    });
    expect(fresh.error).toBeNull();
    // The customer is never stopped by the traffic cop.
    expect(
      (await customer.rpc('post_message', { p_ticket_id: t.id, p_body: 'Thanks', p_last_seen_message_id: seen })).error,
    ).toBeNull();
  });

  it('serialises 10 concurrent replies by the team and the customer on one ticket without losing any', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Busy thread');
    const people: Person[] = ['acmeCustomer', 'acmeAgent', 'acmeAgent2', 'acmeAdmin'];
    const clients = await Promise.all(people.map((p) => db.as(p)));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        clients[i % 4].rpc('post_message', { p_ticket_id: t.id, p_body: `Reply ${i}` }),
      ),
    );
    expect(results.filter((r) => r.error)).toEqual([]);
    const { rows } = await db.sql(
      `select count(*)::int n, max(m.created_at) = (select last_message_at from tickets where id = $1) as last_ok from messages m where ticket_id = $1`,
      [t.id],
    );
    expect(rows[0]).toEqual({ n: 11, last_ok: true });
  });

  it('keeps an admin when the last two demote each other at the same moment: the second waits, then gets last_admin', async () => {
    const [a, b] = [await createUser(db, 'twin-a@example.test'), await createUser(db, 'twin-b@example.test')];
    const ws = (await db.sql(`insert into workspaces (slug, name) values ('twins', 'Twins') returning id`)).rows[0].id;
    await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'admin'), ($1, $3, 'admin')`, [
      ws,
      a,
      b,
    ]);
    // Two sessions as PostgREST runs them: role authenticated, the caller's claims, one transaction each.
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
    const [ca, cb] = [await session(a), await session(b)];
    try {
      const first = await ca.query(
        `update public.memberships set role = 'agent' where workspace_id = $1 and user_id = $2`,
        [ws, b],
      );
      expect(first.rowCount).toBe(1);
      // B demotes A while A's change is uncommitted: it queues on the workspace row...
      const [pidA, pidB] = [await backendPid(ca), await backendPid(cb)];
      let answered = false;
      const second = cb
        .query(`update public.memberships set role = 'agent' where workspace_id = $1 and user_id = $2`, [ws, a])
        .then(
          () => 'demoted',
          (e: { message: string }) => e.message,
        )
        .finally(() => (answered = true));
      await waitFor("B's demotion queued behind A's transaction", async () =>
        (await waitingFor(db, pidA)).some((s) => s.pid === pidB),
      );
      expect(answered).toBe(false);
      await ca.query('commit');
      // ...and then sees that A is the only admin left.
      expect(await second).toBe('last_admin');
      await cb.query('rollback');
    } finally {
      await Promise.all([ca.end(), cb.end()]);
    }
    const { rows } = await db.sql(`select user_id, role from memberships where workspace_id = $1 order by role`, [ws]);
    expect(rows).toEqual([
      { user_id: a, role: 'admin' },
      { user_id: b, role: 'agent' },
    ]);
  });

  it('keeps an admin when two admins remove each other at once through PostgREST', async () => {
    const [a, b] = [await createUser(db, 'pair-a@example.test'), await createUser(db, 'pair-b@example.test')];
    const ws = (await db.sql(`insert into workspaces (slug, name) values ('pair', 'Pair') returning id`)).rows[0].id;
    await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'admin'), ($1, $3, 'admin')`, [
      ws,
      a,
      b,
    ]);
    const { SignJWT } = await import('jose');
    const { createClient } = await import('@supabase/supabase-js');
    const key = new TextEncoder().encode(db.stack.jwtSecret);
    const as = async (id: string) => {
      const jwt = await new SignJWT({ sub: id, role: 'authenticated', aud: 'authenticated' })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('1h')
        .sign(key);
      return createClient(db.stack.apiUrl, db.stack.anonKey, {
        auth: { persistSession: false },
        global: { headers: { Authorization: `Bearer ${jwt}` } },
      });
    };
    const [ca, cb] = await Promise.all([as(a), as(b)]);
    const results = await Promise.all([
      ca.from('memberships').delete().eq('workspace_id', ws).eq('user_id', b).select(),
      cb.from('memberships').delete().eq('workspace_id', ws).eq('user_id', a).select(),
    ]);
    // Either one removal went through and the other was refused (or found nobody left to remove it as admin).
    const { rows } = await db.sql(
      `select count(*)::int n from memberships where workspace_id = $1 and role = 'admin'`,
      [ws],
    );
    expect(rows[0].n).toBe(1);
    expect(results.filter((r) => r.data?.length === 1)).toHaveLength(1);
  });
  it("numbers a workspace's requests consecutively and counts each once when 30 with rules, SLA and round robin arrive at once", async () => {
    // A workspace of its own: the three Acme agents, round robin, targets in calendar time, a rule that sets the
    // priority of half the requests and assigns them: the number comes after the rules and the SLA clock, before
    // the assignment (docs/decisions/104-number-late.md).
    const ws = (await db.sql(`insert into workspaces (name, slug) values ('Counted', 'counted') returning id`)).rows[0]
      .id as string;
    await db.sql(`insert into memberships (workspace_id, user_id, role) select $1, unnest($2::uuid[]), 'agent'`, [
      ws,
      [PEOPLE.acmeAdmin.id, PEOPLE.acmeAgent.id, PEOPLE.acmeAgent2.id],
    ]);
    await db.sql(`insert into assignment_settings (workspace_id, mode) values ($1, 'round_robin')`, [ws]);
    await db.sql(
      `insert into sla_targets (workspace_id, priority, first_response_minutes, resolution_minutes, business_hours)
       select $1, p, 60, 480, false from unnest(enum_range(null::ticket_priority)) p`,
      [ws],
    );
    await db.sql(
      `insert into rules (workspace_id, name, event, conditions, actions)
       values ($1, 'Refunds', 'ticket_created', '[{"field": "subject", "op": "contains", "value": "refund"}]',
               jsonb_build_array(jsonb_build_object('type', 'set_priority', 'value', 'high'),
                                 jsonb_build_object('type', 'assign', 'value', $2::text)))`,
      [ws, PEOPLE.acmeAgent2.id],
    );
    const people: Person[] = ['acmeCustomer', 'acmeCustomer2', 'globexCustomer'];
    const clients = await Promise.all(people.map((p) => db.as(p)));
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        clients[i % 3]!.rpc('create_ticket', {
          p_workspace_slug: 'counted',
          p_subject: i % 2 ? `Refund ${i}` : `Question ${i}`,
          p_body: 'Hi',
        }),
      ),
    );
    for (const r of results) expect(r.error).toBeNull();
    const returned = results.map((r) => r.data[0].number as number).sort((a, b) => a - b);
    expect(returned).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const stored = await db.sql(`select number from tickets where workspace_id = $1 order by number`, [ws]);
    expect(stored.rows.map((r) => r.number)).toEqual(returned);
    // Each counted once, in its final state: the tallies, each requester's count, the day's created tickets.
    const drift = await db.sql(
      `with tallied as (select status, priority, assignee_id, snoozed, n from private.ticket_tallies
                         where workspace_id = $1 and n <> 0),
            counted as (select status, priority, assignee_id, snoozed_until is not null as snoozed, count(*) as n
                          from tickets where workspace_id = $1 group by 1, 2, 3, 4)
       select * from ((table tallied except table counted) union all (table counted except table tallied)) d`,
      [ws],
    );
    expect(drift.rows).toEqual([]);
    const customers = await db.sql(`select user_id, tickets from customers where workspace_id = $1 order by user_id`, [
      ws,
    ]);
    expect(customers.rows).toEqual(
      people.map((p) => ({ user_id: PEOPLE[p].id, tickets: 10 })).sort((a, b) => a.user_id.localeCompare(b.user_id)),
    );
    const created = await db.sql(`select sum(created)::int as n from private.report_slots where workspace_id = $1`, [
      ws,
    ]);
    expect(created.rows[0].n).toBe(30);
    // Round robin gave the 15 questions out evenly; every request has its due time.
    const load = await db.sql(
      `select assignee_id, count(*)::int as n from tickets where workspace_id = $1 and subject like 'Question%' group by 1`,
      [ws],
    );
    expect(load.rows.map((r) => r.n).sort()).toEqual([5, 5, 5]);
    const due = await db.sql(`select count(distinct ticket_id)::int as n from ticket_sla where workspace_id = $1`, [
      ws,
    ]);
    expect(due.rows[0].n).toBe(30);
  });
});
