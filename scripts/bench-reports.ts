// npm run bench:reports: p50/p95 of the reports page (/w/acme/reports) for a signed-in admin at 7, 30,
// 90 and 366 days, each beside the same PostgREST call alone (GET /rest/v1/rpc/workspace_report with
// the admin's token) and the ratio of the two; then the rollups' sizes. A production build on a fresh
// local stack with BENCH_TICKETS (default 100 000) extra tickets from seed:bulk. Targets: p95 ≤ 300 ms
// at 100 000 tickets (issue 18), ≤ 500 ms for 90 days at 1 000 000 (issue 19): a miss is flagged.
// BENCH_SEED=tickets seeds bare ticket rows instead (no messages, history or search: nothing the report
// reads), through the same statement triggers, in a fraction of seed:bulk's time.
//   BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_TICKETS=100000 BENCH_CONNECTIONS=2 npm run bench:reports
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { PROJECT_DIR, startStack } from '@tend/supabase-local';
import { median, range, restHeadersOf, run, superuser, signIn, startApp, type BenchResult } from './lib/bench.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = 3;
const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
// Reports are an admin's page: a couple of admins at once, not the inbox's ten agents.
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 2);
const ADMIN = 'admin@acme.test';
const SEED = process.env.BENCH_SEED === 'tickets' ? 'tickets' : 'bulk';
const TARGET_P95_MS = TICKETS >= 1_000_000 ? 500 : 300;

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-reports-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
let app: Awaited<ReturnType<typeof startApp>> | undefined;

/**
 * BENCH_SEED=tickets: TICKETS bare tickets at Acme over the last year, in seed:bulk's mix of statuses and
 * times, 100 000 a statement. The per-row triggers (numbers, history, search) are off in each batch's
 * transaction; the statement triggers that keep the tallies and the report's rollups run as for any insert.
 */
async function seedTickets(c: pg.Client) {
  const ROW_TRIGGERS = [
    'tickets_number',
    'tickets_assignee',
    'tickets_transition',
    'tickets_search',
    'tickets_history',
  ];
  const BATCH = 100_000;
  for (let done = 0; done < TICKETS; done += BATCH) {
    const n = Math.min(BATCH, TICKETS - done);
    await c.query('begin');
    for (const t of ROW_TRIGGERS) await c.query(`alter table public.tickets disable trigger ${t}`);
    await c.query(
      `with ws as (
         update public.workspaces set ticket_seq = ticket_seq + $1 where slug = 'acme' returning id, ticket_seq - $1 as first
       ), people as (
         select array_agg(user_id) filter (where true) as agents from public.memberships where workspace_id = (select id from ws)
       ), plan as (
         select g, date_trunc('second', now() - random() * interval '365 days') as opened,
                (array['new','open','open','open','pending','pending','solved','solved','solved','closed']::public.ticket_status[])[1 + floor(random() * 10)::int] as status
           from generate_series(1, $1) g
       )
       insert into public.tickets (workspace_id, number, requester_id, subject, status, assignee_id, created_at, updated_at,
                                   last_message_at, first_response_at, solved_at, closed_at)
       select ws.id, ws.first + g, 'c0000000-0000-4000-8000-000000000001', 'Bulk ticket ' || (ws.first + g), status,
              case when status <> 'new' and g % 4 <> 0 then people.agents[1 + g % array_length(people.agents, 1)] end,
              opened, opened, opened,
              case when status <> 'new' then opened + random() * interval '8 hours' end,
              case when status in ('solved', 'closed') then opened + random() * interval '4 days' end,
              case when status = 'closed' then opened + interval '9 days' end
         from plan, ws, people`,
      [n],
    );
    for (const t of ROW_TRIGGERS) await c.query(`alter table public.tickets enable trigger ${t}`);
    await c.query('commit');
    process.stdout.write(`\r${done + n} / ${TICKETS} tickets`);
  }
  await c.query('vacuum (analyze) public.tickets');
  console.log();
}

