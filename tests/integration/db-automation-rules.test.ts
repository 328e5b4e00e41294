// Rules in the database (docs/product.md#rules, supabase/schemas/95_rules.sql): who may read and write
// them (per role), what the database refuses, each event (a ticket created, a customer's reply, a wait
// in a status run by the scheduler's sweep), each action, the order, fire-once and no loops, the
// history naming the rule, "Test this rule", and the SQL placeholders equal to the app's. Time is moved
// by the test: a wait's start is set into the past, then the sweep (what pg_cron runs) is called.
import type { SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fillPlaceholders, placeholderValues } from '../../app/lib/helpdesk/canned-replies.ts';
import { waitFor } from '../../scripts/lib/wait.ts';
import { ACME, GLOBEX, PEOPLE, openTicket } from '../support/db.ts';
import { dbFixture } from '../support/fixture.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];
const AGENT = PEOPLE.acmeAgent.id;
const AGENT2 = PEOPLE.acmeAgent2.id;

interface Rule {
  name: string;
  event?: 'ticket_created' | 'customer_replied' | 'ticket_waited';
  wait_status?: string;
  wait_hours?: number;
  match_all?: boolean;
  conditions?: { field: string; op: string; value: string }[];
  actions: { type: string; value?: string }[];
  enabled?: boolean;
}

