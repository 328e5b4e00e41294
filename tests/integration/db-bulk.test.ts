// Bulk changes in the database (docs/product.md#bulk-changes): public.bulk_update_tickets changes many tickets
// of one workspace in one call, each through the same state machine as a single change (for the
// caller), skipping — and counting by reason — those it doesn't apply to; per role, within one
// workspace only; a bulk change and a single edit of the same ticket queue instead of deadlocking.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { bulkSummary } from '../../app/lib/helpdesk/bulk.ts';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE, openTicket } from '../support/db.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];

describe('bulk changes', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;
  const tickets = async (n: number) => Promise.all(Array.from({ length: n }, () => openTicket(db)));
  // In the order of `ids` (tickets() opens them concurrently: their numbers may come in any order).
  const statuses = async (ids: string[]) =>
    (
      await db.sql(
        'select t.status from unnest($1::uuid[]) with ordinality u(id, i) join tickets t on t.id = u.id order by u.i',
        [ids],
      )
    ).rows.map((r) => r.status);

  beforeAll(async () => {
    for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
  });

  for (const role of ROLES) {
    const member = role === 'acmeAdmin' || role === 'acmeAgent';
    it(`${role}: ${member ? 'changes' : 'may not change'} the workspace's tickets in bulk`, async () => {
      const ids = (await tickets(3)).map((t) => t.id);
      const { data, error } = await clients[role].rpc('bulk_update_tickets', {
        p_ticket_ids: ids,
        p_action: 'priority',
        p_value: 'urgent',
      });
      if (member) expect(data).toEqual({ updated: 3, skipped: {} });
      else expect(error?.message, role).toMatch(role === 'anon' ? /permission denied/ : /^not_found$/);
      const { rows } = await db.sql('select priority from tickets where id = any ($1)', [ids]);
      expect(rows.map((r) => r.priority)).toEqual(Array(3).fill(member ? 'urgent' : 'normal'));
    });
  }

  it('status: each ticket through the state machine for the caller; skipped ones counted by reason', async () => {
    const ids = (await tickets(5)).map((t) => t.id);
    await db.sql(`update tickets set status = 'solved' where id = $1`, [ids[0]]);
    await db.sql(`update tickets set status = 'closed' where id = any ($1)`, [[ids[1], ids[2]]]);
    await db.sql(`update tickets set status = 'pending' where id = $1`, [ids[3]]);
    const { data, error } = await clients.acmeAgent.rpc('bulk_update_tickets', {
      p_ticket_ids: ids,
      p_action: 'status',
      p_value: 'pending',
    });
    expect(error).toBeNull();
    // new→pending is a team move; solved→pending and closed→pending are nobody's; one was pending.
    expect(data).toEqual({
      updated: 1,
      skipped: { solved: 1, closed: 2, unchanged: 1 },
    });
    expect(bulkSummary(data)).toBe('1 updated, 4 skipped: 2 closed, 1 solved, 1 already so');
    expect(await statuses(ids)).toEqual(['solved', 'closed', 'closed', 'pending', 'pending']);
    // Closing is an admin's move: an agent's batch skips every one, an admin's closes the solved one.
    const close = (c: SupabaseClient) =>
      c.rpc('bulk_update_tickets', {
        p_ticket_ids: [ids[0]],
        p_action: 'status',
        p_value: 'closed',
      });
    expect((await close(clients.acmeAgent)).data).toEqual({
      updated: 0,
      skipped: { solved: 1 },
    });
    expect((await close(clients.acmeAdmin)).data).toEqual({
      updated: 1,
      skipped: {},
    });
    const events = await db.sql(
      `select actor_id from ticket_events where ticket_id = $1 and type = 'status' and "to" = 'closed'`,
      [ids[0]],
    );
    expect(events.rows).toEqual([{ actor_id: PEOPLE.acmeAdmin.id }]);
  });

  it('assign opens new tickets, as a single assignment does; a non-member is refused for the batch', async () => {
    const ids = (await tickets(2)).map((t) => t.id);
    const { data } = await clients.acmeAgent.rpc('bulk_update_tickets', {
      p_ticket_ids: ids,
      p_action: 'assign',
      p_value: PEOPLE.acmeAgent2.id,
    });
    expect(data).toEqual({ updated: 2, skipped: {} });
    const { rows } = await db.sql('select status, assignee_id from tickets where id = any ($1)', [ids]);
    expect(rows).toEqual(Array(2).fill({ status: 'open', assignee_id: PEOPLE.acmeAgent2.id }));
    const refused = await clients.acmeAgent.rpc('bulk_update_tickets', {
      p_ticket_ids: ids,
      p_action: 'assign',
      p_value: PEOPLE.globexAdmin.id,
    });
    expect(refused.error?.message).toBe('assignee_not_member');
    const unassign = await clients.acmeAgent.rpc('bulk_update_tickets', {
      p_ticket_ids: ids,
      p_action: 'assign',
      p_value: 'none',
    });
    expect(unassign.data).toEqual({ updated: 2, skipped: {} });
  });

  it('adds and removes a tag (creating it if the agent may); tagged already counts as unchanged', async () => {
    const ids = (await tickets(3)).map((t) => t.id);
    const tag = `bulk-${Date.now()}`;
    await clients.acmeAgent.rpc('add_ticket_tag', {
      p_ticket_id: ids[0],
      p_name: tag,
    });
    const add = await clients.acmeAgent.rpc('bulk_update_tickets', {
      p_ticket_ids: ids,
      p_action: 'add_tag',
      p_value: tag,
    });
    expect(add.data).toEqual({ updated: 2, skipped: { unchanged: 1 } });
    const remove = await clients.acmeAgent.rpc('bulk_update_tickets', {
      p_ticket_ids: ids,
      p_action: 'remove_tag',
      p_value: tag,
    });
    expect(remove.data).toEqual({ updated: 3, skipped: {} });
    expect(
      (await db.sql('select count(*)::int as n from ticket_tags where ticket_id = any ($1)', [ids])).rows[0].n,
    ).toBe(0);
    const bad = await clients.acmeAgent.rpc('bulk_update_tickets', {
      p_ticket_ids: ids,
      p_action: 'add_tag',
      p_value: 'no good',
    });
    expect(bad.error?.message).toBe('tag_invalid');
  });

  it("only one workspace's tickets: another workspace's are skipped as not found, never changed", async () => {
    const acme = (await tickets(1))[0];
    const globex = await db.as('globexCustomer');
    const { data: other } = await globex.rpc('create_ticket', {
      p_workspace_slug: 'globex',
      p_subject: 'Hi',
      p_body: 'Hi',
    });
    const otherId = other[0].id as string;
    const { data } = await clients.acmeAdmin.rpc('bulk_update_tickets', {
      p_ticket_ids: [acme.id, otherId],
      p_action: 'priority',
      p_value: 'high',
    });
    expect(data).toEqual({ updated: 1, skipped: { not_found: 1 } });
    expect((await db.sql('select priority from tickets where id = $1', [otherId])).rows[0].priority).toBe('normal');
  });

  it('refuses an unknown action or value, and no tickets or more than 1 000', async () => {
    const ids = (await tickets(1)).map((t) => t.id);
    const call = (args: Record<string, unknown>) =>
      clients.acmeAgent.rpc('bulk_update_tickets', {
        p_ticket_ids: ids,
        p_action: 'status',
        p_value: 'open',
        ...args,
      });
    expect((await call({ p_action: 'delete' })).error?.message).toBe('bad_request');
    expect((await call({ p_value: 'sleeping' })).error?.message).toBe('bad_request');
    expect((await call({ p_ticket_ids: [] })).error?.message).toBe('bad_request');
    const many = Array.from({ length: 1001 }, () => crypto.randomUUID());
    expect((await call({ p_ticket_ids: many })).error?.message).toBe('bad_request');
  });

  it('a bulk change and a single edit of the same tickets both land, one after the other', async () => {
    const ids = (await tickets(20)).map((t) => t.id);
    const [bulk, single] = await Promise.all([
      clients.acmeAgent.rpc('bulk_update_tickets', {
        p_ticket_ids: ids,
        p_action: 'priority',
        p_value: 'high',
      }),
      clients.acmeAdmin.from('tickets').update({ assignee_id: PEOPLE.acmeAdmin.id }).eq('id', ids[19]).select('id'),
    ]);
    expect(bulk.error).toBeNull();
    expect(single.error).toBeNull();
    const { rows } = await db.sql('select priority, assignee_id from tickets where id = $1', [ids[19]]);
    expect(rows[0]).toEqual({
      priority: 'high',
      assignee_id: PEOPLE.acmeAdmin.id,
    });
  });
  // The history, the promises and the tags' events are written once per statement
  // (docs/decisions/073-bulk-change-per-statement.md): a batch must leave what single changes leave.
  describe('per statement, as single changes', () => {
    /** Tickets in these states (as the platform puts them: no history of ours), in order. */
    const inStates = async () => {
      const ids = (await tickets(5)).map((t) => t.id);
      await db.sql(
        `update tickets t set status = s.status::ticket_status, priority = s.priority::ticket_priority,
                snoozed_until = case when s.snoozed then now() + interval '1 day' end,
                assignee_id = case when s.status <> 'new' then $2::uuid end
           from unnest($1::uuid[], array['new', 'open', 'pending', 'solved', 'closed'],
                       array['normal', 'high', 'low', 'normal', 'normal'], array[false, false, true, false, false])
                as s(id, status, priority, snoozed)
          where t.id = s.id`,
        [ids, PEOPLE.acmeAgent.id],
      );
      return ids;
    };
    const mark = async () => (await db.sql('select coalesce(max(id), 0)::int as id from ticket_events')).rows[0].id;
    /** Each ticket's events since `since`, in the order written, without ids and times (a snooze's: "a time"). */
    const historyOf = async (ids: string[], since: number) =>
      Promise.all(
        ids.map(
          async (id) =>
            (
              await db.sql(
                `select actor_id, type,
                        case when type like '%snoozed' and "from" is not null then 'a time' else "from" end as "from",
                        case when type like '%snoozed' and "to" is not null then 'a time' else "to" end as "to"
                   from ticket_events where ticket_id = $1 and id > $2 order by created_at, id`,
                [id, since],
              )
            ).rows,
        ),
      );

    it('a batch of mixed tickets writes each ticket the events one change at a time writes', async () => {
      const [single, bulk] = [await inStates(), await inStates()];
      const since = await mark();
      const changes = [
        {
          action: 'assign',
          value: PEOPLE.acmeAgent2.id,
          column: { assignee_id: PEOPLE.acmeAgent2.id },
        },
        { action: 'priority', value: 'urgent', column: { priority: 'urgent' } },
        { action: 'status', value: 'solved', column: { status: 'solved' } },
      ];
      for (const change of changes) {
        // One ticket at a time, as the ticket page changes it (refusals, e.g. closed→solved, change nothing).
        for (const id of single) await clients.acmeAgent.from('tickets').update(change.column).eq('id', id);
        const { error } = await clients.acmeAgent.rpc('bulk_update_tickets', {
          p_ticket_ids: bulk,
          p_action: change.action,
          p_value: change.value,
        });
        expect(error).toBeNull();
      }
      const [one, batch] = [await historyOf(single, since), await historyOf(bulk, since)];
      expect(batch).toEqual(one);
      // What that is: the new ticket opened by its assignment (status first), the snoozed one woken by solving it.
      const agent = PEOPLE.acmeAgent.id;
      expect(batch[0]).toEqual([
        { actor_id: agent, type: 'status', from: 'new', to: 'open' },
        {
          actor_id: agent,
          type: 'assignee',
          from: null,
          to: PEOPLE.acmeAgent2.id,
        },
        { actor_id: agent, type: 'priority', from: 'normal', to: 'urgent' },
        { actor_id: agent, type: 'status', from: 'open', to: 'solved' },
      ]);
      expect(batch[2]!.slice(-2).map((e) => [e.type, e.from, e.to])).toEqual([
        ['status', 'pending', 'solved'],
        ['unsnoozed', 'a time', null],
      ]);
      expect(batch[4]!.map((e) => e.type)).toEqual(['assignee', 'priority']);
    });

    it('one statement changing different columns of different tickets writes each its own events', async () => {
      const ids = (await inStates()).slice(0, 3);
      const since = await mark();
      const { error } = await clients.acmeAgent
        .from('tickets')
        .update({ status: 'pending', priority: 'high' })
        .in('id', ids);
      expect(error).toBeNull();
      const agent = PEOPLE.acmeAgent.id;
      expect(await historyOf(ids, since)).toEqual([
        [
          { actor_id: agent, type: 'status', from: 'new', to: 'pending' },
          { actor_id: agent, type: 'priority', from: 'normal', to: 'high' },
        ],
        [{ actor_id: agent, type: 'status', from: 'open', to: 'pending' }],
        [{ actor_id: agent, type: 'priority', from: 'low', to: 'high' }],
      ]);
    });

    it("a batch moves each ticket's promise as a single change does", async () => {
      const admin = await db.as('acmeAdmin');
      const targets = (p: unknown[]) => admin.rpc('save_sla_targets', { p_workspace_id: ACME, p_targets: p });
      expect(
        (
          await targets([
            {
              priority: 'normal',
              first_response_minutes: 60,
              resolution_minutes: 240,
              business_hours: false,
            },
            {
              priority: 'urgent',
              first_response_minutes: 10,
              resolution_minutes: 60,
              business_hours: false,
            },
          ])
        ).error,
      ).toBeNull();
      try {
        const [single, bulk] = [(await tickets(3)).map((t) => t.id), (await tickets(3)).map((t) => t.id)];
        const promises = async (ids: string[]) =>
          (
            await db.sql(
              `select s.target::text, round(extract(epoch from s.due_at - t.created_at) / 60) as due, s.paused_at is not null as paused
                 from unnest($1::uuid[]) with ordinality u(id, i) join tickets t on t.id = u.id
                 left join ticket_sla s on s.ticket_id = t.id order by u.i`,
              [ids],
            )
          ).rows;
        // Urgent (a sooner first response), then pending (the clock stops) for the first two.
        for (const id of single) await clients.acmeAgent.from('tickets').update({ priority: 'urgent' }).eq('id', id);
        for (const id of single.slice(0, 2))
          await clients.acmeAgent.from('tickets').update({ status: 'pending' }).eq('id', id);
        const call = (ids: string[], action: string, value: string) =>
          clients.acmeAgent.rpc('bulk_update_tickets', {
            p_ticket_ids: ids,
            p_action: action,
            p_value: value,
          });
        expect((await call(bulk, 'priority', 'urgent')).data).toEqual({
          updated: 3,
          skipped: {},
        });
        expect((await call(bulk.slice(0, 2), 'status', 'pending')).data).toEqual({ updated: 2, skipped: {} });
        expect(await promises(bulk)).toEqual(await promises(single));
        // Pending stops the clock (no target runs); the third is due for a first response in 10 minutes.
        expect((await promises(bulk)).map((r) => [r.target, r.due, r.paused])).toEqual([
          [null, null, true],
          [null, null, true],
          ['first_response', '10', false],
        ]);
      } finally {
        await targets([]);
      }
    });

    it("a bulk tagging writes each ticket's event and moves it; deleting the tag then writes and moves none", async () => {
      const ids = (await tickets(3)).map((t) => t.id);
      const tag = `per-statement-${Date.now()}`;
      const since = await mark();
      const before = new Date();
      const add = await clients.acmeAgent.rpc('bulk_update_tickets', {
        p_ticket_ids: ids,
        p_action: 'add_tag',
        p_value: tag,
      });
      expect(add.data).toEqual({ updated: 3, skipped: {} });
      expect(await historyOf(ids, since)).toEqual(
        Array(3).fill([
          {
            actor_id: PEOPLE.acmeAgent.id,
            type: 'tag_added',
            from: null,
            to: tag,
          },
        ]),
      );
      const moved = async () =>
        (await db.sql('select updated_at from tickets where id = any ($1) order by id', [ids])).rows.map(
          (r) => r.updated_at as Date,
        );
      for (const at of await moved()) expect(at.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
      const tagged = await moved();
      const afterAdd = await mark();
      await (await db.as('acmeAdmin')).from('tags').delete().eq('name', tag).eq('workspace_id', ACME);
      expect(
        (await db.sql('select count(*)::int as n from ticket_tags where ticket_id = any ($1)', [ids])).rows[0].n,
      ).toBe(0);
      expect(await historyOf(ids, afterAdd)).toEqual([[], [], []]);
      expect(await moved()).toEqual(tagged);
    });

    it('the tickets table leaves room in its pages for changed rows (fillfactor, set by hand in the migration)', async () => {
      const { rows } = await db.sql(`select reloptions from pg_class where oid = 'public.tickets'::regclass`);
      expect(rows[0].reloptions).toEqual(['fillfactor=90']);
    });
  });
});
