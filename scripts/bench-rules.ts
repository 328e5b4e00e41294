// npm run bench:rules: issue 28's two figures for rules (docs/decisions/061-rules.md,
// docs/decisions/069-rules-cost.md), on one fresh local stack.
//  1. create_ticket's p50/p95 through PostgREST (as the portal calls it) in a workspace with five active
//     rules, SLA targets in business hours and automatic assignment (round robin), beside an identical
//     workspace with none of them (today's create_ticket), in alternating rounds; the ratio of the two.
//     Target: p95 with ≤ 1.5× without. Half the subjects ask for a refund and every body says "urgent", so
//     rules act, not only look (BENCH_RULES_MATCH=0: nothing matches, the rules only look).
//     A round of the rules' workspace ends when the mail catcher has every assignee's email its tickets
//     sent (their work is the round's), and prints how long each took after its ticket. CPU per ticket by
//     process: Postgres, PostgREST, notify's Deno, and this process (the stack's gateway, Auth, pg_net's
//     worker, functions router and mail catcher, and the bench's clients).
//     BENCH_PROFILE=1 adds a round per workspace with track_functions on: the database functions' time
//     per ticket created (self time: the function's own statements), to see where the difference goes.
//  2. The scheduler's sweeps over BENCH_SWEEP_TICKETS tickets (seed:bulk's, 100 000 by default): the
//     waiting rules' (run_waiting_rules) with one rule watching the biggest status, and the SLA breaches'
//     (record_sla_breaches) with a due time on every ticket in the backlog; each what pg_cron runs every
//     minute. The database CPU of a run with nothing due, with 100 and 1 000 tickets due, and of runs that
//     find everything due (each acts on at most its cap). Target: ≤ 2 s of database CPU a run at 1 M
//     tickets.
// Noisy on a shared machine: read the range of the rounds; the load average is printed beside each figure.
//   BENCH_TICKETS=400 BENCH_ROUNDS=4 BENCH_CONNECTIONS=4 BENCH_SWEEP_TICKETS=100000 npm run bench:rules
//   (BENCH_CREATE=0 skips the first figure, BENCH_SWEEP_TICKETS=0 the second; BENCH_ASSIGN_EMAIL=0 turns the
//   assignment emails off; BENCH_PROJECT_DIR and BENCH_BASELINE below; with a baseline, BENCH_RUN_WARM=40 creations
//   unmeasured before every run, 0 for none, and BENCH_SLICES=4 slices a run taking turns with the other runs')
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startStack, SUPERUSER } from '@tend/supabase-local';
import { accessToken } from './lib/jwt.ts';
import { cpuMs, cpuMsByTree, median, range, seedBulk, superuser } from './lib/bench.ts';

// A round is this many creations in each workspace, not a number of seconds: its p95 is the 20th slowest of 400,
// where 5 s of a quiet run gave ~160 tickets and a p95 that was one of its slowest eight.
const TICKETS = Number(process.env.BENCH_TICKETS ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const SWEEP_TICKETS = Number(process.env.BENCH_SWEEP_TICKETS ?? 100_000);
const TARGET_RATIO = 1.5;
const TARGET_SWEEP_MS = 2000;
const PROFILE = process.env.BENCH_PROFILE === '1';
// How many functions the profile lists (the biggest by self time with rules).
const PROFILE_TOP = Number(process.env.BENCH_PROFILE_TOP ?? 20);
const EXPLAIN = Number(process.env.BENCH_EXPLAIN ?? 0);
// With BENCH_BASELINE, the creations in a run's workspace before it, not measured (createFigure; 0: none).
const RUN_WARM = Number(process.env.BENCH_RUN_WARM ?? 40);
// With BENCH_BASELINE, each run's creations in this many slices, the four runs' slices taking turns (the first slice
// of each, then the second, …), so a burst of load on the shared machine falls on both versions alike.
const SLICES = process.env.BENCH_BASELINE || process.env.BENCH_BEFORE_DIR ? Number(process.env.BENCH_SLICES ?? 4) : 1;
// BENCH_RULES_MATCH=0: requests no rule's conditions match, so the rules only look (the engine's own cost).
const MATCH = process.env.BENCH_RULES_MATCH !== '0';
// BENCH_ASSIGN_EMAIL=0: assignments tell the assignee in the app only, to see what the emails cost the run.
const ASSIGN_EMAIL = process.env.BENCH_ASSIGN_EMAIL !== '0';
/** The machine's load average (1, 5, 15 min), to print beside a figure. */
const load = () =>
  `load ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`;
const AGENTS = [
  'a0000000-0000-4000-8000-000000000001',
  'a0000000-0000-4000-8000-000000000002',
  'a0000000-0000-4000-8000-000000000003',
];
const CUSTOMER = { id: 'c0000000-0000-4000-8000-000000000001', email: 'customer@example.test' };

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-rules-'));
chmodSync(dir, 0o755);
// BENCH_PROJECT_DIR=<a checkout's folder>: that version's database (its supabase/migrations), timed with this
// bench, to compare before and after a change in runs back to back (`git archive <commit> supabase | tar -x -C <dir>`).
const stack = await startStack({
  port: 0,
  dir: path.join(dir, 'data'),
  ephemeral: true,
  log: () => undefined,
  projectDir: process.env.BENCH_PROJECT_DIR,
});
// BENCH_BASELINE=<a git revision, or a checkout's folder> (BENCH_BEFORE_DIR, a folder, as before): that
// version's database on a second stack beside this one, and the first figure's rounds alternate over both
// (before and after in one run, under the same load). A revision's supabase/ is taken with `git archive`.
const BASELINE = process.env.BENCH_BASELINE ?? process.env.BENCH_BEFORE_DIR;
function baselineDir(baseline: string) {
  if (statSync(baseline, { throwIfNoEntry: false })?.isDirectory()) return path.resolve(baseline);
  const commit = execFileSync('git', ['rev-parse', '--verify', `${baseline}^{commit}`], { encoding: 'utf8' }).trim();
  const out = path.join(dir, 'baseline-project');
  mkdirSync(out);
  execFileSync('sh', ['-c', 'git archive "$1" supabase | tar -x -C "$2"', 'sh', commit, out]);
  return out;
}
const before = BASELINE
  ? await startStack({
      port: 0,
      dir: path.join(dir, 'before'),
      ephemeral: true,
      log: () => undefined,
      projectDir: baselineDir(BASELINE),
    })
  : undefined;
type AnyStack = typeof stack;

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * CONNECTIONS clients creating `count` tickets in `slug` between them: p50, p95 (ms), how many, and the
 * stack's CPU (Postgres, PostgREST and the rest of its processes, from /proc) per ticket, which the
 * machine's load moves far less than latency.
 */
async function round(slug: string, token: string, on: AnyStack = stack, count = TICKETS) {
  const times: number[] = [];
  const mails = slug === 'bench-rules' && ASSIGN_EMAIL ? await mailWatch(on) : undefined;
  const since = mails && (await mails.query('select now() as t')).rows[0].t;
  const meter = cpuMeter(on);
  const ownBefore = ownCpuMs();
  const headers = { apikey: on.anonKey, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  let k = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (k < count) {
        const subject = k++ % 2 || !MATCH ? 'Printer on fire' : 'Refund for a double charge';
        const started = performance.now();
        const res = await fetch(`${on.apiUrl}/rest/v1/rpc/create_ticket`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            p_workspace_slug: slug,
            p_subject: subject,
            p_body: MATCH ? 'It is urgent, please.' : 'Help.',
          }),
        });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`create_ticket in ${slug}: ${res.status}`);
        times.push(performance.now() - started);
      }
    }),
  );
  const email = mails && (await emailsLanded(mails, since));
  const own = ownCpuMs() - ownBefore;
  const cpu = meter.stop();
  const n = times.length;
  const by = { node: own / n } as Record<(typeof PROCESSES)[number] | 'node', number>;
  for (const k of PROCESSES) by[k] = cpu[k] / n;
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    times,
    n,
    cpu: by.postgres + by.postgrest + by.deno,
    by,
    pgKinds: Object.fromEntries(PG_KINDS.map((k) => [k, cpu.postgresKinds[k] / n])) as Record<PgKind, number>,
    opened: cpu.postgresKinds.opened,
    email,
  };
}

