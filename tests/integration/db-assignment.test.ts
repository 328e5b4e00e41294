// Automatic assignment (docs/product.md "Automatic assignment", supabase/schemas/90_promises.sql):
// round robin and least open among available members, under a cap, fair when 10 clients create 100
// tickets at once; away members get nothing; reopened tickets of someone away move; what finds nobody
// waits for someone to become available; who may change what.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { createUser, userJwt } from '../support/db.ts';

describe('automatic assignment', () => {
  const db = dbFixture();

  async function clientFor(id: string, email: string): Promise<SupabaseClient> {
    const jwt = await userJwt(db.stack.jwtSecret, { id, email });
    return createClient(db.stack.apiUrl, db.stack.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { headers: { Authorization: `Bearer ${jwt}` } },
    });
  }

  /** A workspace with an admin (away) and `agents` agents, and `customers` signed-in customers. */
  async function team(slug: string, agents: number, customers: number) {
    const people = async (n: number, label: string) =>
      Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const email = `${label}-${i}-${slug}@example.test`;
          const id = await createUser(db, email);
          return { id, email, client: await clientFor(id, email) };
        }),
      );
    const [admin] = await people(1, 'admin');
    const crew = await people(agents, 'agent');
    const { data, error } = await admin!.client.rpc('create_workspace', { p_name: slug, p_slug: slug });
    expect(error).toBeNull();
    const ws = (data as { id: string }).id;
    for (const a of crew)
      await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'agent')`, [ws, a.id]);
    expect((await admin!.client.rpc('set_availability', { p_workspace_id: ws, p_available: false })).error).toBeNull();
    return { ws, admin: admin!, crew, customers: await people(customers, 'customer') };
  }

  /** A team (`agents` agents, one customer) with round robin on, and a ticket its customer created. */
  async function roundRobinTicket(slug: string, agents: number, subject: string) {
    const made = await team(slug, agents, 1);
    expect(
      (
        await made.admin.client.rpc('save_assignment_settings', {
          p_workspace_id: made.ws,
          p_mode: 'round_robin',
          p_max_open: null,
        })
      ).error,
    ).toBeNull();
    const { data } = await made.customers[0]!.client.rpc('create_ticket', {
      p_workspace_slug: slug,
      p_subject: subject,
      p_body: 'Hi',
    });
    return { ...made, id: (data as { id: string }[])[0]!.id };
  }

  async function loads(ws: string) {
    const { rows } = await db.sql(
      `select m.user_id, count(t.id)::int as n from memberships m
         left join tickets t on t.assignee_id = m.user_id and t.workspace_id = m.workspace_id
        where m.workspace_id = $1 group by 1`,
      [ws],
    );
    return new Map(rows.map((r) => [r.user_id as string, r.n as number]));
  }

  /** `n` tickets, created by the customers at once (each customer its share, one after another). */
  async function createAtOnce(
    slug: string,
    customers: { client: SupabaseClient }[],
    n: number,
    subject = (k: number) => `T${k}`,
  ) {
    await Promise.all(
      customers.map(async (c, i) => {
        for (let k = i; k < n; k += customers.length) {
          const { error } = await c.client.rpc('create_ticket', {
            p_workspace_slug: slug,
            p_subject: subject(k),
            p_body: 'Help',
          });
          expect(error).toBeNull();
        }
      }),
    );
  }

  it('round robin spreads 100 tickets from 10 clients evenly among the available agents; away ones get nothing', async () => {
    const { ws, admin, crew, customers } = await team('rr-fair', 4, 10);
    expect(
      (
        await admin.client.rpc('save_assignment_settings', {
          p_workspace_id: ws,
          p_mode: 'round_robin',
          p_max_open: null,
        })
      ).error,
    ).toBeNull();
    await createAtOnce('rr-fair', customers, 100);
    const counts = await loads(ws);
    expect(counts.get(admin.id)).toBe(0);
    const given = crew.map((a) => counts.get(a.id)!);
    expect(given.reduce((x, y) => x + y, 0)).toBe(100);
    expect(Math.max(...given) - Math.min(...given)).toBeLessThanOrEqual(1);
    // Assigned tickets open; the history says Tend did it.
    const { rows } = await db.sql(
      `select count(*) filter (where t.status = 'open')::int as open,
              count(*) filter (where e.actor_id is null)::int as by_tend, count(*)::int as n
         from tickets t join ticket_events e on e.ticket_id = t.id and e.type = 'assignee' where t.workspace_id = $1`,
      [ws],
    );
    expect(rows[0]).toEqual({ open: 100, by_tend: 100, n: 100 });
  });

  it('with a ticket-created rule that assigns half of them, round robin hands out only the rest, evenly; each ticket assigned once', async () => {
    const { ws, admin, crew, customers } = await team('rr-rule', 4, 10);
    expect(
      (
        await admin.client.rpc('save_assignment_settings', {
          p_workspace_id: ws,
          p_mode: 'round_robin',
          p_max_open: null,
        })
      ).error,
    ).toBeNull();
    await db.sql(
      `insert into rules (workspace_id, name, event, conditions, actions)
       values ($1, 'Refunds to the first agent', 'ticket_created', $2, $3)`,
      [
        ws,
        JSON.stringify([{ field: 'subject', op: 'contains', value: 'refund' }]),
        JSON.stringify([{ type: 'assign', value: crew[0]!.id }]),
      ],
    );
    await createAtOnce('rr-rule', customers, 100, (k) => (k % 2 ? `T${k}` : `Refund ${k}`));
    // The rule's 50 go to the first agent; automatic assignment spreads the other 50 within one of even.
    const { rows } = await db.sql(
      `select t.assignee_id, t.subject like 'Refund%' as refund, count(*)::int as n,
              count(*) filter (where (select count(*) from ticket_events e where e.ticket_id = t.id and e.type = 'assignee') = 1)::int as once
         from tickets t where t.workspace_id = $1 group by 1, 2`,
      [ws],
    );
    expect(rows.filter((r) => r.refund)).toEqual([{ assignee_id: crew[0]!.id, refund: true, n: 50, once: 50 }]);
    const auto = crew.map((a) => rows.find((r) => !r.refund && r.assignee_id === a.id)?.n ?? 0);
    expect(auto.reduce((x, y) => x + y, 0)).toBe(50);
    expect(Math.max(...auto) - Math.min(...auto)).toBeLessThanOrEqual(1);
    expect(rows.filter((r) => !r.refund).every((r) => r.once === r.n)).toBe(true);
    // Nobody heard of a ticket they don't have.
    const { rows: stray } = await db.sql(
      `select count(*)::int as n from notifications x join tickets t on t.id = x.ticket_id
        where t.workspace_id = $1 and x.recipient_id is distinct from t.assignee_id`,
      [ws],
    );
    expect(stray[0].n).toBe(0);
  });

  it('least open never exceeds the cap under concurrency; what finds nobody waits for someone to become available', async () => {
    const { ws, admin, crew, customers } = await team('lo-cap', 3, 10);
    // One agent is away, another has work already.
    expect(
      (await crew[2]!.client.rpc('set_availability', { p_workspace_id: ws, p_available: false })).error,
    ).toBeNull();
    expect(
      (await admin.client.rpc('save_assignment_settings', { p_workspace_id: ws, p_mode: 'least_open', p_max_open: 20 }))
        .error,
    ).toBeNull();
    await createAtOnce('lo-cap', customers.slice(0, 1), 6);
    let counts = await loads(ws);
    expect([counts.get(crew[0]!.id), counts.get(crew[1]!.id)]).toEqual([3, 3]);

    await createAtOnce('lo-cap', customers, 100);
    counts = await loads(ws);
    expect([counts.get(crew[0]!.id), counts.get(crew[1]!.id), counts.get(crew[2]!.id)]).toEqual([20, 20, 0]);
    const waiting = async () =>
      (await db.sql('select count(*)::int as n from tickets where workspace_id = $1 and assignee_id is null', [ws]))
        .rows[0].n;
    expect(await waiting()).toBe(66);

    // The away agent comes back: they take what waits, up to the cap.
    expect((await crew[2]!.client.rpc('set_availability', { p_workspace_id: ws, p_available: true })).error).toBeNull();
    counts = await loads(ws);
    expect(counts.get(crew[2]!.id)).toBe(20);
    expect(await waiting()).toBe(46);
  });

  it('a reopened ticket of an agent who is away goes to someone available; off assigns nothing', async () => {
    const { ws, admin, crew, customers, id } = await roundRobinTicket('reopen', 2, 'Back');
    const first = (await db.sql('select assignee_id from tickets where id = $1', [id])).rows[0].assignee_id;
    const holder = crew.find((a) => a.id === first)!;
    const other = crew.find((a) => a.id !== first)!;
    expect(
      (await holder.client.rpc('post_message', { p_ticket_id: id, p_body: 'Done', p_new_status: 'solved' })).error,
    ).toBeNull();
    expect((await holder.client.rpc('set_availability', { p_workspace_id: ws, p_available: false })).error).toBeNull();
    // The requester writes again: reopened, and with its assignee away, handed to the other agent.
    expect((await customers[0]!.client.rpc('post_message', { p_ticket_id: id, p_body: 'Not fixed' })).error).toBeNull();
    expect((await db.sql('select status, assignee_id from tickets where id = $1', [id])).rows[0]).toEqual({
      status: 'open',
      assignee_id: other.id,
    });

    expect(
      (await admin.client.rpc('save_assignment_settings', { p_workspace_id: ws, p_mode: 'off', p_max_open: null }))
        .error,
    ).toBeNull();
    const { data: later } = await customers[0]!.client.rpc('create_ticket', {
      p_workspace_slug: 'reopen',
      p_subject: 'New',
      p_body: 'Hi',
    });
    const laterId = (later as { id: string }[])[0]!.id;
    expect((await db.sql('select assignee_id from tickets where id = $1', [laterId])).rows[0].assignee_id).toBeNull();
  });

  it('an agent’s assignment that reopens the ticket to someone away: Tend moves it on, and both notices name no one', async () => {
    const { ws, crew, id } = await roundRobinTicket('handon', 3, 'Waiting');
    const [agent, away, free] = crew as [(typeof crew)[0], (typeof crew)[0], (typeof crew)[0]];
    await db.sql(`update tickets set status = 'pending', assignee_id = null where id = $1`, [id]);
    await db.sql(`delete from notifications where ticket_id = $1`, [id]);
    const mark = (await db.sql('select max(id) as id from ticket_events where ticket_id = $1', [id])).rows[0].id;
    for (const who of [agent, away])
      expect((await who.client.rpc('set_availability', { p_workspace_id: ws, p_available: false })).error).toBeNull();
    // One change by the agent (as a bulk edit makes it): assigned to someone away and reopened. Reopened with its
    // assignee away, Tend hands it to the one available agent; the notice the agent's assignment sent earlier in
    // the transaction, and Tend's own, name no one (docs/decisions/085-rules-before-assignment.md).
    await db.sql(
      `begin;
       select set_config('request.jwt.claims', '{"sub": "${agent.id}", "role": "authenticated"}', true);
       update tickets set assignee_id = '${away.id}', status = 'open' where id = '${id}';
       commit;`,
    );
    expect((await db.sql('select status, assignee_id from tickets where id = $1', [id])).rows[0]).toEqual({
      status: 'open',
      assignee_id: free.id,
    });
    const notices = (
      await db.sql(
        'select recipient_id, kind, actor_id from notifications where ticket_id = $1 order by created_at, id',
        [id],
      )
    ).rows;
    expect(notices).toHaveLength(2);
    expect(notices).toEqual(
      expect.arrayContaining([
        { recipient_id: away.id, kind: 'assigned', actor_id: null },
        { recipient_id: free.id, kind: 'assigned', actor_id: null },
      ]),
    );
    // Tend's two assignment lines name no one; the agent's own change (written at the end of its statement) names
    // the agent.
    const lines = (
      await db.sql(`select type, actor_id, "to" from ticket_events where ticket_id = $1 and id > $2 order by id`, [
        id,
        mark,
      ])
    ).rows.map((l) => [l.type, l.actor_id, l.to]);
    expect(lines).toEqual([
      ['status', agent.id, 'open'],
      ['assignee', null, null],
      ['assignee', null, free.id],
      ['assignee', agent.id, away.id],
    ]);
  });

  it('only admins set the mode and cap; each member sets only their own availability; outsiders nothing', async () => {
    const { ws, crew } = await team('rights', 1, 0);
    const agent = crew[0]!;
    expect(
      (await agent.client.rpc('save_assignment_settings', { p_workspace_id: ws, p_mode: 'round_robin', p_max_open: 5 }))
        .error,
    ).toMatchObject({ message: 'forbidden' });
    expect(
      (await agent.client.from('member_availability').insert({ workspace_id: ws, user_id: agent.id, available: false }))
        .error,
    ).toMatchObject({ code: '42501' });
    expect((await agent.client.from('assignment_settings').select('mode').eq('workspace_id', ws)).error).toBeNull();
    const outsider = await db.as('globexAdmin');
    expect((await outsider.rpc('set_availability', { p_workspace_id: ws, p_available: true })).error).toMatchObject({
      message: 'not_found',
    });
    expect((await outsider.from('member_availability').select('user_id').eq('workspace_id', ws)).data).toEqual([]);
    const customer = await db.as('acmeCustomer');
    expect(
      (await customer.rpc('save_assignment_settings', { p_workspace_id: ws, p_mode: 'least_open', p_max_open: 1 }))
        .error,
    ).toMatchObject({ message: 'forbidden' });
    const admin = await db.as('acmeAdmin');
    expect(
      (await admin.rpc('save_assignment_settings', { p_workspace_id: ws, p_mode: 'least_open', p_max_open: 1 })).error,
    ).toMatchObject({ message: 'forbidden' });
  });
});
