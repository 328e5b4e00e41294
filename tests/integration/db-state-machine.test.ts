// Every cell of docs/product.md §4's status table, allowed and refused, by each role.
import { describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { PEOPLE, backendPid, openTicket, waitingFor, type Person } from '../support/db.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const STATUSES = ['new', 'open', 'pending', 'solved', 'closed'] as const;
type Status = (typeof STATUSES)[number];
type Actor = 'requester' | 'agent' | 'admin' | 'system';

// docs/product.md §4: who may move a ticket from → to by setting its status directly.
// (A requester reopens only by replying: tested separately.)
const ALLOWED: Record<string, Actor[]> = {
  'new→open': ['agent', 'admin', 'system'],
  'new→pending': ['agent', 'admin', 'system'],
  'new→solved': ['requester', 'agent', 'admin', 'system'],
  'open→pending': ['agent', 'admin', 'system'],
  'open→solved': ['requester', 'agent', 'admin', 'system'],
  'pending→open': ['agent', 'admin', 'system'],
  'pending→solved': ['requester', 'agent', 'admin', 'system'],
  'solved→open': ['agent', 'admin', 'system'],
  'solved→closed': ['admin', 'system'],
};

const PERSON: Record<Exclude<Actor, 'system'>, Person> = {
  requester: 'acmeCustomer',
  agent: 'acmeAgent',
  admin: 'acmeAdmin',
};

describe('ticket status state machine', () => {
  const db = dbFixture();

  async function ticketIn(status: Status) {
    const t = await openTicket(db);
    // As the platform, along allowed moves: closed is reached only from solved.
    if (status === 'closed') await db.sql(`update tickets set status = 'solved' where id = $1`, [t.id]);
    if (status !== 'new') await db.sql(`update tickets set status = $2 where id = $1`, [t.id, status]);
    return t;
  }

  async function move(actor: Actor, id: string, to: Status) {
    if (actor === 'system') {
      return db.service().from('tickets').update({ status: to }).eq('id', id).select('status');
    }
    return (await db.as(PERSON[actor])).from('tickets').update({ status: to }).eq('id', id).select('status');
  }

  const cells = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => [from, to] as const));
  for (const [from, to] of cells) {
    for (const actor of ['requester', 'agent', 'admin', 'system'] as Actor[]) {
      const allowed = ALLOWED[`${from}→${to}`]?.includes(actor) ?? false;
      it(`${allowed ? 'lets' : 'refuses'} ${actor} move ${from} → ${to}`, async () => {
        const t = await ticketIn(from);
        const { data, error } = await move(actor, t.id, to);
        if (allowed) {
          expect(error).toBeNull();
          expect(data).toEqual([{ status: to }]);
        } else {
          expect(error).toMatchObject({ code: 'P0001', message: 'invalid_transition', details: `${from}→${to}` });
        }
        const { rows } = await db.sql('select status from tickets where id = $1', [t.id]);
        expect(rows[0].status).toBe(allowed ? to : from);
      });
    }
  }

  it('reopens a pending or solved request when the requester replies, and records the history', async () => {
    for (const from of ['pending', 'solved'] as const) {
      const t = await ticketIn(from);
      const customer = await db.as('acmeCustomer');
      const { error } = await customer.rpc('post_message', { p_ticket_id: t.id, p_body: 'Still broken, sorry!' });
      expect(error).toBeNull();
      const { rows } = await db.sql(
        `select status, (select array_agg("from" || '→' || "to" order by id) from ticket_events e where e.ticket_id = t.id and type = 'status') as moves from tickets t where id = $1`,
        [t.id],
      );
      expect(rows[0].status).toBe('open');
      expect(rows[0].moves.at(-1)).toBe(`${from}→open`);
    }
  });

  it('opens a new ticket when an agent is assigned, and records status and assignee events', async () => {
    const t = await openTicket(db);
    const agent = await db.as('acmeAgent');
    const { data, error } = await agent
      .from('tickets')
      .update({ assignee_id: PEOPLE.acmeAgent2.id })
      .eq('id', t.id)
      .select('status, assignee_id');
    expect(error).toBeNull();
    expect(data).toEqual([{ status: 'open', assignee_id: PEOPLE.acmeAgent2.id }]);
    await agent.from('tickets').update({ priority: 'urgent' }).eq('id', t.id);
    const { rows } = await db.sql(
      `select type, "from", "to", actor_id from ticket_events where ticket_id = $1 order by id`,
      [t.id],
    );
    expect(rows).toEqual([
      { type: 'created', from: null, to: 'new', actor_id: PEOPLE.acmeCustomer.id },
      { type: 'status', from: 'new', to: 'open', actor_id: PEOPLE.acmeAgent.id },
      { type: 'assignee', from: null, to: PEOPLE.acmeAgent2.id, actor_id: PEOPLE.acmeAgent.id },
      { type: 'priority', from: 'normal', to: 'urgent', actor_id: PEOPLE.acmeAgent.id },
    ]);
  });

  it('moves status by replying: agent reply opens a new ticket, "pending" with the reply, notes change nothing', async () => {
    const agent = await db.as('acmeAgent');
    const a = await openTicket(db);
    expect((await agent.rpc('post_message', { p_ticket_id: a.id, p_body: 'Note', p_kind: 'note' })).error).toBeNull();
    expect((await db.sql('select status from tickets where id = $1', [a.id])).rows[0].status).toBe('new');
    expect((await agent.rpc('post_message', { p_ticket_id: a.id, p_body: 'On it' })).error).toBeNull();
    expect((await db.sql('select status from tickets where id = $1', [a.id])).rows[0].status).toBe('open');
    const b = await openTicket(db);
    expect(
      (await agent.rpc('post_message', { p_ticket_id: b.id, p_body: 'Which order?', p_new_status: 'pending' })).error,
    ).toBeNull();
    expect((await db.sql('select status from tickets where id = $1', [b.id])).rows[0].status).toBe('pending');
  });

  it('lets requesters reply without moving new or open tickets, and solve with a reply; never reopen without one', async () => {
    const customer = await db.as('acmeCustomer');
    for (const from of ['new', 'open'] as const) {
      const t = await ticketIn(from);
      expect((await customer.rpc('post_message', { p_ticket_id: t.id, p_body: 'Any news?' })).error).toBeNull();
      expect((await db.sql('select status from tickets where id = $1', [t.id])).rows[0].status).toBe(from);
    }
    const s = await ticketIn('open');
    expect(
      (await customer.rpc('post_message', { p_ticket_id: s.id, p_body: 'Fixed, thanks', p_new_status: 'solved' }))
        .error,
    ).toBeNull();
    expect((await db.sql('select status from tickets where id = $1', [s.id])).rows[0].status).toBe('solved');
    expect(
      (await customer.rpc('post_message', { p_ticket_id: s.id, p_body: 'Back again', p_new_status: 'open' })).error,
    ).toBeNull();
    expect((await db.sql('select status from tickets where id = $1', [s.id])).rows[0].status).toBe('open');
    // Customers cannot move new → open or pending even with a reply, nor write notes.
    const n = await ticketIn('new');
    for (const to of ['open', 'pending']) {
      const { error } = await customer.rpc('post_message', { p_ticket_id: n.id, p_body: 'x', p_new_status: to });
      expect(error).toMatchObject({ code: 'P0001', message: 'invalid_transition', details: `new→${to}` });
    }
    expect(
      (await customer.rpc('post_message', { p_ticket_id: n.id, p_body: 'x', p_kind: 'note' })).error,
    ).toMatchObject({ message: 'forbidden' });
    expect((await db.sql('select count(*)::int n from messages where ticket_id = $1', [n.id])).rows[0].n).toBe(1);
  });

  it("refuses someone else's requester and other workspaces: not_found from post_message", async () => {
    const t = await openTicket(db);
    for (const who of ['acmeCustomer2', 'globexAgent', 'globexCustomer'] as Person[]) {
      const { error } = await (await db.as(who)).rpc('post_message', { p_ticket_id: t.id, p_body: 'Let me in' });
      expect(error, who).toMatchObject({ message: 'not_found' });
    }
  });

  it('sets first_response_at only from a public reply by the team, not from the requester or a note', async () => {
    const t = await openTicket(db);
    await (await db.as('acmeCustomer')).rpc('post_message', { p_ticket_id: t.id, p_body: 'Also this' });
    await (await db.as('acmeAdmin')).rpc('post_message', { p_ticket_id: t.id, p_body: 'Note', p_kind: 'note' });
    expect(
      (await db.sql('select first_response_at from tickets where id = $1', [t.id])).rows[0].first_response_at,
    ).toBeNull();
    const { data } = await (await db.as('acmeAdmin')).rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Hello from the team',
    });
    const { rows } = await db.sql('select first_response_at, last_message_at from tickets where id = $1', [t.id]);
    expect(rows[0].first_response_at.toISOString()).toBe(new Date(data.created_at).toISOString());
    expect(rows[0].last_message_at.toISOString()).toBe(new Date(data.created_at).toISOString());
  });

  it('refuses a reply to a closed ticket with ticket_closed, whoever writes it', async () => {
    const t = await ticketIn('closed');
    for (const who of ['acmeCustomer', 'acmeAgent'] as Person[]) {
      const { error } = await (await db.as(who)).rpc('post_message', { p_ticket_id: t.id, p_body: 'Hello?' });
      expect(error).toMatchObject({ message: 'ticket_closed' });
    }
    const { rows } = await db.sql('select count(*)::int as n from messages where ticket_id = $1', [t.id]);
    expect(rows[0].n).toBe(1);
  });

  it('keeps first_response_at, solved_at and closed_at in step with the conversation and status', async () => {
    const t = await openTicket(db);
    const agent = await db.as('acmeAgent');
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Internal: checking', p_kind: 'note' });
    let { rows } = await db.sql('select status, first_response_at from tickets where id = $1', [t.id]);
    expect(rows[0]).toMatchObject({ status: 'new', first_response_at: null });
    expect(
      (await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'We are on it.', p_new_status: 'pending' })).error,
    ).toBeNull();
    ({ rows } = await db.sql('select status, first_response_at, solved_at from tickets where id = $1', [t.id]));
    expect(rows[0].status).toBe('pending');
    expect(rows[0].first_response_at).not.toBeNull();
    expect(rows[0].solved_at).toBeNull();
    await agent.from('tickets').update({ status: 'solved' }).eq('id', t.id);
    ({ rows } = await db.sql('select solved_at, closed_at from tickets where id = $1', [t.id]));
    expect(rows[0].solved_at).not.toBeNull();
    expect(rows[0].closed_at).toBeNull();
    await (await db.as('acmeAdmin')).from('tickets').update({ status: 'closed' }).eq('id', t.id);
    ({ rows } = await db.sql('select closed_at from tickets where id = $1', [t.id]));
    expect(rows[0].closed_at).not.toBeNull();
  });

  it('closes tickets solved more than 7 days ago when the scheduled job runs, and only for service_role', async () => {
    const old = await ticketIn('solved');
    const recent = await ticketIn('solved');
    await db.sql(`update tickets set solved_at = now() - interval '8 days' where id = $1`, [old.id]);
    const denied = await (await db.as('acmeAdmin')).rpc('close_solved_tickets');
    expect(denied.error).not.toBeNull();
    const { data, error } = await db.service().rpc('close_solved_tickets');
    expect(error).toBeNull();
    expect(data).toBeGreaterThanOrEqual(1);
    const { rows } = await db.sql('select id, status from tickets where id = any($1)', [[old.id, recent.id]]);
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      [old.id]: 'closed',
      [recent.id]: 'solved',
    });
  });

  it('the scheduled close skips a ticket someone holds right now and closes it on the next run', async () => {
    const a = await ticketIn('solved');
    const b = await ticketIn('solved');
    await db.sql(`update tickets set solved_at = now() - interval '8 days' where id = any($1)`, [[a.id, b.id]]);
    const pg = (await import('pg')).default;
    const holder = new pg.Client({ connectionString: db.stack.dbUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from tickets where id = $1 for update', [a.id]);
      let answered = false;
      const first = Promise.resolve(db.service().rpc('close_solved_tickets')).finally(() => (answered = true));
      // It answers without waiting for the held ticket; queued behind the holder, it would never.
      const holderPid = await backendPid(holder);
      const outcome = await waitFor('the scheduled close to answer, or to queue behind the held ticket', async () =>
        answered
          ? 'answered'
          : (await waitingFor(db, holderPid)).some((s) => s.role === 'authenticator') &&
            'queued behind the held ticket',
      );
      expect(outcome).toBe('answered');
      expect(await first).toMatchObject({ error: null });
      const { rows } = await db.sql('select id, status from tickets where id = any($1)', [[a.id, b.id]]);
      expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({ [a.id]: 'solved', [b.id]: 'closed' });
      await holder.query('commit');
    } finally {
      await holder.end();
    }
    expect((await db.service().rpc('close_solved_tickets')).data).toBeGreaterThanOrEqual(1);
    const { rows } = await db.sql(
      `select t.status, e.actor_id from tickets t join ticket_events e on e.ticket_id = t.id and e.type = 'status' and e."to" = 'closed' where t.id = $1`,
      [a.id],
    );
    expect(rows).toEqual([{ status: 'closed', actor_id: null }]);
  });
});