try {
  let seedSeconds = 0;
  if (TICKETS > 0) {
    const t0 = performance.now();
    if (SEED === 'tickets') await superuser(stack, seedTickets);
    else {
      const args = ['--import', 'tsx', 'scripts/seed-bulk.ts', '--workspace', 'acme', '--tickets', String(TICKETS)];
      const seed = spawnSync(process.execPath, [...args, '--db-url', stack.dbUrl], {
        cwd: PROJECT_DIR,
        stdio: 'inherit',
      });
      if (seed.status !== 0) throw new Error('seed:bulk failed');
    }
    seedSeconds = (performance.now() - t0) / 1000;
    // The rollups' statistics, as autovacuum would gather them a little after a bulk load.
    await superuser(stack, (c) => c.query('vacuum (analyze) private.report_slots, private.report_durations'));
    await superuser(stack, (c) => c.query('checkpoint'));
  }
  const today = await superuser(
    stack,
    async (c) =>
      (
        await c.query(
          `select to_char((now() at time zone time_zone)::date, 'YYYY-MM-DD') as today from workspaces where slug = 'acme'`,
        )
      ).rows[0].today as string,
  );
  const daysBefore = (n: number) => new Date(Date.parse(today) - n * 86_400_000).toISOString().slice(0, 10);

  app = await startApp(dir, stack);
  const { base } = app;
  const cookie = await signIn(base, stack.mailUrl, ADMIN);
  const restHeaders = await restHeadersOf(stack, cookie);

  // The page's URL, and the call its loader makes.
  const ranges: [string, string, Record<string, string>, number][] = [
    ['last 7 days', '?range=7', { p_days: '7' }, 7],
    ['last 30 days (default)', '', { p_days: '30' }, 30],
    ['last 90 days', '?range=90', { p_days: '90' }, 90],
    ['366 days (custom)', `?from=${daysBefore(365)}&to=${today}`, { p_from: daysBefore(365), p_to: today }, 366],
  ];
  const rows: Record<string, string | number>[] = [];
  const misses: string[] = [];
  for (const [label, query, rpcArgs, days] of ranges) {
    const pageUrl = `${base}/w/acme/reports${query}`;
    const args = new URLSearchParams({ p_slug: 'acme', ...rpcArgs });
    const restUrl = `${stack.apiUrl}/rest/v1/rpc/workspace_report?${args}`;
    for (const [url, headers] of [
      [pageUrl, { cookie }],
      [restUrl, restHeaders],
    ] as const) {
      const res = await fetch(url, { headers, redirect: 'manual' });
      if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
    }
    await run(pageUrl, { cookie }, WARMUP, CONNECTIONS);
    await run(restUrl, restHeaders, WARMUP, CONNECTIONS);
    // Rounds of the page and the call alone, back to back: the ratio of a pair is what the machine's
    // drift in speed moves least.
    const page: BenchResult[] = [];
    const rest: BenchResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      page.push(await run(pageUrl, { cookie }, DURATION, CONNECTIONS));
      rest.push(await run(restUrl, restHeaders, DURATION, CONNECTIONS));
    }
    const m = (xs: BenchResult[], k: 'p50' | 'p95' | 'rps') => median(xs.map((x) => x[k]));
    const ratios = (k: 'p50' | 'p95') => rest.map((q, i) => page[i]![k] / q[k]);
    const failed = [...page, ...rest].reduce((n, r) => n + r.non2xx + r.errors, 0);
    const p95 = m(page, 'p95');
    // The targets: any preset at 100 000 (issue 18), 90 days at 1 M (issue 19); a year is shown, not judged.
    const judged = TICKETS >= 1_000_000 ? days === 90 : days <= 90;
    const miss = judged && p95 > TARGET_P95_MS;
    if (miss) misses.push(`${label}: page p95 ${p95} ms > ${TARGET_P95_MS} ms`);
    rows.push({
      range: label,
      'page p50 ms': m(page, 'p50'),
      'page p95 ms': p95,
      'page p95 rounds': range(
        page.map((r) => r.p95),
        1,
      ),
      'page req/s': m(page, 'rps'),
      'RPC p50 ms': m(rest, 'p50'),
      'RPC p95 ms': m(rest, 'p95'),
      'RPC p95 rounds': range(
        rest.map((r) => r.p95),
        1,
      ),
      'ratio p50': +median(ratios('p50')).toFixed(2),
      'ratio p95': +median(ratios('p95')).toFixed(2),
      'ratio p95 rounds': range(ratios('p95')),
      failed,
      target: !judged ? '—' : miss ? `MISSED (${TARGET_P95_MS} ms)` : `ok (${TARGET_P95_MS} ms)`,
    });
  }
  console.log(
    `\nReports at ${TICKETS} extra tickets (${SEED === 'tickets' ? 'bare rows' : 'seed:bulk'} in ${seedSeconds.toFixed(1)} s), ${ROUNDS} rounds × ${DURATION} s, ${CONNECTIONS} connection(s); medians over rounds, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}:`,
  );
  console.table(rows);
  const sizes = await superuser(
    stack,
    async (c) =>
      (
        await c.query(
          `select relname as table, n_live_tup as rows, pg_size_pretty(pg_total_relation_size(relid)) as size
             from pg_stat_user_tables where relname in ('tickets', 'report_slots', 'report_durations', 'ticket_tallies') order by 1`,
        )
      ).rows,
  );
  console.log('\nTables the report reads (rollups) and the tickets they summarise:');
  console.table(sizes);
  if (misses.length) {
    console.log(`\nTargets missed:\n  ${misses.join('\n  ')}`);
    process.exitCode = 1;
  }
} finally {
  await app?.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