describe('rules', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;
  let refundTag: string;
  let vipTag: string;
  let thanksReply: string;

  /** A rule at Acme, written by its admin through PostgREST. */
  async function rule(r: Rule): Promise<string> {
    const { data, error } = await clients.acmeAdmin
      .from('rules')
      .insert({ workspace_id: ACME, event: 'ticket_created', ...r })
      .select('id')
      .single();
    if (error) throw new Error(`rule: ${error.message} ${error.details ?? ''}`);
    return data.id as string;
  }
  const ticket = async (id: string) =>
    (await db.sql('select status, priority, assignee_id from tickets where id = $1', [id])).rows[0] as {
      status: string;
      priority: string;
      assignee_id: string | null;
    };
  const tags = async (id: string) =>
    (
      await db.sql(
        'select g.name from ticket_tags tt join tags g on g.id = tt.tag_id where tt.ticket_id = $1 order by 1',
        [id],
      )
    ).rows.map((r) => r.name as string);
  const events = async (id: string) =>
    (await db.sql('select type, actor_id, "from", "to" from ticket_events where ticket_id = $1 order by id', [id]))
      .rows as {
      type: string;
      actor_id: string | null;
      from: string | null;
      to: string | null;
    }[];
  /** Every notification about a ticket: who, what, from whom. */
  const notices = async (id: string) =>
    (
      await db.sql(
        'select recipient_id, kind, actor_id from notifications where ticket_id = $1 order by recipient_id, kind',
        [id],
      )
    ).rows as { recipient_id: string; kind: string; actor_id: string | null }[];
  /** Round robin's turn at Acme: the member given the last ticket. */
  const turn = async () =>
    (await db.sql('select last_assignee_id from assignment_settings where workspace_id = $1', [ACME])).rows[0]
      .last_assignee_id as string | null;
  const roundRobinAfter = (member: string) =>
    db.sql(
      `insert into assignment_settings (workspace_id, mode, last_assignee_id) values ($1, 'round_robin', $2)
       on conflict (workspace_id) do update set mode = 'round_robin', last_assignee_id = $2`,
      [ACME, member],
    );
  const firings = async (id: string) =>
    Number((await db.sql('select count(*) from rule_firings where ticket_id = $1', [id])).rows[0].count);
  const customerReply = async (ticketId: string, body: string) => {
    const { error } = await clients.acmeCustomer.rpc('post_message', { p_ticket_id: ticketId, p_body: body });
    expect(error).toBeNull();
  };
  /** The sweep as pg_cron runs it (a database session of its own). */
  const sweep = async () => Number((await db.sql('select public.run_waiting_rules() as n')).rows[0].n);
  /** Sweeps until `check` holds: pg_cron's own run may hold the ticket for a moment (the sweep skips it then). */
  const sweptTo = (what: string, check: () => Promise<boolean>) =>
    waitFor(what, async () => {
      await sweep();
      return check();
    });

  beforeAll(async () => {
    for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
    const tag = async (name: string) =>
      (await db.sql(`insert into tags (workspace_id, name) values ($1, $2) returning id`, [ACME, name])).rows[0]
        .id as string;
    refundTag = await tag('refund');
    vipTag = await tag('vip');
    thanksReply = (
      await db.sql(`select id from canned_replies where workspace_id = $1 and title = 'Thanks, looking into it'`, [
        ACME,
      ])
    ).rows[0].id;
  });
  beforeEach(async () => {
    await db.sql('delete from rules where workspace_id in ($1, $2)', [ACME, GLOBEX]);
    await db.sql(`update assignment_settings set mode = 'off' where workspace_id = $1`, [ACME]);
  });

  describe('who may do what', () => {
    for (const role of ROLES) {
      const admin = role === 'acmeAdmin';
      const agent = role === 'acmeAgent';
      it(`${role}: ${admin ? 'writes and reads' : agent ? 'reads, never writes' : 'neither reads nor writes'} Acme's rules`, async () => {
        const id = await rule({ name: 'Existing', actions: [{ type: 'set_priority', value: 'high' }] });
        const c = clients[role];
        const read = await c.from('rules').select('id').eq('workspace_id', ACME);
        if (role === 'anon') expect(read.error?.message).toMatch(/permission denied/);
        else expect(read.data?.map((r) => r.id)).toEqual(admin || agent ? [id] : []);

        const insert = await c
          .from('rules')
          .insert({
            workspace_id: ACME,
            name: `By ${role}`,
            event: 'ticket_created',
            actions: [{ type: 'assign_auto' }],
          })
          .select('id');
        if (admin) expect(insert.error).toBeNull();
        else expect(insert.error?.message).toMatch(/row-level security|permission denied/);

        const update = await c.from('rules').update({ enabled: false }).eq('id', id).select('id');
        expect(update.data?.length ?? 0).toBe(admin ? 1 : 0);
        const moved = await c.rpc('move_rule', { p_rule_id: id, p_up: false });
        if (admin) expect(moved.error).toBeNull();
        else expect(moved.error?.message).toMatch(/not_found|permission denied/);
        const preview = await c.rpc('rule_preview', {
          p_workspace_id: ACME,
          p_event: 'ticket_created',
          p_match_all: true,
          p_conditions: [],
        });
        if (admin) expect(preview.error).toBeNull();
        else expect(preview.error?.message).toMatch(/forbidden|permission denied/);
        const removed = await c.from('rules').delete().eq('id', id).select('id');
        expect(removed.data?.length ?? 0).toBe(admin ? 1 : 0);
        expect(Number((await db.sql('select count(*) from rules where id = $1', [id])).rows[0].count)).toBe(
          admin ? 0 : 1,
        );
        // Firings and what the sweep watches: members read the first, nobody the second.
        const waits = await c.from('rule_waits').select('rule_id');
        expect(waits.error?.message).toMatch(/permission denied/);
      });
    }

    it("an admin of another workspace can't add a rule to Acme", async () => {
      const { error } = await clients.globexAdmin
        .from('rules')
        .insert({ workspace_id: ACME, name: 'Sneaky', event: 'ticket_created', actions: [{ type: 'assign_auto' }] });
      expect(error?.message).toMatch(/row-level security/);
    });
  });

  describe('what the database refuses', () => {
    const refused = async (r: Record<string, unknown>) =>
      (
        await clients.acmeAdmin
          .from('rules')
          .insert({ workspace_id: ACME, name: 'R', event: 'ticket_created', actions: [{ type: 'assign_auto' }], ...r })
      ).error;

    it('a tag, member or canned reply of another workspace, or none at all', async () => {
      const globexTag = (
        await db.sql(`insert into tags (workspace_id, name) values ($1, 'other') returning id`, [GLOBEX])
      ).rows[0].id as string;
      expect((await refused({ actions: [{ type: 'add_tag', value: globexTag }] }))?.message).toBe('rule_tag_unknown');
      expect((await refused({ conditions: [{ field: 'tag', op: 'is', value: crypto.randomUUID() }] }))?.message).toBe(
        'rule_tag_unknown',
      );
      expect((await refused({ actions: [{ type: 'assign', value: PEOPLE.globexAgent.id }] }))?.message).toBe(
        'rule_agent_unknown',
      );
      expect((await refused({ actions: [{ type: 'notify', value: PEOPLE.acmeCustomer.id }] }))?.message).toBe(
        'rule_agent_unknown',
      );
      expect((await refused({ actions: [{ type: 'send_reply', value: crypto.randomUUID() }] }))?.message).toBe(
        'rule_reply_unknown',
      );
    });

    it('a malformed rule: no action, an unknown field or operator, a wait without hours, an empty name', async () => {
      for (const bad of [
        { actions: [] },
        { actions: [{ type: 'close' }] },
        { actions: [{ type: 'set_status', value: 'closed' }] },
        { conditions: [{ field: 'colour', op: 'is', value: 'red' }] },
        { conditions: [{ field: 'subject', op: 'is', value: 'refund' }] },
        { conditions: [{ field: 'priority', op: 'is', value: 'huge' }] },
        { event: 'ticket_waited', wait_status: 'pending' },
        { event: 'ticket_waited', wait_status: 'closed', wait_hours: 2 },
        { wait_hours: 2 },
        { name: '' },
        { conditions: Array.from({ length: 6 }, () => ({ field: 'priority', op: 'is', value: 'low' })) },
      ])
        expect((await refused(bad))?.code, JSON.stringify(bad)).toBe('23514');
    });

    it('two rules of one name (whatever the case), and the 51st rule', async () => {
      await rule({ name: 'Refunds', actions: [{ type: 'assign_auto' }] });
      expect((await refused({ name: 'REFUNDS' }))?.code).toBe('23505');
      await db.sql(
        `insert into rules (workspace_id, name, event, actions)
         select $1, 'Bulk ' || g, 'ticket_created', '[{"type": "assign_auto"}]' from generate_series(1, 49) g`,
        [ACME],
      );
      expect((await refused({ name: 'One too many' }))?.message).toBe('rule_limit');
    });
  });

  describe('a ticket is created', () => {
    it('tags and assigns a refund request, names the rule in the history, and says Tend did it', async () => {
      await rule({
        name: 'Refunds to Alex',
        conditions: [{ field: 'subject', op: 'contains', value: 'refund, money back' }],
        actions: [
          { type: 'add_tag', value: refundTag },
          { type: 'assign', value: AGENT },
        ],
      });
      const hit = await openTicket(db, 'acmeCustomer', 'Please refund my order');
      const miss = await openTicket(db, 'acmeCustomer', 'Printer on fire');
      expect(await tags(hit.id)).toEqual(['refund']);
      // Assigning a new ticket opens it, as by hand.
      expect(await ticket(hit.id)).toMatchObject({ assignee_id: AGENT, status: 'open' });
      expect(await tags(miss.id)).toEqual([]);
      expect((await ticket(miss.id)).assignee_id).toBeNull();
      const history = await events(hit.id);
      expect(history.map((e) => e.type)).toEqual(['created', 'rule', 'tag_added', 'status', 'assignee']);
      expect(history[1]).toMatchObject({ to: 'Refunds to Alex', actor_id: null });
      // The customer opened it; the rule's changes are Tend's, not theirs.
      expect(history[0]!.actor_id).toBe(PEOPLE.acmeCustomer.id);
      expect(history.slice(1).every((e) => e.actor_id === null)).toBe(true);
    });

    it('reads the message, the requester and the channel; any of the conditions, or all', async () => {
      await rule({
        name: 'Smoke is urgent',
        match_all: false,
        conditions: [
          { field: 'body', op: 'contains', value: 'smoke' },
          { field: 'requester_domain', op: 'is', value: 'nowhere.test' },
        ],
        actions: [{ type: 'set_priority', value: 'urgent' }],
      });
      await rule({
        name: 'Portal customers of example.test',
        conditions: [
          { field: 'requester_email', op: 'is', value: 'CUSTOMER@example.test' },
          { field: 'channel', op: 'is', value: 'portal' },
          { field: 'channel', op: 'is_not', value: 'email' },
        ],
        actions: [{ type: 'add_tag', value: vipTag }],
      });
      // The body says "smoking": English words (smoke finds smoking).
      const t = await openTicket(db);
      expect((await ticket(t.id)).priority).toBe('urgent');
      expect(await tags(t.id)).toEqual(['vip']);
      const other = await openTicket(db, 'acmeCustomer2', 'Nothing burns');
      expect(await tags(other.id)).toEqual([]);
    });

    it('by email: the channel is email', async () => {
      await rule({
        name: 'Mail',
        conditions: [{ field: 'channel', op: 'is', value: 'email' }],
        actions: [{ type: 'add_tag', value: vipTag }],
      });
      const { data, error } = await db.service().rpc('receive_email', {
        p_provider_message_id: `rules-${crypto.randomUUID()}`,
        p_message_id: `<${crypto.randomUUID()}@mail.test>`,
        p_from: PEOPLE.acmeCustomer.email,
        p_workspace_slug: 'acme',
        p_ticket_id: null,
        p_subject: 'By mail',
        p_body: 'Hello by email',
      });
      expect(error).toBeNull();
      expect(await tags((data as { ticket_id: string }).ticket_id)).toEqual(['vip']);
      const portal = await openTicket(db);
      expect(await tags(portal.id)).toEqual([]);
    });

    it('runs in order, each seeing what the earlier ones did; the order can change', async () => {
      const first = await rule({ name: 'Make it high', actions: [{ type: 'set_priority', value: 'high' }] });
      await rule({
        name: 'High is VIP',
        conditions: [{ field: 'priority', op: 'is', value: 'high' }],
        actions: [{ type: 'add_tag', value: vipTag }],
      });
      const a = await openTicket(db);
      expect(await tags(a.id)).toEqual(['vip']);
      expect((await clients.acmeAdmin.rpc('move_rule', { p_rule_id: first, p_up: false })).error).toBeNull();
      const b = await openTicket(db);
      expect((await ticket(b.id)).priority).toBe('high');
      expect(await tags(b.id)).toEqual([]);
    });

    it('with SLA targets and round robin, a rule that sets the priority and assigns leaves the rows an agent would: due for its priority, each change in the history', async () => {
      // Calendar-time targets, so the due time is a plain number of minutes: normal 60, high 15.
      await db.sql(
        `insert into sla_targets (workspace_id, priority, first_response_minutes, resolution_minutes, business_hours)
         values ($1, 'normal', 60, 480, false), ($1, 'high', 15, 240, false)`,
        [ACME],
      );
      // Round robin's turn after the admin: Alex (the next member by id) gets it first.
      await db.sql(
        `insert into assignment_settings (workspace_id, mode, last_assignee_id) values ($1, 'round_robin', $2)
         on conflict (workspace_id) do update set mode = 'round_robin', last_assignee_id = $2`,
        [ACME, PEOPLE.acmeAdmin.id],
      );
      try {
        await rule({
          name: 'Escalate',
          actions: [
            { type: 'set_priority', value: 'high' },
            { type: 'assign', value: AGENT2 },
          ],
        });
        const t = await openTicket(db);
        expect(await ticket(t.id)).toEqual({ status: 'open', priority: 'high', assignee_id: AGENT2 });
        // The rule runs first and assigns it: round robin never gives it to Alex (its turn stays where it was),
        // and each change is a line of its own in the order it was made (docs/decisions/085-rules-before-assignment.md).
        expect(await events(t.id)).toEqual([
          { type: 'created', actor_id: PEOPLE.acmeCustomer.id, from: null, to: 'new' },
          { type: 'rule', actor_id: null, from: null, to: 'Escalate' },
          { type: 'priority', actor_id: null, from: 'normal', to: 'high' },
          { type: 'status', actor_id: null, from: 'new', to: 'open' },
          { type: 'assignee', actor_id: null, from: null, to: AGENT2 },
        ]);
        expect(await turn()).toBe(PEOPLE.acmeAdmin.id);
        // The promise is the high priority's: first response 15 minutes after the ticket was created.
        const { rows: sla } = await db.sql(
          `select s.target::text, extract(epoch from s.due_at - t.created_at) / 60 as due,
                  extract(epoch from s.warn_at - t.created_at) / 60 as warn, s.breached_at, s.paused_at
             from ticket_sla s join tickets t on t.id = s.ticket_id where s.ticket_id = $1`,
          [t.id],
        );
        expect(sla.map((s) => ({ ...s, due: Number(s.due), warn: Number(s.warn) }))).toEqual([
          { target: 'first_response', due: 15, warn: 11.25, breached_at: null, paused_at: null },
        ]);
        // Only its assignee heard of it, once, from Tend; Alex was never told (nor emailed).
        expect(await notices(t.id)).toEqual([{ recipient_id: AGENT2, kind: 'assigned', actor_id: null }]);
        expect(await firings(t.id)).toBe(1);
      } finally {
        await db.sql('delete from sla_targets where workspace_id = $1', [ACME]);
      }
    });

    it('automatic assignment gives a ticket no rule assigned, after the rules: one line, one notice, the turn moved once', async () => {
      await roundRobinAfter(PEOPLE.acmeAdmin.id);
      await rule({ name: 'Make it high', actions: [{ type: 'set_priority', value: 'high' }] });
      const t = await openTicket(db);
      expect(await ticket(t.id)).toEqual({ status: 'open', priority: 'high', assignee_id: AGENT });
      expect((await events(t.id)).map((e) => [e.type, e.actor_id, e.to])).toEqual([
        ['created', PEOPLE.acmeCustomer.id, 'new'],
        ['rule', null, 'Make it high'],
        ['priority', null, 'high'],
        // The opening its assignment causes names the requester, as automatic assignment's always has.
        ['status', PEOPLE.acmeCustomer.id, 'open'],
        ['assignee', null, AGENT],
      ]);
      expect(await turn()).toBe(AGENT);
      // The request's notice goes to whoever has it at the end: the assignee, once; nobody else.
      expect(await notices(t.id)).toEqual([{ recipient_id: AGENT, kind: 'assigned', actor_id: null }]);
    });

    it('a rule’s “assign by automatic assignment” is that assignment, once', async () => {
      await roundRobinAfter(PEOPLE.acmeAdmin.id);
      await rule({ name: 'Hand out', actions: [{ type: 'assign_auto' }] });
      const t = await openTicket(db);
      expect((await ticket(t.id)).assignee_id).toBe(AGENT);
      // The rule's action did it (its line comes first), and nothing assigned it before or after.
      expect((await events(t.id)).map((e) => [e.type, e.to])).toEqual([
        ['created', 'new'],
        ['rule', 'Hand out'],
        ['status', 'open'],
        ['assignee', AGENT],
      ]);
      expect(await turn()).toBe(AGENT);
      expect(await notices(t.id)).toEqual([{ recipient_id: AGENT, kind: 'assigned', actor_id: null }]);
    });

    it('without automatic assignment, a ticket a rule assigns is announced to its assignee only; one nobody has, to every member', async () => {
      await rule({
        name: 'Refunds to Agent 2',
        conditions: [{ field: 'subject', op: 'contains', value: 'refund' }],
        actions: [{ type: 'assign', value: AGENT2 }],
      });
      const hit = await openTicket(db, 'acmeCustomer', 'Refund please');
      expect(await notices(hit.id)).toEqual([{ recipient_id: AGENT2, kind: 'assigned', actor_id: null }]);
      const miss = await openTicket(db, 'acmeCustomer', 'Printer on fire');
      const members = (await db.sql('select user_id from memberships where workspace_id = $1', [ACME])).rows;
      const told = await notices(miss.id);
      expect(told.map((n) => n.recipient_id).sort()).toEqual(members.map((m) => m.user_id as string).sort());
      expect(told.every((n) => n.kind === 'new_request' && n.actor_id === PEOPLE.acmeCustomer.id)).toBe(true);
    });

    it('a rule switched off does nothing', async () => {
      await rule({ name: 'Off', enabled: false, actions: [{ type: 'set_priority', value: 'low' }] });
      const t = await openTicket(db);
      expect((await ticket(t.id)).priority).toBe('normal');
      expect(await firings(t.id)).toBe(0);
    });

    it('fires once per event: running the event again finds its firing', async () => {
      await rule({ name: 'Once', actions: [{ type: 'add_note', value: 'Seen by a rule.' }] });
      const t = await openTicket(db);
      const again = await db.sql(`select private.run_rules($1, 'ticket_created', 'created') as n`, [t.id]);
      expect(again.rows[0].n).toBe(0);
      expect(await firings(t.id)).toBe(1);
      const notes = await db.sql(`select count(*) from messages where ticket_id = $1 and kind = 'note'`, [t.id]);
      expect(Number(notes.rows[0].count)).toBe(1);
    });
  });

  // While rules or the automatic assignment act on a ticket, Tend says so in a setting local to the transaction
  // (private.tend_acting), and what they write names no one (docs/decisions/102-tend-says-so.md).
  describe('Tend saying it acts', () => {
    it('no client can say it: no API call sets it, and only two private functions do', async () => {
      const args = { setting_name: 'private.tend_acting', new_value: 'x', is_local: true };
      expect((await clients.acmeAgent.rpc('set_config', args)).error).toMatchObject({ code: 'PGRST202' });
      expect((await clients.acmeAgent.schema('pg_catalog').rpc('set_config', args)).error).toMatchObject({
        code: 'PGRST106',
      });
      const { rows } = await db.sql(
        `select p.oid::regprocedure::text as f from pg_proc p
          where p.pronamespace in ('public'::regnamespace, 'private'::regnamespace)
            and p.prosrc ~ 'set_config\\(''private\\.tend_acting''' order by 1`,
      );
      expect(rows.map((r) => r.f)).toEqual(['private.tend_act(uuid,text)', 'private.tend_done(text)']);
      const exposed = await db.sql(
        `select p.proname from pg_proc p where p.pronamespace = 'public'::regnamespace and p.prosrc ~ 'tend_act'`,
      );
      expect(exposed.rows).toEqual([]);
    });

    it('is heard only in its own transaction and for its ticket: a change after the rules, or with a word left over, names its author', async () => {
      await rule({ name: 'Make it high', actions: [{ type: 'set_priority', value: 'high' }] });
      const t = await openTicket(db);
      // The next request, on a connection PostgREST may have used for the creation.
      expect((await clients.acmeAgent.from('tickets').update({ priority: 'low' }).eq('id', t.id)).error).toBeNull();
      // A session that says Tend acts on this ticket in an earlier transaction (for the whole session), and on
      // another ticket in this one, then changes the ticket as the agent: neither word is heard.
      const other = await openTicket(db);
      const c = new pg.Client({ connectionString: db.stack.dbUrl });
      await c.connect();
      try {
        const earlier = (await c.query('select pg_current_xact_id()::text as x')).rows[0].x as string;
        await c.query(`select set_config('private.tend_acting', $1, false)`, [`${earlier} ${t.id} rules`]);
        await c.query('begin');
        const now = (await c.query('select pg_current_xact_id()::text as x')).rows[0].x as string;
        await c.query(`select set_config('private.tend_acting', $1, true)`, [`${now} ${other.id} rules`]);
        await c.query('set local role authenticated');
        await c.query(`select set_config('request.jwt.claims', $1, true)`, [
          JSON.stringify({ sub: AGENT, role: 'authenticated' }),
        ]);
        await c.query(`update public.tickets set priority = 'urgent', status = 'pending' where id = $1`, [t.id]);
        await c.query(`insert into public.ticket_tags (ticket_id, tag_id) values ($1, $2)`, [t.id, vipTag]);
        await c.query('commit');
      } finally {
        await c.end();
      }
      expect((await events(t.id)).map((e) => [e.type, e.actor_id, e.to])).toEqual([
        ['created', PEOPLE.acmeCustomer.id, 'new'],
        ['rule', null, 'Make it high'],
        ['priority', null, 'high'],
        ['priority', AGENT, 'low'],
        ['status', AGENT, 'pending'],
        ['priority', AGENT, 'urgent'],
        ['tag_added', AGENT, 'vip'],
      ]);
    });
  });

  describe('a customer replies', () => {
    it('runs on the requester’s reply, not on the team’s, and not on the request itself', async () => {
      await rule({
        name: 'Urgent words',
        event: 'customer_replied',
        conditions: [{ field: 'body', op: 'contains', value: 'urgent' }],
        actions: [{ type: 'set_priority', value: 'urgent' }],
      });
      const t = await openTicket(db, 'acmeCustomer', 'Urgent: printer');
      expect(await firings(t.id)).toBe(0);
      const agent = await clients.acmeAgent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Is it urgent?' });
      expect(agent.error).toBeNull();
      expect((await ticket(t.id)).priority).toBe('normal');
      await customerReply(t.id, 'Yes, very urgent.');
      expect((await ticket(t.id)).priority).toBe('urgent');
      await customerReply(t.id, 'Still urgent!');
      // One firing per reply: two replies, two firings.
      expect(await firings(t.id)).toBe(2);
    });

    it('sees the reopening its reply caused (the rule runs at the end of the transaction)', async () => {
      await rule({
        name: 'Reopened',
        event: 'customer_replied',
        conditions: [{ field: 'status', op: 'is', value: 'open' }],
        actions: [{ type: 'add_tag', value: vipTag }],
      });
      const t = await openTicket(db);
      await db.sql(`update tickets set status = 'pending' where id = $1`, [t.id]);
      await customerReply(t.id, 'Any news?');
      expect((await ticket(t.id)).status).toBe('open');
      expect(await tags(t.id)).toEqual(['vip']);
    });

    it('cannot loop: its own reply, note and status change set off no rule', async () => {
      await rule({
        name: 'Answer and wait',
        event: 'customer_replied',
        actions: [
          { type: 'send_reply', value: thanksReply },
          { type: 'add_note', value: 'Answered by a rule.' },
          { type: 'set_status', value: 'pending' },
        ],
      });
      await rule({ name: 'On creation', actions: [{ type: 'set_priority', value: 'low' }] });
      const t = await openTicket(db);
      await db.sql(`update tickets set assignee_id = $2 where id = $1`, [t.id, AGENT]);
      await customerReply(t.id, 'Hello again');
      expect(await firings(t.id)).toBe(2);
      expect((await ticket(t.id)).status).toBe('pending');
      const replies = await db.sql(
        `select author_id, kind from messages where ticket_id = $1 order by created_at, id`,
        [t.id],
      );
      expect(replies.rows.map((r) => r.kind)).toEqual(['reply', 'reply', 'reply', 'note']);
      // The reply goes out in the assignee's name.
      expect(replies.rows[2].author_id).toBe(AGENT);
    });
  });

  describe('actions', () => {
    it('sends a canned reply with its placeholders filled, in the assignee’s name; a new ticket opens', async () => {
      await rule({ name: 'Ack', actions: [{ type: 'send_reply', value: thanksReply }] });
      const t = await openTicket(db);
      const { rows } = await db.sql(
        `select m.author_id, m.body from messages m where m.ticket_id = $1 order by m.created_at, m.id`,
        [t.id],
      );
      // Nobody has it yet: the admin who saved the rule speaks.
      expect(rows[1].author_id).toBe(PEOPLE.acmeAdmin.id);
      expect(rows[1].body).toBe(
        `Hi Casey Customer, thanks for reaching out! I'm looking into #${t.number} now and will get back to you shortly.\n\nAda Admin, Acme Support`,
      );
      expect((await ticket(t.id)).status).toBe('open');
      // The requester sees it; it is the first response.
      const seen = await clients.acmeCustomer.from('messages').select('id').eq('ticket_id', t.id);
      expect(seen.data).toHaveLength(2);
    });

    it('fills placeholders as the app does', async () => {
      const body =
        'Hi {{ requester.name }} <{{requester.email}}>, {{agent.name}} on #{{ticket.number}} “{{ticket.subject}}” for {{workspace.name}}; {{unknown}} {{';
      const t = await openTicket(db, 'acmeCustomer', 'About {{agent.name}}');
      const sql = await db.sql(`select private.fill_placeholders($1, t, $2) as body from tickets t where t.id = $3`, [
        body,
        AGENT2,
        t.id,
      ]);
      const names = await db.sql(
        `select u.id, u.email, p.display_name from auth.users u join profiles p on p.user_id = u.id where u.id = any($1)`,
        [[PEOPLE.acmeCustomer.id, AGENT2]],
      );
      const who = (id: string) => {
        const r = names.rows.find((n) => n.id === id);
        return { name: r.display_name as string, email: r.email as string };
      };
      const app = fillPlaceholders(
        body,
        placeholderValues({
          requester: who(PEOPLE.acmeCustomer.id),
          agent: who(AGENT2),
          ticket: { number: t.number, subject: 'About {{agent.name}}' },
          workspace: { name: 'Acme Support' },
        }),
      );
      expect(sql.rows[0].body).toBe(app);
      expect(app).toContain('About {{agent.name}}');
    });

    it('adds an internal note the requester never sees, and notifies a member', async () => {
      await rule({
        name: 'Heads-up',
        actions: [
          { type: 'add_note', value: 'Check the order for {{requester.email}}.' },
          { type: 'notify', value: AGENT2 },
        ],
      });
      const t = await openTicket(db);
      const notes = await db.sql(`select body, author_id from messages where ticket_id = $1 and kind = 'note'`, [t.id]);
      expect(notes.rows).toEqual([
        { body: 'Check the order for customer@example.test.', author_id: PEOPLE.acmeAdmin.id },
      ]);
      const seen = await clients.acmeCustomer.from('messages').select('kind').eq('ticket_id', t.id);
      expect(seen.data?.map((m) => m.kind)).toEqual(['reply']);
      const told = await db.sql(`select kind, actor_id from notifications where ticket_id = $1 and recipient_id = $2`, [
        t.id,
        AGENT2,
      ]);
      // Besides "new request" (every member hears of one, after the rules): a rule's call is always heard.
      expect(told.rows).toContainEqual({ kind: 'rule', actor_id: null });
      expect(told.rows).toContainEqual({ kind: 'new_request', actor_id: PEOPLE.acmeCustomer.id });
    });

    it('assigns by automatic assignment: the workspace’s mode, to someone available', async () => {
      await rule({ name: 'Hand out on reply', event: 'customer_replied', actions: [{ type: 'assign_auto' }] });
      const t = await openTicket(db);
      expect((await ticket(t.id)).assignee_id).toBeNull();
      await db.sql(
        `insert into assignment_settings (workspace_id, mode) values ($1, 'round_robin')
         on conflict (workspace_id) do update set mode = 'round_robin'`,
        [ACME],
      );
      await customerReply(t.id, 'Anyone?');
      expect([PEOPLE.acmeAdmin.id, AGENT, AGENT2]).toContain((await ticket(t.id)).assignee_id);
    });

    it('skips what went away since: a member removed, a tag deleted', async () => {
      const gone = (await db.sql(`insert into tags (workspace_id, name) values ($1, 'temporary') returning id`, [ACME]))
        .rows[0].id as string;
      await rule({
        name: 'Leftovers',
        actions: [
          { type: 'add_tag', value: gone },
          { type: 'set_priority', value: 'low' },
        ],
      });
      await db.sql('delete from tags where id = $1', [gone]);
      const t = await openTicket(db);
      expect(await tags(t.id)).toEqual([]);
      expect((await ticket(t.id)).priority).toBe('low');
    });
  });

  describe('a ticket has waited in a status (the sweep)', () => {
    // pg_cron may run the same sweep meanwhile: the tests check what the sweep did, not who ran it.
    /** Only `ticketId` is watched (the seed's tickets in the status were watched when the rule was made). */
    const watchOnly = (ticketId: string) => db.sql('delete from rule_waits where ticket_id <> $1', [ticketId]);
    const waitedSince = (ticketId: string, interval: string) =>
      db.sql(`update rule_waits set since = now() - $2::interval where ticket_id = $1`, [ticketId, interval]);

    it('fires once per stint after its business hours, and again after the ticket comes back to the status', async () => {
      await rule({
        name: 'Chase pending',
        event: 'ticket_waited',
        wait_status: 'pending',
        wait_hours: 24,
        actions: [{ type: 'notify', value: 'assignee' }],
      });
      const t = await openTicket(db);
      await db.sql(`update tickets set assignee_id = $2 where id = $1`, [t.id, AGENT]);
      expect((await clients.acmeAgent.from('tickets').update({ status: 'pending' }).eq('id', t.id)).error).toBeNull();
      await watchOnly(t.id);
      const told = async () =>
        Number(
          (
            await db.sql(
              `select count(*) from notifications where ticket_id = $1 and kind = 'rule' and recipient_id = $2`,
              [t.id, AGENT],
            )
          ).rows[0].count,
        );
      await sweep();
      expect(await told()).toBe(0);
      // Acme has no business hours: around the clock. 23 hours are not enough, 25 are.
      await waitedSince(t.id, '23 hours');
      await sweep();
      expect(await told()).toBe(0);
      await waitedSince(t.id, '25 hours');
      await sweptTo('the rule to notify the assignee', async () => (await told()) === 1);
      await sweep();
      expect(await told()).toBe(1);
      expect((await events(t.id)).filter((e) => e.type === 'rule').map((e) => e.to)).toEqual(['Chase pending']);
      // Back to open, then pending again: a new stint, watched afresh.
      expect((await clients.acmeAgent.from('tickets').update({ status: 'open' }).eq('id', t.id)).error).toBeNull();
      expect((await clients.acmeAgent.from('tickets').update({ status: 'pending' }).eq('id', t.id)).error).toBeNull();
      await waitedSince(t.id, '25 hours');
      await sweptTo('the rule to notify again', async () => (await told()) === 2);
    });

    it('counts business hours, and watches the tickets already in the status when the rule is made', async () => {
      const t = await openTicket(db);
      expect((await clients.acmeAgent.from('tickets').update({ status: 'pending' }).eq('id', t.id)).error).toBeNull();
      // Monday to Friday 09:00–17:00 in Acme's zone.
      const hours = [1, 2, 3, 4, 5].map((weekday) => ({ weekday, opens: '09:00', closes: '17:00' }));
      expect(
        (await clients.acmeAdmin.rpc('save_business_hours', { p_workspace_id: ACME, p_periods: hours })).error,
      ).toBeNull();
      try {
        await rule({
          name: 'Two business days',
          event: 'ticket_waited',
          wait_status: 'pending',
          wait_hours: 16,
          actions: [{ type: 'set_priority', value: 'high' }],
        });
        const waits = await db.sql('select count(*) from rule_waits where ticket_id = $1', [t.id]);
        expect(Number(waits.rows[0].count)).toBe(1);
        await watchOnly(t.id);
        // 16 business hours before now: start the wait a minute after that (not due), then a minute before.
        const due = (await db.sql(`select private.business_minutes_before($1, now(), 16 * 60) as at`, [ACME])).rows[0]
          .at as Date;
        const minutes = async (from: Date) =>
          Number((await db.sql(`select private.business_minutes_between($1, $2, now()) as m`, [ACME, from])).rows[0].m);
        expect(await minutes(due)).toBeCloseTo(16 * 60, 1);
        await db.sql(`update rule_waits set since = $2::timestamptz + interval '1 minute' where ticket_id = $1`, [
          t.id,
          due,
        ]);
        await sweep();
        expect((await ticket(t.id)).priority).toBe('normal');
        await db.sql(`update rule_waits set since = $2::timestamptz - interval '1 minute' where ticket_id = $1`, [
          t.id,
          due,
        ]);
        await sweptTo('the priority set high', async () => (await ticket(t.id)).priority === 'high');
      } finally {
        await db.sql('delete from business_hours where workspace_id = $1', [ACME]);
      }
    });

    it('sets the status only as an agent could by hand: a move the state machine refuses is skipped', async () => {
      await rule({
        name: 'Solved back to pending',
        event: 'ticket_waited',
        wait_status: 'solved',
        wait_hours: 1,
        actions: [
          { type: 'set_status', value: 'pending' },
          { type: 'set_priority', value: 'high' },
        ],
      });
      const t = await openTicket(db);
      expect((await clients.acmeAgent.from('tickets').update({ status: 'solved' }).eq('id', t.id)).error).toBeNull();
      await watchOnly(t.id);
      await waitedSince(t.id, '2 hours');
      await sweptTo('the priority set high', async () => (await ticket(t.id)).priority === 'high');
      // solved → pending isn't a move anyone makes: skipped; the next action still ran.
      expect((await ticket(t.id)).status).toBe('solved');
    });

    it('switched off it stops watching; on again, a stint it fired in stays fired', async () => {
      const t = await openTicket(db);
      expect((await clients.acmeAgent.from('tickets').update({ status: 'open' }).eq('id', t.id)).error).toBeNull();
      // It has been open for two hours when the rule is made: watched from then, and due.
      await db.sql(`update ticket_events set created_at = created_at - interval '2 hours' where ticket_id = $1`, [
        t.id,
      ]);
      const id = await rule({
        name: 'Stale open',
        event: 'ticket_waited',
        wait_status: 'open',
        wait_hours: 1,
        actions: [{ type: 'add_note', value: 'Stale.' }],
      });
      await watchOnly(t.id);
      const notes = async () =>
        Number(
          (await db.sql(`select count(*) from messages where ticket_id = $1 and kind = 'note'`, [t.id])).rows[0].count,
        );
      const watched = async () =>
        Number((await db.sql('select count(*) from rule_waits where ticket_id = $1', [t.id])).rows[0].count);
      await sweptTo('the note', async () => (await notes()) === 1);
      expect(await watched()).toBe(0);
      await clients.acmeAdmin.from('rules').update({ enabled: false }).eq('id', id);
      await clients.acmeAdmin.from('rules').update({ enabled: true }).eq('id', id);
      // Watched again from when it entered the status, due, but it fired in this stint already.
      expect(await watched()).toBe(1);
      await watchOnly(t.id);
      await sweptTo('the wait looked at', async () => (await watched()) === 0);
      expect(await notes()).toBe(1);
      // Off, nothing is watched.
      await clients.acmeAdmin.from('rules').update({ enabled: false }).eq('id', id);
      expect(Number((await db.sql('select count(*) from rule_waits where rule_id = $1', [id])).rows[0].count)).toBe(0);
    });

    it('is the job pg_cron runs every minute, for the platform only', async () => {
      const job = await db.sql(`select schedule, command from cron.job where jobname = 'waiting-rules'`);
      expect(job.rows).toEqual([{ schedule: '* * * * *', command: 'select public.run_waiting_rules()' }]);
      const { error } = await clients.acmeAdmin.rpc('run_waiting_rules');
      expect(error?.message).toMatch(/permission denied/);
    });
  });

  it('"Test this rule" lists the latest tickets it would match, at most 20', async () => {
    const made: number[] = [];
    for (let i = 0; i < 22; i++) made.push((await openTicket(db, 'acmeCustomer2', `Refund request ${i}`)).number);
    const { data, error } = await clients.acmeAdmin.rpc('rule_preview', {
      p_workspace_id: ACME,
      p_event: 'ticket_created',
      p_match_all: true,
      p_conditions: [
        { field: 'subject', op: 'contains', value: 'refund' },
        { field: 'requester_email', op: 'is', value: PEOPLE.acmeCustomer2.email },
      ],
    });
    expect(error).toBeNull();
    expect((data as { number: number }[]).map((t) => t.number)).toEqual(made.slice(2).reverse());
    const none = await clients.acmeAdmin.rpc('rule_preview', {
      p_workspace_id: ACME,
      p_event: 'ticket_created',
      p_match_all: true,
      p_conditions: [{ field: 'subject', op: 'contains', value: 'zebra' }],
    });
    expect(none.data).toEqual([]);
  });
});
