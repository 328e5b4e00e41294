// npm run bench:saved-counts: the database time of a saved view's count (docs/decisions/086-saved-view-counts.md)
// on bench:inbox's five views (tallies, a tag, a field, a search, a search in a view), counted on the page as
// before (private.saved_view_match, the count public.inbox made until 086) against the stored count brought up
// to date (private.saved_view_count), alternating in one session, several rounds; then the stored counts after
// 10, 100 and 1 000 tickets written since they were stored; and what the write log adds to a write: one
// ticket's update and a 1 000-ticket bulk update, with the log's triggers on and off, alternating.
// Times are the server's (clock_timestamp around each statement, in a loop): no network, no PostgREST.
//   BENCH_TICKETS=300000 BENCH_ROUNDS=5 npm run bench:saved-counts
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { startStack } from '@tend/supabase-local';
import { median, range, seedBulk, superuser } from './lib/bench.ts';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REPS = 20;

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-saved-counts-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });

// The mean time in ms of `sql` (one value back) run `reps` times in a row, measured by the server.
const TIMER = `create function pg_temp.time_ms(p_sql text, p_reps integer) returns double precision
language plpgsql as $$
declare
  t0 timestamptz := clock_timestamp();
  x text;
begin
  for i in 1..p_reps loop
    execute p_sql into x;
  end loop;
  return extract(epoch from clock_timestamp() - t0) * 1000 / p_reps;
end $$`;
const time = async (c: pg.Client, sql: string, reps = REPS) =>
  Number((await c.query('select pg_temp.time_ms($1, $2) as ms', [sql, reps])).rows[0].ms);
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

