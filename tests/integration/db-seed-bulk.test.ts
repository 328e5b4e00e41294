// scripts/seed-bulk.ts against a fresh stack: numbering kept, messages and derived columns filled,
// every trigger back on afterwards, and the app's rules still hold for new tickets.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, openTicket, seedBulk } from '../support/db.ts';

describe('seed:bulk', () => {
  const db = dbFixture();

  it('adds tickets with consecutive numbers, messages, history and search, then leaves every trigger enabled', async () => {
    const before = (await db.sql('select ticket_seq from workspaces where id = $1', [ACME])).rows[0]
      .ticket_seq as number;
    // The keys and indexes it drops for the load and builds again (other tables' keys to these too), and the
    // realtime publications it leaves the load out of.
    const schema = `select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) || ' ' || convalidated as d
                      from pg_constraint where conrelid in ('tickets'::regclass, 'messages'::regclass, 'ticket_events'::regclass)
                        or confrelid in ('tickets'::regclass, 'messages'::regclass, 'ticket_events'::regclass)
                    union all
                    select pg_get_indexdef(indexrelid) || ' ' || indisvalid from pg_index
                     where indrelid in ('tickets'::regclass, 'messages'::regclass, 'ticket_events'::regclass)
                    union all
                    select 'publication ' || pubname || ' ' || schemaname || '.' || tablename from pg_publication_tables
                    order by 1`;
    const schemaBefore = (await db.sql(schema)).rows;
    const words = async () =>
      (await db.sql('select distinct word from private.search_words order by 1')).rows.map((r) => r.word as string);
    const wordsBefore = await words();
    // Ten batches on two sessions at once, as a million goes in (scripts/seed-bulk.ts).
    await seedBulk(db, 2500, ['--batch', '250', '--sessions', '2']);
    const { rows } = await db.sql(
      `select count(*)::int n, min(number) lo, max(number) hi, count(distinct number)::int d,
              count(*) filter (where status <> 'new' and first_response_at is null)::int no_response,
              count(*) filter (where search = ''::tsvector)::int no_search,
              (select ticket_seq from workspaces where id = $1) seq
         from tickets where workspace_id = $1 and number > $2`,
      [ACME, before],
    );
    expect(rows[0]).toEqual({
      n: 2500,
      lo: before + 1,
      hi: before + 2500,
      d: 2500,
      no_response: 0,
      no_search: 0,
      seq: before + 2500,
    });
    const orphans = await db.sql(
      `select count(*)::int n from tickets t where workspace_id = $1 and number > $2
          and (not exists (select 1 from messages m where m.ticket_id = t.id) or not exists (select 1 from ticket_events e where e.ticket_id = t.id))`,
      [ACME, before],
    );
    expect(orphans.rows[0].n).toBe(0);
    // History follows docs/product.md §4's moves, and no timestamp lies in the future.
    const moves = await db.sql(
      `select distinct e."from" || '→' || e."to" as move from ticket_events e join tickets t on t.id = e.ticket_id
        where t.workspace_id = $1 and t.number > $2 and e.type = 'status'`,
      [ACME, before],
    );
    const allowed = [
      'new→open',
      'new→pending',
      'new→solved',
      'open→pending',
      'open→solved',
      'pending→open',
      'pending→solved',
      'solved→open',
      'solved→closed',
    ];
    for (const { move } of moves.rows) expect(allowed, move).toContain(move);
    const future = await db.sql(
      `select count(*)::int n from tickets where workspace_id = $1 and number > $2
          and (created_at > now() or solved_at > now() or closed_at > now() or (status = 'solved' and solved_at < now() - interval '7 days'))`,
      [ACME, before],
    );
    expect(future.rows[0].n).toBe(0);
    const disabled = await db.sql(
      `select tgname from pg_trigger where tgrelid in ('public.tickets'::regclass, 'public.messages'::regclass) and not tgisinternal and tgenabled = 'D'`,
    );
    expect(disabled.rows).toEqual([]);
    expect((await db.sql(schema)).rows).toEqual(schemaBefore);
    // Exactly what the per-row path computes: every bulk ticket replayed through the triggers (its
    // ticket, then its messages in order) gets the same search vector, activity time and first
    // response, and its messages the ticket's workspace.
    const replay = new pg.Client({ connectionString: db.stack.dbUrl });
    await replay.connect();
    try {
      await replay.query('begin');
      await replay.query(
        `create temp table replay on commit drop as
           select id as orig, gen_random_uuid() as copy from tickets where workspace_id = $1 and number > $2`,
        [ACME, before],
      );
      await replay.query(
        `insert into tickets (id, workspace_id, requester_id, subject, created_at, last_message_at)
         select r.copy, t.workspace_id, t.requester_id, t.subject, t.created_at, t.created_at
           from replay r join tickets t on t.id = r.orig order by t.number`,
      );
      await replay.query(
        `insert into messages (ticket_id, author_id, kind, body, created_at)
         select r.copy, m.author_id, m.kind, m.body, m.created_at from replay r join messages m on m.ticket_id = r.orig
          order by m.created_at, m.id`,
      );
      const differ = await replay.query(
        `select count(*)::int as tickets,
                count(*) filter (where o.search is distinct from c.search)::int as search,
                count(*) filter (where o.last_message_at is distinct from c.last_message_at)::int as last_message_at,
                count(*) filter (where o.first_response_at is distinct from c.first_response_at)::int as first_response_at,
                (select count(*)::int from messages m join tickets t on t.id = m.ticket_id
                  where t.workspace_id = $1 and t.number > $2 and m.workspace_id is distinct from t.workspace_id) as message_workspace
           from replay r join tickets o on o.id = r.orig join tickets c on c.id = r.copy`,
        [ACME, before],
      );
      expect(differ.rows[0]).toEqual({
        tickets: 2500,
        search: 0,
        last_message_at: 0,
        first_response_at: 0,
        message_workspace: 0,
      });
    } finally {
      await replay.query('rollback');
      await replay.end();
    }
    // The words in use (private.search_words, which a search's prefix is read from) gain exactly the words of the
    // bulk tickets' search text and notes that they lacked, as the words triggers would have added them.
    const loaded = await db.sql(
      `select word from ts_stat(format('select search from tickets where workspace_id = %L and number > %s', $1::uuid, $2::int))
       union
       select word from ts_stat(format($$select to_tsvector('english', m.body) from messages m join tickets t on t.id = m.ticket_id
                                        where m.kind = 'note' and t.workspace_id = %L and t.number > %s$$, $1::uuid, $2::int))
       order by 1`,
      [ACME, before],
    );
    const known = new Set(wordsBefore);
    const added = (await words()).filter((w) => !known.has(w));
    expect(added).toEqual(loaded.rows.map((r) => r.word as string).filter((w) => !known.has(w)));
    expect(added.length).toBeGreaterThan(2000); // the tickets' numbers among them
    // The view counts' tallies (kept by their statement-level trigger) match the tickets.
    const tallies = await db.sql(
      `with counted as (select workspace_id, status, priority, assignee_id, count(*) n from tickets group by 1, 2, 3, 4),
            kept as (select workspace_id, status, priority, assignee_id, n from private.ticket_tallies where n <> 0)
       select count(*)::int n from ((select * from counted except select * from kept) union all (select * from kept except select * from counted)) d`,
    );
    expect(tallies.rows[0].n).toBe(0);
    // So do the reports' rollups and the customers' ticket counts, which two sessions' batches update
    // side by side: tickets created and solved per slot, and every customer's tickets, against plain SQL;
    // the durations against a rebuild from the tickets (what a change of time zone does, 60_reports.sql).
    const slots = await db.sql(
      `with counted as (select workspace_id, slot, sum(created) created, sum(solved) solved
                          from (select workspace_id, private.report_slot(created_at) slot, 1 created, 0 solved from tickets
                                 where spam_at is null and trashed_at is null
                                union all
                                select workspace_id, private.report_slot(solved_at), 0, 1 from tickets
                                 where spam_at is null and trashed_at is null and solved_at is not null) x group by 1, 2),
            kept as (select workspace_id, slot, created::bigint, solved::bigint from private.report_slots where created <> 0 or solved <> 0)
       select count(*)::int n, (select count(*)::int from counted) slots
         from ((select * from counted except select * from kept) union all (select * from kept except select * from counted)) d`,
    );
    expect(slots.rows[0].n).toBe(0);
    expect(slots.rows[0].slots).toBeGreaterThan(1000);
    const customers = await db.sql(
      `with counted as (select workspace_id, requester_id, count(*)::int n from tickets group by 1, 2),
            kept as (select workspace_id, user_id, tickets from customers where tickets <> 0)
       select count(*)::int n from ((select * from counted except select * from kept) union all (select * from kept except select * from counted)) d`,
    );
    expect(customers.rows[0].n).toBe(0);
    const durations = `select workspace_id, kind, span, day, bucket, tickets, seconds from private.report_durations
                        where workspace_id = $1 and tickets <> 0 order by 1, 2, 3, 4, 5`;
    const kept = (await db.sql(durations, [ACME])).rows;
    expect(kept.reduce((n, r) => n + r.tickets, 0)).toBeGreaterThan(2 * 2000);
    const zone = (await db.sql('select time_zone from workspaces where id = $1', [ACME])).rows[0].time_zone;
    await db.sql(`update workspaces set time_zone = 'Asia/Kolkata' where id = $1`, [ACME]);
    await db.sql('update workspaces set time_zone = $2 where id = $1', [ACME, zone]);
    expect((await db.sql(durations, [ACME])).rows).toEqual(kept);
    // Numbering continues from the counter for the next request.
    expect((await openTicket(db)).number).toBe(before + 2501);
  }, 120_000); // 2 500 tickets loaded, then replayed through every row trigger: over a minute on a loaded machine

  it("stops before loading a ticket when an insert trigger is one it doesn't know", async () => {
    const count = async () => (await db.sql('select count(*)::int as n from tickets')).rows[0].n as number;
    const before = await count();
    await db.sql(`create function public.seed_probe() returns trigger language plpgsql as $$ begin return new; end $$`);
    await db.sql(
      'create trigger tickets_probe before insert on public.tickets for each row execute function public.seed_probe()',
    );
    try {
      await expect(seedBulk(db, 10)).rejects.toThrow(
        /doesn't know these insert triggers: public\.tickets:tickets_probe\./,
      );
      expect(await count()).toBe(before);
    } finally {
      await db.sql('drop trigger tickets_probe on public.tickets');
      await db.sql('drop function public.seed_probe()');
    }
  });
});