/** A connection per stack that watches the assignees' emails (opened once: a connection's start is CPU too). */
const watchers = new Map<AnyStack, Promise<pg.Client>>();
function mailWatch(on: AnyStack) {
  if (!watchers.has(on))
    watchers.set(
      on,
      (async () => {
        const url = new URL(on.dbUrl);
        url.username = SUPERUSER;
        const c = new pg.Client({ connectionString: url.toString() });
        await c.connect();
        return c;
      })(),
    );
  return watchers.get(on)!;
}

/**
 * Waits until every email the round's tickets sent has reached the mail catcher (a notification is
 * `emailed_at` once the catcher accepted its message), so the round's CPU holds all of its emails' work
 * and none of it falls into the next round; then how long that took after the last ticket (the backlog)
 * and how long after its ticket each email landed (p50, p95): what an assignee waits for the email.
 */
async function emailsLanded(c: pg.Client, since: Date) {
  const ended = performance.now();
  for (;;) {
    const { rows } = await c.query(
      `select count(*) filter (where n.emailed_at is null)::int as waiting,
              percentile_cont(array[0.5, 0.95]) within group (order by extract(epoch from n.emailed_at - n.created_at) * 1000)
                filter (where n.emailed_at is not null) as lag
         from notifications n join workspaces w on w.id = n.workspace_id
        where w.slug = 'bench-rules' and n.email = 'each' and n.created_at >= $1`,
      [since],
    );
    const backlog = performance.now() - ended;
    if (rows[0].waiting === 0 || backlog > 60_000) {
      if (rows[0].waiting) console.log(`  ${rows[0].waiting} emails still waiting 60 s after the round`);
      return { backlog, lagP50: rows[0].lag?.[0] ?? 0, lagP95: rows[0].lag?.[1] ?? 0 };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

// The stack's processes whose CPU a round counts (each with its children: Postgres's backends), and this
// process's own, printed apart: it holds the stack's gateway, Auth, pg_net's worker, the functions router
// and the mail catcher, and the bench's own clients (the same work a ticket in both workspaces).
const PROCESSES = ['postgres', 'postgrest', 'deno'] as const;
type Group = (typeof PROCESSES)[number];
const groupOf = (name: string): Group | undefined =>
  name.startsWith('deno') ? 'deno' : PROCESSES.find((k) => k === name);

/**
 * The CPU (ms) each group of the stack's processes used from now to `stop()`, counted per process (with its
 * children) the stack had at any reading. Reading only the processes there at the start read a negative Deno
 * figure in some rounds: the functions runtime retires notify's worker at half its wall-clock limit (every
 * 200 s) and starts another; the retired one's CPU left the sum (its parent is this process, whose ended
 * children process.cpuUsage leaves out) and its successor's was never read. A process's CPU only grows, so each
 * reading keeps its largest; one first seen after the start counts from 0 (it started in the round). Read every
 * second: one that ends loses at most its last second (a retired worker has no requests left by then).
 */
function cpuMeter(on: AnyStack) {
  const first = new Map<number, number>();
  const last = new Map<number, { group: Group; ms: number }>();
  const pg = postgresKinds(on);
  const read = (start: boolean) => {
    pg.read(start);
    const roots = on.processes().flatMap((p) => {
      const group = groupOf(p.name);
      return group ? [{ pid: p.pid, group }] : [];
    });
    const ms = cpuMsByTree(Object.fromEntries(roots.map((r) => [r.pid, [r.pid]])));
    for (const r of roots) {
      const now = ms?.[r.pid] ?? 0;
      if (!first.has(r.pid)) first.set(r.pid, start ? now : 0);
      last.set(r.pid, { group: r.group, ms: Math.max(now, last.get(r.pid)?.ms ?? 0) });
    }
  };
  read(true);
  const timer = setInterval(() => read(false), 1000);
  return {
    stop() {
      clearInterval(timer);
      read(false);
      const out = Object.fromEntries(PROCESSES.map((k) => [k, 0])) as Record<Group, number>;
      for (const [pid, l] of last) out[l.group] += l.ms - first.get(pid)!;
      return { ...out, postgresKinds: pg.stop() };
    },
  };
}

// Postgres's backends by what they serve: the API's requests (PostgREST's pool), realtime's WAL decoding, the
// stack's own connections (pg_net's and pg_cron's workers, the bench's watcher) and Postgres's own processes.
const PG_KINDS = ['api', 'walsender', 'stack', 'own'] as const;
type PgKind = (typeof PG_KINDS)[number];
const PG_KIND_LABELS: Record<PgKind, string> = {
  api: 'the API (PostgREST)',
  walsender: "realtime's WAL decoding",
  stack: "the stack's connections (pg_net, pg_cron, the bench's watcher)",
  own: "Postgres's own (WAL writer, checkpointer, autovacuum)",
};
const pgKindOf = (title: string): PgKind =>
  title.startsWith('postgres: walsender')
    ? 'walsender'
    : title.startsWith('postgres: authenticator')
      ? 'api'
      : /^postgres: \S+ \S+ \d/.test(title)
        ? 'stack'
        : 'own';

/** The CPU (ms) of Postgres's processes by kind, read as cpuMeter reads the stack's (each one's largest reading). */
function postgresKinds(on: AnyStack) {
  const root = on.processes().find((p) => p.name === 'postgres')?.pid;
  const first = new Map<number, number>();
  const last = new Map<number, { kind: PgKind; ms: number }>();
  const atStart = new Set<number>();
  const read = (start: boolean) => {
    if (root === undefined) return;
    for (const c of childrenOf(root)) {
      if (start) atStart.add(c.pid);
      if (!first.has(c.pid)) first.set(c.pid, start ? c.ms : 0);
      last.set(c.pid, { kind: pgKindOf(c.title), ms: Math.max(c.ms, last.get(c.pid)?.ms ?? 0) });
    }
  };
  return {
    read,
    stop() {
      const out = Object.fromEntries(PG_KINDS.map((k) => [k, 0])) as Record<PgKind, number>;
      for (const [pid, l] of last) out[l.kind] += l.ms - first.get(pid)!;
      // PostgREST's connections opened during the round: each plans and compiles the functions it runs afresh.
      const opened = [...last].filter(([pid, l]) => l.kind === 'api' && !atStart.has(pid)).length;
      return { ...out, opened };
    },
  };
}

/** A process's children: pid, title (its command line) and CPU ms (its own, not its children's). */
function childrenOf(ppid: number) {
  const out: { pid: number; title: string; ms: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const raw = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) !== ppid) continue;
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      out.push({ pid: Number(entry), title, ms: (Number(f[11]) + Number(f[12])) * 10 });
    } catch {
      /* the process ended */
    }
  }
  return out;
}