try {
  if (TICKETS > 0) seedBulk(stack, TICKETS);
  await superuser(stack, async (c) => {
    await c.query(TIMER);
    const ws = (await c.query(`select id from workspaces where slug = 'acme'`)).rows[0].id as string;
    const me = (await c.query(`select id from auth.users where email = 'agent2@acme.test'`)).rows[0].id as string;
    // bench:inbox's data: "billing" on one ticket in ten, a dropdown "Plan" on one in twenty (Pro on one in 40).
    await c.query('begin');
    await c.query('set local session_replication_role = replica');
    await c.query(
      `insert into tags (workspace_id, name, colour) values ($1, 'billing', 'blue') on conflict do nothing`,
      [ws],
    );
    await c.query(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id, last_message_at)
       select t.id, g.id, t.workspace_id, t.last_message_at from tickets t join tags g on g.workspace_id = t.workspace_id and g.name = 'billing'
        where t.workspace_id = $1 and t.number % 10 = 3 on conflict do nothing`,
      [ws],
    );
    const field = (
      await c.query(
        `insert into ticket_fields (workspace_id, label, kind, options) values ($1, 'Plan', 'dropdown', '{Free,Pro}') returning id`,
        [ws],
      )
    ).rows[0].id as string;
    await c.query(
      `insert into ticket_field_values (ticket_id, field_id, workspace_id, value)
       select t.id, $1, t.workspace_id, case when t.number % 40 = 0 then 'Pro' else 'Free' end
         from tickets t where t.workspace_id = $2 and t.number % 20 = 0`,
      [field, ws],
    );
    await c.query('commit');
    await c.query('vacuum analyze tickets, tags, ticket_tags, ticket_field_values');
    const views: [string, Record<string, unknown>][] = [
      ['Urgent open', { view: 'open', priority: 'urgent' }],
      ['Billing', { view: 'all', tag: ['billing'] }],
      ['Pro plan', { view: 'all', fields: { [field]: 'Pro' } }],
      ['Refunds', { view: 'all', q: 'refund' }],
      ['Pending parcels', { view: 'pending', q: 'parcel' }],
    ];
    const ids: string[] = [];
    for (const [i, [name, filters]] of views.entries())
      ids.push(
        (
          await c.query(
            `insert into saved_views (workspace_id, owner_id, name, filters, position) values ($1, $2, $3, $4, $5) returning id`,
            [ws, me, name, filters, i],
          )
        ).rows[0].id,
      );
    const before = (f: Record<string, unknown>) =>
      `select (private.saved_view_match(${lit(ws)}, ${lit(me)}, ${lit(JSON.stringify(f))}, null, null)).n`;
    const stored = (id: string, f: Record<string, unknown>) =>
      `select private.saved_view_count(${lit(id)}, ${lit(ws)}, ${lit(me)}, ${lit(JSON.stringify(f))})`;
    for (const [i, [name, f]] of views.entries()) {
      const [a, b] = [
        (await c.query(before(f))).rows[0].n,
        (await c.query(stored(ids[i]!, f))).rows[0].saved_view_count,
      ];
      if (String(a) !== String(b)) throw new Error(`${name}: counted ${a}, stored ${b}`);
    }

    if (process.env.BENCH_DEBUG)
      console.table(
        (
          await c.query(
            `select s.name, k.n, cardinality(k.members) as members,
                    k.key = (private.saved_view_match(s.workspace_id, s.owner_id, s.filters, '{}', null)).key as same_key,
                    cardinality(private.tickets_written_since(s.workspace_id, k.seen)) as written
               from saved_views s left join private.saved_view_counts k on k.view_id = s.id`,
          )
        ).rows,
      );
    // Reads: each view, counted as before and from its stored count, alternating.
    const rows: Record<string, unknown>[] = [];
    const sums = { before: [] as number[], stored: [] as number[] };
    const per: Record<string, { before: number[]; stored: number[] }> = {};
    for (let r = 0; r < ROUNDS; r++) {
      let [sb, ss] = [0, 0];
      for (const [i, [name, f]] of views.entries()) {
        const p = (per[name] ??= { before: [], stored: [] });
        const tb = await time(c, before(f));
        const ts = await time(c, stored(ids[i]!, f));
        p.before.push(tb);
        p.stored.push(ts);
        sb += tb;
        ss += ts;
      }
      sums.before.push(sb);
      sums.stored.push(ss);
    }
    for (const [name, p] of Object.entries(per))
      rows.push({
        view: name,
        'counted ms (median)': median(p.before).toFixed(3),
        range: range(p.before, 3),
        'stored ms (median)': median(p.stored).toFixed(3),
        'stored range': range(p.stored, 3),
      });
    rows.push({
      view: 'all five',
      'counted ms (median)': median(sums.before).toFixed(3),
      range: range(sums.before, 3),
      'stored ms (median)': median(sums.stored).toFixed(3),
      'stored range': range(sums.stored, 3),
    });
    console.log(`\nSaved views' counts at ${TICKETS} tickets, ms a count (server time, ${ROUNDS} rounds × ${REPS})`);
    console.table(rows);

    // Tickets written since the counts were stored: the page tests them against each view.
    const written: Record<string, unknown>[] = [];
    let done = 0;
    for (const n of [10, 100, 1000]) {
      await c.query(
        `update tickets set priority = case priority when 'urgent' then 'normal'::ticket_priority else 'urgent' end
          where id in (select id from tickets where workspace_id = $1 order by number limit $2)`,
        [ws, n],
      );
      done = n;
      const all = views.map(([, f], i) => `(${stored(ids[i]!, f)})`).join(' + ');
      written.push({ 'tickets written since': done, 'all five, ms': (await time(c, `select ${all}`, 5)).toFixed(3) });
    }
    console.log('\nThe five stored counts brought up to date after tickets written (ms, the five together)');
    console.table(written);
    await c.query('select private.refresh_saved_view_counts()');

    // Writes: what the log adds (its triggers on, then off, alternating).
    const oneSql = `update tickets set priority = case priority when 'high' then 'normal'::ticket_priority else 'high' end
                     where id = (select id from tickets where workspace_id = ${lit(ws)} order by number desc limit 1)`;
    const bulkSql = `update tickets set priority = case priority when 'high' then 'normal'::ticket_priority else 'high' end
                      where id in (select id from tickets where workspace_id = ${lit(ws)} order by number desc limit 1000)`;
    const one = `${oneSql} returning 1`;
    const bulk = `with x as (${bulkSql} returning 1) select count(*) from x`;
    const w = { one: { on: [] as number[], off: [] as number[] }, bulk: { on: [] as number[], off: [] as number[] } };
    for (let r = 0; r < ROUNDS; r++)
      for (const state of ['on', 'off'] as const) {
        await c.query(`alter table tickets ${state === 'on' ? 'enable' : 'disable'} trigger tickets_log_update`);
        w.one[state].push(await time(c, one, 50));
        w.bulk[state].push(await time(c, bulk, 3));
      }
    await c.query('alter table tickets enable trigger tickets_log_update');
    // The log's own trigger as EXPLAIN ANALYZE times it, beside the whole statement and the tallies' trigger.
    const triggers: Record<string, unknown>[] = [];
    for (const [label, sql, reps] of [
      ["one ticket's update", oneSql, 50],
      ['a 1 000-ticket update', bulkSql, 5],
    ] as const) {
      const t = { total: [] as number[], log: [] as number[], tally: [] as number[] };
      for (let i = 0; i < reps; i++) {
        const [plan] = (await c.query(`explain (analyze, format json) ${sql}`)).rows[0]['QUERY PLAN'];
        const trigger = (name: string) =>
          plan.Triggers.find((x: { 'Trigger Name': string }) => x['Trigger Name'] === name)?.Time ?? 0;
        t.total.push(plan['Execution Time']);
        t.log.push(trigger('tickets_log_update'));
        t.tally.push(trigger('tickets_tally_update'));
      }
      triggers.push({
        write: label,
        'statement ms': median(t.total).toFixed(3),
        'log trigger ms': `${median(t.log).toFixed(3)} (${range(t.log, 3)})`,
        'tallies trigger ms': median(t.tally).toFixed(3),
      });
    }
    console.log("\nThe log's trigger inside a write (EXPLAIN ANALYZE, medians)");
    console.table(triggers);
    console.log('\nA write with the log on and off (ms, medians and ranges)');
    console.table(
      Object.entries(w).map(([k, v]) => ({
        write: k === 'one' ? "one ticket's update" : 'a 1 000-ticket update',
        'log on': `${median(v.on).toFixed(3)} (${range(v.on, 3)})`,
        'log off': `${median(v.off).toFixed(3)} (${range(v.off, 3)})`,
        ratio: (median(v.on) / median(v.off)).toFixed(3),
      })),
    );
  });
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