const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** A rule in a workspace, as an admin writes it (the database's checks apply). */
const RULES = (refund: string, agent: string) => [
  {
    name: 'Refunds to billing',
    event: 'ticket_created',
    conditions: [{ field: 'subject', op: 'contains', value: 'refund, money back, chargeback' }],
    actions: [
      { type: 'add_tag', value: refund },
      { type: 'assign', value: agent },
    ],
  },
  {
    name: 'Urgent words',
    event: 'ticket_created',
    match_all: false,
    conditions: [
      { field: 'body', op: 'contains', value: 'urgent, asap' },
      { field: 'requester_domain', op: 'is', value: 'bigcustomer.test' },
    ],
    actions: [{ type: 'set_priority', value: 'high' }],
  },
  {
    name: 'Mail from the board',
    event: 'ticket_created',
    conditions: [
      { field: 'channel', op: 'is', value: 'email' },
      { field: 'requester_email', op: 'is', value: 'board@example.test' },
    ],
    actions: [{ type: 'notify', value: agent }],
  },
  {
    name: 'Thanks solves',
    event: 'customer_replied',
    conditions: [{ field: 'body', op: 'contains', value: 'thanks, solved' }],
    actions: [{ type: 'set_status', value: 'solved' }],
  },
  {
    name: 'Stale open',
    event: 'ticket_waited',
    wait_status: 'open',
    wait_hours: 8,
    conditions: [{ field: 'priority', op: 'is_not', value: 'urgent' }],
    actions: [{ type: 'set_priority', value: 'high' }],
  },
];

async function insertRules(c: pg.Client, ws: string, rules: Record<string, unknown>[]) {
  for (const r of rules)
    await c.query(
      `insert into rules (workspace_id, name, event, wait_status, wait_hours, match_all, conditions, actions)
       values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        ws,
        r.name,
        r.event,
        r.wait_status ?? null,
        r.wait_hours ?? null,
        r.match_all ?? true,
        JSON.stringify(r.conditions ?? []),
        JSON.stringify(r.actions),
      ],
    );
}

/**
 * Two workspaces alike but for the promises and the rules: Mon–Fri hours with a lunch break, targets for
 * every priority in business hours, round robin among three agents, five rules. The requester's token.
 */
async function setUp(on: AnyStack) {
  await superuser(on, async (c) => {
    const { rows } = await c.query(
      `insert into workspaces (name, slug, time_zone) values ('Plain', 'bench-plain', 'Europe/Berlin'), ('Rules', 'bench-rules', 'Europe/Berlin')
       returning id, slug`,
    );
    const ws = rows.find((r) => r.slug === 'bench-rules').id;
    await c.query(
      `insert into business_hours (workspace_id, weekday, opens, closes)
       select $1, d, o, c from generate_series(1, 5) d, (values (time '08:00', time '12:00'), (time '13:30', time '18:00')) p(o, c)`,
      [ws],
    );
    await c.query(
      `insert into sla_targets (workspace_id, priority, first_response_minutes, next_response_minutes, resolution_minutes)
       select $1, p, 60, 120, 960 from unnest(enum_range(null::ticket_priority)) p`,
      [ws],
    );
    for (const r of rows)
      await c.query(
        `insert into memberships (workspace_id, user_id, role) select $1, u, 'agent' from unnest($2::uuid[]) u`,
        [r.id, AGENTS],
      );
    await c.query(`insert into assignment_settings (workspace_id, mode) values ($1, 'round_robin')`, [ws]);
    // BENCH_ASSIGN_EMAIL=0: the team's default for "assigned" is in the app only, so no ticket's assignment sends
    // an email (today's workspace sends none either: "new request" is off by email by default).
    if (!ASSIGN_EMAIL)
      await c.query(
        `insert into notification_defaults (workspace_id, kind, email, in_app) values ($1, 'assigned', 'off', true)`,
        [ws],
      );
    const refund = (await c.query(`insert into tags (workspace_id, name) values ($1, 'refund') returning id`, [ws]))
      .rows[0].id;
    await insertRules(c, ws, RULES(refund, AGENTS[1]!));
  });
  return accessToken(on.jwtSecret, { sub: CUSTOMER.id, email: CUSTOMER.email, session_id: crypto.randomUUID() });
}

type Round = Awaited<ReturnType<typeof round>>;

/** A run made of slices (SLICES) as one: its creations' p50 and p95, CPU and connections a ticket over all of them. */
function joined(parts: Round[]): Round {
  if (parts.length === 1) return parts[0]!;
  const times = parts.flatMap((p) => p.times).sort((a, b) => a - b);
  const n = times.length;
  const per = (f: (p: Round) => number) => parts.reduce((sum, p) => sum + f(p) * p.n, 0) / n;
  const mails = parts.map((p) => p.email).filter((e) => e !== undefined);
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    times,
    n,
    cpu: per((p) => p.cpu),
    by: Object.fromEntries(
      Object.keys(parts[0]!.by).map((k) => [k, per((p) => p.by[k as keyof Round['by']])]),
    ) as Round['by'],
    pgKinds: Object.fromEntries(PG_KINDS.map((k) => [k, per((p) => p.pgKinds[k])])) as Round['pgKinds'],
    opened: parts.reduce((sum, p) => sum + p.opened, 0),
    // The emails' lag and backlog: the median of the slices'.
    email: mails.length
      ? {
          backlog: median(mails.map((e) => e.backlog)),
          lagP50: median(mails.map((e) => e.lagP50)),
          lagP95: median(mails.map((e) => e.lagP95)),
        }
      : undefined,
  };
}

async function createFigure() {
  const token = await setUp(stack);
  const beforeToken = before && (await setUp(before));
  // Warm-up: connections, plans, caches.
  const warm = Math.max(40, TICKETS / 4);
  await round('bench-plain', token, stack, warm);
  await round('bench-rules', token, stack, warm);
  if (before && beforeToken) {
    await round('bench-plain', beforeToken, before, warm);
    await round('bench-rules', beforeToken, before, warm);
  }
  const rows: Rows = [];
  const beforeRows: Rows = [];
  for (let i = 1; i <= ROUNDS; i++) {
    // Alternate which goes first (and, with a before, which version), so drift on the machine falls on all alike.
    const runs = [
      { key: 'plain', slug: 'bench-plain', on: stack, token, into: rows },
      { key: 'rules', slug: 'bench-rules', on: stack, token, into: rows },
      ...(before && beforeToken
        ? [
            { key: 'plain', slug: 'bench-plain', on: before, token: beforeToken, into: beforeRows },
            { key: 'rules', slug: 'bench-rules', on: before, token: beforeToken, into: beforeRows },
          ]
        : []),
    ];
    const order = i % 2 ? runs : [...runs].reverse();
    const parts = new Map(runs.map((r) => [r, [] as Round[]]));
    for (let slice = 0; slice < SLICES; slice++)
      for (const r of order) {
        // With two stacks, one idles through the other's runs, and PostgREST closes a connection idle for 30 s (its
        // db-pool-max-idletime): the first run after the other stack's started on new connections, which plan and
        // compile every function afresh, and that run was always the same one (this stack's rules, the baseline's
        // plain), which made the same code read dearer on one side. Each run now starts warm.
        if (before && RUN_WARM && slice === 0) await round(r.slug, r.token, r.on, RUN_WARM);
        const count = Math.floor(TICKETS / SLICES) + (slice < TICKETS % SLICES ? 1 : 0);
        parts.get(r)!.push(await round(r.slug, r.token, r.on, count));
      }
    const got = new Map(runs.map((r) => [r, joined(parts.get(r)!)]));
    for (const into of [rows, beforeRows]) {
      const mine = runs.filter((r) => r.into === into);
      if (mine.length)
        into.push({
          round: i,
          plain: got.get(mine.find((r) => r.key === 'plain')!)!,
          rules: got.get(mine.find((r) => r.key === 'rules')!)!,
        });
    }
  }
  if (before) {
    console.log(`\nBEFORE (${BASELINE}), in the same rounds:`);
    printCreate(
      beforeRows,
      beforeRows.map((r) => r.rules.p95 / r.plain.p95),
    );
    console.log('\nAFTER (this checkout):');
  }
  const fired = await superuser(stack, async (c) =>
    Number(
      (
        await c.query(
          `select count(*) from rule_firings f join workspaces w on w.id = f.workspace_id where w.slug = 'bench-rules'`,
        )
      ).rows[0].count,
    ),
  );
  const ratios = rows.map((r) => r.rules.p95 / r.plain.p95);
  printCreate(rows, ratios, fired);
  if (before) printAgainst(rows, beforeRows);
  if (PROFILE) await profile(token);
  if (EXPLAIN) await explainStatements();
}

/**
 * BENCH_EXPLAIN=<n>: n more creations in each workspace, one at a time, on a superuser session acting as the
 * requester (the claims PostgREST sets), with auto_explain reporting every statement, nested ones included (the
 * triggers', the deferred rules' at the commit), to the session: each statement's calls and milliseconds a ticket
 * (its execution with what it runs: an outer statement's time holds its nested ones'), the biggest with rules.
 */
async function explainStatements() {
  const per = new Map<string, { plain?: { calls: number; ms: number }; rules?: { calls: number; ms: number } }>();
  await superuser(stack, async (c) => {
    let key: 'plain' | 'rules' = 'plain';
    c.on('notice', (m) => {
      const text = /Query Text: ([\s\S]*?)(\n\S|$)/.exec(m.message ?? '')?.[1];
      const ms = Number(/duration: ([\d.]+) ms/.exec(m.message ?? '')?.[1]);
      if (!text || Number.isNaN(ms)) return;
      const q = text.replace(/\s+/g, ' ').trim().slice(0, 110);
      const f = per.get(q) ?? {};
      const x = (f[key] ??= { calls: 0, ms: 0 });
      x.calls += 1 / EXPLAIN;
      x.ms += ms / EXPLAIN;
      per.set(q, f);
    });
    await c.query(`load 'auto_explain'`);
    for (const [k, v] of Object.entries({
      'auto_explain.log_min_duration': '0',
      'auto_explain.log_nested_statements': 'on',
      'auto_explain.log_analyze': 'on',
      'auto_explain.log_timing': 'off',
      'auto_explain.log_level': 'notice',
      client_min_messages: 'notice',
    }))
      await c.query('select set_config($1, $2, false)', [k, v]);
    const claims = JSON.stringify({ sub: CUSTOMER.id, email: CUSTOMER.email, role: 'authenticated', aal: 'aal1' });
    for (const [slug, k] of [
      ['bench-plain', 'plain'],
      ['bench-rules', 'rules'],
    ] as const) {
      for (let i = 0; i < EXPLAIN; i++) {
        key = 'plain';
        await c.query('begin');
        await c.query(`select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`, [
          claims,
        ]);
        key = k;
        await c.query('select public.create_ticket($1, $2, $3)', [
          slug,
          i % 2 || !MATCH ? 'Printer on fire' : 'Refund for a double charge',
          MATCH ? 'It is urgent, please.' : 'Help.',
        ]);
        await c.query('commit');
      }
    }
  });
  console.log(
    `\nStatements per ticket created (auto_explain, ${EXPLAIN} creations a workspace one at a time; ${load()})`,
  );
  console.table(
    topWithRules(per, (x) => x.ms).map(([q, f]) => ({
      statement: q,
      'today calls': (f.plain?.calls ?? 0).toFixed(1),
      'today ms': (f.plain?.ms ?? 0).toFixed(3),
      'rules calls': (f.rules?.calls ?? 0).toFixed(1),
      'rules ms': (f.rules?.ms ?? 0).toFixed(3),
    })),
  );
}

type Rows = { round: number; plain: Round; rules: Round }[];

/**
 * This checkout ÷ the baseline, round by round (the two ran in the same round, under the same load), and the
 * median and range of each: the p95 ratio (with rules ÷ today) the target is about, and the Postgres CPU a
 * ticket, which the machine's load moves least.
 */
function printAgainst(rows: Rows, beforeRows: Rows) {
  const per = (f: (r: Rows[number]) => number) => rows.map((r, i) => f(r) / f(beforeRows[i]!));
  const line = (label: string, xs: number[]) =>
    `${label} ${median(xs).toFixed(2)} (rounds ${range(xs)}: ${xs.map((x) => x.toFixed(2)).join(', ')})`;
  console.log(
    `\nthis ÷ baseline (${BASELINE}), per round: ${[
      line(
        'p95 ratio',
        per((r) => r.rules.p95 / r.plain.p95),
      ),
      line(
        "today's p95",
        per((r) => r.plain.p95),
      ),
      line(
        'p95 with rules',
        per((r) => r.rules.p95),
      ),
      line(
        'Postgres CPU a ticket with rules',
        per((r) => r.rules.by.postgres),
      ),
      line(
        'today',
        per((r) => r.plain.by.postgres),
      ),
      // The assignees' emails: notify's worker and the stack's Node side (gateway, pg_net, router, catcher).
      line(
        "notify's Deno CPU a ticket with rules",
        per((r) => r.rules.by.deno),
      ),
      line(
        "this process's CPU a ticket with rules",
        per((r) => r.rules.by.node),
      ),
    ].join('; ')}; ${load()}`,
  );
}

function printCreate(rows: Rows, ratios: number[], fired?: number) {
  // A new ticket's due time in business hours walks further from a Friday evening than from a Tuesday morning.
  const when = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Berlin',
    weekday: 'long',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date());
  console.log(
    `\ncreate_ticket through PostgREST, ${CONNECTIONS} clients, ${TICKETS} tickets a workspace a round, ${ROUNDS} rounds; ` +
      `${when} in the workspaces' zone (Europe/Berlin)`,
  );
  console.table(
    rows.map((r, i) => ({
      round: r.round,
      'today p50 ms': r.plain.p50.toFixed(1),
      'today p95 ms': r.plain.p95.toFixed(1),
      '5 rules+SLA+RR p50 ms': r.rules.p50.toFixed(1),
      '5 rules+SLA+RR p95 ms': r.rules.p95.toFixed(1),
      'p95 ratio': ratios[i]!.toFixed(2),
      'today CPU ms/ticket': r.plain.cpu.toFixed(1),
      'rules CPU ms/ticket': r.rules.cpu.toFixed(1),
      'CPU ratio': (r.rules.cpu / r.plain.cpu).toFixed(2),
      // PostgREST's connections opened in the run (today / with rules): a run on new ones is a cold one.
      'new API conns': `${r.plain.opened}/${r.rules.opened}`,
      tickets: r.plain.n + r.rules.n,
    })),
  );
  const cpuRatios = rows.map((r) => r.rules.cpu / r.plain.cpu);
  console.log(
    `stack CPU per ticket (10 ms ticks): today ${median(rows.map((r) => r.plain.cpu)).toFixed(1)} ms, with rules ` +
      `${median(rows.map((r) => r.rules.cpu)).toFixed(1)} ms; ratio ${median(cpuRatios).toFixed(2)} (rounds ${range(cpuRatios)})`,
  );
  const mail = rows.map((r) => r.rules.email).filter((e) => e !== undefined);
  if (mail.length)
    console.log(
      `assignees' emails: each in the catcher after its ticket p50 ${median(mail.map((e) => e.lagP50)).toFixed(0)} ms, p95 ${median(mail.map((e) => e.lagP95)).toFixed(0)} ms ` +
        `(rounds' p95 ${range(
          mail.map((e) => e.lagP95),
          0,
        )}); the last one ${median(mail.map((e) => e.backlog)).toFixed(0)} ms after the round's last ticket ` +
        `(rounds ${range(
          mail.map((e) => e.backlog),
          0,
        )}), counted in the round's CPU`,
    );
  const by = (k: keyof Round['by'], key: 'plain' | 'rules') => median(rows.map((r) => r[key].by[k])).toFixed(1);
  console.log(
    `CPU per ticket by process (medians of the rounds), today → with rules: ${(
      ['postgres', 'postgrest', 'deno', 'node'] as const
    )
      .map(
        (k) =>
          `${k === 'node' ? 'this process (gateway, Auth, pg_net, router, catcher, clients)' : k} ${by(k, 'plain')} → ${by(k, 'rules')}`,
      )
      .join(' · ')} ms`,
  );
  console.log(
    `Postgres's CPU per ticket by backend (medians of the rounds), today → with rules: ${PG_KINDS.map(
      (k) =>
        `${PG_KIND_LABELS[k]} ${median(rows.map((r) => r.plain.pgKinds[k])).toFixed(1)} → ${median(rows.map((r) => r.rules.pgKinds[k])).toFixed(1)}`,
    ).join(' · ')} ms`,
  );
  const ratio = median(ratios);
  console.log(
    `median p50: today ${median(rows.map((r) => r.plain.p50)).toFixed(1)} ms, with rules ${median(rows.map((r) => r.rules.p50)).toFixed(1)} ms; ` +
      `median p95: today ${median(rows.map((r) => r.plain.p95)).toFixed(1)} ms, with rules ${median(rows.map((r) => r.rules.p95)).toFixed(1)} ms;` +
      ` ratio ${ratio.toFixed(2)} (rounds ${range(ratios)}), target ≤ ${TARGET_RATIO}${ratio > TARGET_RATIO ? '  ← MISSED' : ''};` +
      `${fired === undefined ? '' : ` ${fired} firings;`} ${load()}`,
  );
}

/**
 * One round per workspace with track_functions on: each database function's calls, total and self time
 * (its own statements, not the functions it calls) per ticket created, the workspace with rules beside
 * the one without, the biggest by self time (BENCH_PROFILE_TOP, 20). The backends report their counts when idle (at most
 * 10 s later), hence the wait.
 */
async function profile(token: string) {
  await superuser(stack, async (c) => {
    await c.query(`alter system set track_functions = 'all'`);
    await c.query('select pg_reload_conf()');
  });
  const per = new Map<string, { plain?: FunctionTimes; rules?: FunctionTimes }>();
  for (const [slug, key] of [
    ['bench-plain', 'plain'],
    ['bench-rules', 'rules'],
  ] as const) {
    await superuser(stack, (c) => c.query('select pg_stat_reset()'));
    const { n } = await round(slug, token);
    await new Promise((r) => setTimeout(r, 11_000));
    const { rows } = await superuser(stack, (c) =>
      c.query(
        `select schemaname || '.' || funcname as name, sum(calls)::float8 as calls, sum(total_time)::float8 as total,
                sum(self_time)::float8 as self
           from pg_stat_user_functions where schemaname in ('public', 'private') group by 1`,
      ),
    );
    for (const r of rows)
      per.set(r.name, { ...per.get(r.name), [key]: { calls: r.calls / n, total: r.total / n, self: r.self / n } });
  }
  await superuser(stack, async (c) => {
    await c.query('alter system reset track_functions');
    await c.query('select pg_reload_conf()');
  });
  const sum = (k: 'plain' | 'rules') => [...per.values()].reduce((a, f) => a + (f[k]?.self ?? 0), 0);
  console.log(
    `\nDatabase functions per ticket created (track_functions; ms of self time, all functions: ` +
      `today ${sum('plain').toFixed(2)}, with rules ${sum('rules').toFixed(2)}); ${load()}`,
  );
  console.table(
    topWithRules(per, (x) => x.self).map(([name, f]) => ({
      function: name,
      'today calls': (f.plain?.calls ?? 0).toFixed(1),
      'today self ms': (f.plain?.self ?? 0).toFixed(3),
      'rules calls': (f.rules?.calls ?? 0).toFixed(1),
      'rules self ms': (f.rules?.self ?? 0).toFixed(3),
      'rules total ms': (f.rules?.total ?? 0).toFixed(3),
    })),
  );
}
/** A profile's PROFILE_TOP entries with the most of `by` with rules (functions, statements), biggest first. */
function topWithRules<T>(per: Map<string, { plain?: T; rules?: T }>, by: (x: T) => number) {
  const of = (x?: T) => (x === undefined ? 0 : by(x));
  return [...per.entries()].sort((a, b) => of(b[1].rules) - of(a[1].rules)).slice(0, PROFILE_TOP);
}
interface FunctionTimes {
  calls: number;
  total: number;
  self: number;
}

/** A sweep's database CPU (ms) and wall time, and what it returned, measured on its own backend. */
async function sweepOnce(c: pg.Client, pid: number, sql: string) {
  const before = cpuMs([pid])!;
  const started = performance.now();
  const n = Number((await c.query(sql)).rows[0].n);
  return { cpu: cpuMs([pid])! - before, wall: performance.now() - started, n };
}

/**
 * One sweep's runs: five with nothing due, three with 100 due, three with 1 000 due, three with
 * everything due (`due(k)` makes k more rows due, null: all of them); each row of the table is a run.
 */
async function sweepRuns(c: pg.Client, pid: number, sql: string, due: (k: number | null) => Promise<unknown>) {
  const runs: { run: string; tickets: number; cpu: number; wall: number; load: string }[] = [];
  for (const [label, k, times] of [
    ['nothing due', 0, 5],
    ['100 due', 100, 3],
    ['1 000 due', 1000, 3],
    ['all due', null, 3],
  ] as const)
    for (let i = 0; i < times; i++) {
      if (k !== 0 && (k !== null || i === 0)) await due(k);
      const r = await sweepOnce(c, pid, sql);
      runs.push({ run: `${label} ${i + 1}`, tickets: r.n, cpu: r.cpu, wall: r.wall, load: load() });
    }
  console.table(
    runs.map((r) => ({
      run: r.run,
      tickets: r.tickets,
      'db CPU ms': r.cpu.toFixed(0),
      'wall ms': r.wall.toFixed(0),
      load: r.load,
    })),
  );
  const of = (label: string) => runs.filter((r) => r.run.startsWith(label));
  const cpu = (label: string) => median(of(label).map((r) => r.cpu));
  const busy = of('all due');
  const perTicket = cpu('all due') / Math.max(1, median(busy.map((r) => r.tickets)));
  console.log(
    `median database CPU a run: nothing due ${cpu('nothing due').toFixed(0)} ms, 100 due ${cpu('100 due').toFixed(0)} ms, ` +
      `1 000 due ${cpu('1 000 due').toFixed(0)} ms, all due ${cpu('all due').toFixed(0)} ms (${range(
        busy.map((r) => r.cpu),
        0,
      )}; ` +
      `${perTicket.toFixed(2)} ms a ticket); target ≤ ${TARGET_SWEEP_MS} ms` +
      `${Math.max(...runs.map((r) => r.cpu)) > TARGET_SWEEP_MS ? '  ← MISSED' : ''}. CPU is sampled in 10 ms ticks.`,
  );
}

async function sweepFigure() {
  seedBulk(stack, SWEEP_TICKETS);
  await superuser(stack, async (c) => {
    // This run's sweeps are the only ones: pg_cron's every minute would race the bulk updates below.
    await c.query(`update cron.job set active = false where jobname in ('waiting-rules', 'sla-breaches')`);
    // The breach sweep emails each assignee through notify (net.http_post, as in production); the requests
    // go to a closed port here, so thousands of emails don't load the machine the figures come from.
    await c.query(`update vault.secrets set secret = 'http://127.0.0.1:9' where name = 'project_url'`);
    const pid = (await c.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    const ws = (await c.query(`select id from workspaces where slug = 'acme'`)).rows[0].id;
    const total = (await c.query('select count(*)::int as n from tickets')).rows[0].n as number;
    // Business hours (the sweep's threshold is business time), and a waiting rule on the biggest status.
    await c.query(
      `insert into business_hours (workspace_id, weekday, opens, closes)
       select $1, d, time '08:00', time '18:00' from generate_series(1, 5) d`,
      [ws],
    );
    const { rows: byStatus } = await c.query(
      `select status, count(*)::int as n from tickets where workspace_id = $1 and status <> 'closed' group by 1 order by 2 desc`,
      [ws],
    );
    const status = byStatus[0].status as string;
    const made = performance.now();
    const before = cpuMs([pid])!;
    await insertRules(c, ws, [
      {
        name: 'Stale tickets',
        event: 'ticket_waited',
        wait_status: status,
        wait_hours: 24,
        actions: [{ type: 'set_priority', value: 'high' }],
      },
    ]);
    const backfill = { cpu: cpuMs([pid])! - before, wall: performance.now() - made };
    const watched = Number((await c.query('select count(*) from rule_waits')).rows[0].count);
    // Every watch starts now: nothing is due; due(k) backdates k more by a week.
    await c.query(`update rule_waits set since = now()`);
    await c.query('vacuum analyze rule_waits');
    console.log(
      `\nThe waiting rules' sweep: ${total} tickets in the database, ${watched} watched by one rule (status ${status}); ` +
        `making the rule (watching them): ${backfill.cpu.toFixed(0)} ms database CPU, ${backfill.wall.toFixed(0)} ms; ${load()}`,
    );
    await sweepRuns(c, pid, 'select public.run_waiting_rules() as n', (k) =>
      c.query(
        k === null
          ? `update rule_waits set since = now() - interval '7 days'`
          : `update rule_waits set since = now() - interval '7 days'
              where ctid = any (array(select ctid from rule_waits where since > now() - interval '1 day' limit $1))`,
        k === null ? [] : [k],
      ),
    );

    // The breach sweep: a first-response due time tomorrow on every open ticket, as SLA targets would have
    // given them. Written outside the realtime publication (hundreds of thousands of changes nobody listens
    // to), which takes the table back before the sweep runs.
    await c.query('alter publication supabase_realtime drop table ticket_sla');
    await c.query(
      `insert into ticket_sla (ticket_id, workspace_id, target, started_at, due_at, warn_at)
       select id, workspace_id, 'first_response', created_at, now() + interval '1 day', now() + interval '18 hours'
         from tickets where workspace_id = $1 and private.is_open(status)`,
      [ws],
    );
    await c.query('alter publication supabase_realtime add table ticket_sla');
    await c.query('vacuum analyze ticket_sla');
    const promised = (await c.query('select count(*)::int as n from ticket_sla where workspace_id = $1', [ws])).rows[0]
      .n as number;
    console.log(`\nThe SLA breach sweep: ${total} tickets in the database, ${promised} with a due time; ${load()}`);
    await breachingSoon(c, total, promised);
    await sweepRuns(c, pid, 'select public.record_sla_breaches() as n', (k) =>
      c.query(
        k === null
          ? `update ticket_sla set due_at = now() - interval '1 minute' where breached_at is null`
          : `update ticket_sla set due_at = now() - interval '1 minute'
              where ticket_id = any (array(select ticket_id from ticket_sla where breached_at is null and due_at > now() limit $1))`,
        k === null ? [] : [k],
      ),
    );
    console.log(
      'A run reads only what is due (an index range: rule_waits by rule and since, ticket_sla by due time where not ' +
        'yet breached), so nothing due costs the same at any size; a run acts on at most its cap.',
    );
  });
}

/**
 * "Breaching soon" (public.inbox, view=breaching) over these due times, as an agent inside the database: the
 * plan of the statement that picks the page (auto_explain, nested statements: it should read the first rows of
 * ticket_sla_due_idx's range, whatever the count), then 20 calls' median and p95.
 */
async function breachingSoon(c: pg.Client, total: number, promised: number) {
  const claims = JSON.stringify({ sub: AGENTS[1], role: 'authenticated', email: 'agent@acme.test' });
  const call = `select public.inbox(p_slug => 'acme', p_view => 'breaching') is not null`;
  const plans: string[] = [];
  const listen = (n: { message?: string }) => plans.push(n.message ?? '');
  c.on('notice', listen);
  await c.query('begin');
  await c.query(`load 'auto_explain'`);
  for (const setting of ['log_min_duration = 0', 'log_nested_statements = on', 'log_analyze = on', 'log_buffers = on'])
    await c.query(`set local auto_explain.${setting}`);
  await c.query(`set local auto_explain.log_level = notice`);
  await c.query(`set local client_min_messages = notice`);
  await c.query(`select set_config('request.jwt.claims', $1, true)`, [claims]);
  await c.query('set local role authenticated');
  await c.query(call);
  await c.query('rollback');
  c.off('notice', listen);
  const page = plans.find((x) => /Query Text: select array\(select t\.id from public\.ticket_sla/.test(x));
  console.log(
    `\n"Breaching soon" at ${total} tickets (${promised} due times): the page's statement inside public.inbox`,
  );
  console.log(`  ${(page ?? '(no plan)').replace(/^duration: [\d.]+ ms {2}plan:\n/, '').replace(/\n/g, '\n  ')}`);
  const times: number[] = [];
  await c.query('begin');
  await c.query(`select set_config('request.jwt.claims', $1, true)`, [claims]);
  await c.query('set local role authenticated');
  for (let i = 0; i < 21; i++) {
    const started = performance.now();
    await c.query(call);
    if (i > 0) times.push(performance.now() - started);
  }
  await c.query('rollback');
  times.sort((a, b) => a - b);
  console.log(
    `  public.inbox(view=breaching), 20 calls in the database: median ${median(times).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms; ${load()}`,
  );
}

try {
  if (process.env.BENCH_CREATE !== '0') await createFigure();
  if (SWEEP_TICKETS > 0) await sweepFigure();
} finally {
  for (const c of watchers.values()) await (await c).end();
  await before?.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
