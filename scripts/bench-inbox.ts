// npm run bench:inbox: p50/p95 time to first byte of the inbox (/w/acme: every view, filters, a deep
// page, and searches: a common word, a rare one, one that matches nothing, a phrase, a requester's
// email, a ticket number) and of the ticket pages of tickets with 30, 200 and 1 000 messages (the long
// ones within 1.2 × the short one's p95: the page shows the newest 30), for a signed-in agent,
// each beside the same PostgREST call alone (GET /rest/v1/rpc/inbox with the agent's token) and the
// overhead ratio; a page whose p95 misses its target (views 100 ms, searches 150 ms) is flagged. Then
// the database's size, its largest indexes and the plan of each page's query inside public.inbox
// (EXPLAIN ANALYZE). Also the views of issue 27 (docs/decisions/062-saved-views-and-dense-inbox.md): a
// custom-field filter, the Mentions view, a prefix search, and the inbox of an agent with five saved
// views (their counts: tallies, a tag, a field, a search, a search in a view); and the figures of issues
// 27 and 28: a tag filter (?tag=), a `tag:` search and "Breaching soon" (tickets with a promise running).
// A production build on a fresh local stack with BENCH_TICKETS (default 100 000, up to 1 000 000) extra
// tickets from seed:bulk, one in ten of them tagged "billing" and one in twenty open ones with a due time.
//   BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_WARMUP=5 BENCH_TICKETS=100000 BENCH_CONNECTIONS=10 npm run bench:inbox
// BENCH_ONLY=<regular expression>: only the pages whose label matches (e.g. 'ticket|unassigned').
// BENCH_PLANS=all: every statement's plan inside public.inbox (docs/decisions/078-inbox-dressing-cost.md).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { startStack } from '@tend/supabase-local';
import { inboxArgs, inboxFilters } from '../app/lib/helpdesk/inbox-query.server.ts';
import {
  BASELINE,
  type BenchResult,
  cpuMs,
  keepSearchPairs,
  median,
  range,
  restHeadersOf,
  superuser,
  run,
  seedBulk,
  signIn,
  startApp,
} from './lib/bench.ts';
import { addInboxData, addThreads } from './lib/inbox-data.ts';
import { machineSpeed } from './lib/machine-speed.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Seconds per page and per PostgREST call before its rounds: every server worker's JIT warms up.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const AGENT = 'agent@acme.test';
// The agent with saved views (the other pages are AGENT's, who has none, as before).
const VIEWS_AGENT = 'agent2@acme.test';
// p95 targets (issue 19): every inbox view, filter and page; every search.
const VIEW_TARGET_MS = 100;
const SEARCH_TARGET_MS = 150;
// The ticket pages' tickets, added before the app starts: a thread of one page (30 messages), a long
// one and a very long one. The page shows the newest 30 of each (thread-window.ts): the long ones'
// p95 within LONG_THREAD_RATIO of the short one's (issue 27).
const THREADS = [30, 200, 1000];
const LONG_THREAD_RATIO = 1.2;
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
const ALL_PLANS = process.env.BENCH_PLANS === 'all';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-inbox-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
let app: Awaited<ReturnType<typeof startApp>> | undefined;
let baseline: Awaited<ReturnType<typeof startApp>> | undefined;

/**
 * The page's query string (its cursor too) → the arguments the loader passes to public.inbox, as it
 * makes them (app/lib/helpdesk/inbox-query.server.ts), in a GET's text (an array as `{a,b}`).
 */
function rpcArgs(search: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams({ p_slug: 'acme', p_limit: '25' });
  for (const [k, v] of Object.entries(inboxArgs(inboxFilters(search))))
    out.set(k, Array.isArray(v) ? `{${v.join(',')}}` : String(v));
  const after = search.get('after');
  if (after) {
    const [at, id] = Buffer.from(after, 'base64url').toString().split('|');
    out.set('p_after_at', at!);
    out.set('p_after_id', id!);
  }
  return out;
}

try {
  if (TICKETS > 0) {
    seedBulk(stack, TICKETS);
    await keepSearchPairs(stack);
    // Write the bulk load out now, not during the first measurements.
    await superuser(stack, async (c) => {
      await c.query('checkpoint');
    });
  }
  // Tickets with THREADS messages each (replies both ways, a note in ten), written as the app would
  // (the per-row triggers on): their ticket pages are timed below, the long ones beside the short one.
  const threads = await addThreads(stack, AGENT, THREADS);
  // The field, mentions, tags, promises and saved views bench:rest times too (scripts/lib/inbox-data.ts).
  const field = await addInboxData(stack, AGENT, VIEWS_AGENT);
  // Search terms from the seed (scripts/seed-bulk.ts): a requester's address and a ticket's number.
  const requesterEmail = 'bulk7.acme@example.test';
  const someNumber = Math.max(1, Math.floor(TICKETS / 2));

  app = await startApp(dir, stack);
  const { base, pid: appPid } = app;
  // BENCH_BASELINE (scripts/lib/bench.ts): the other version's pages, timed in the same rounds.
  if (BASELINE) baseline = await startApp(dir, stack, { projectDir: BASELINE });

  const cookie = await signIn(base, stack.mailUrl, AGENT);
  const viewsCookie = await signIn(base, stack.mailUrl, VIEWS_AGENT);
  const restHeaders = await restHeadersOf(stack, cookie);
  const speedBefore = await superuser(stack, machineSpeed);

  // Page 40 of "all" is reached the way a reader reaches it: 39 × "Older →".
  let page40 = '/w/acme?view=all';
  for (let i = 1; i < 40; i++) {
    const html = await (await fetch(`${base}${page40}`, { headers: { cookie } })).text();
    const next =
      /<a [^>]*href="([^"]+)"[^>]*rel="next"/.exec(html)?.[1] ??
      /<a [^>]*rel="next"[^>]*href="([^"]+)"/.exec(html)?.[1];
    if (!next) throw new Error(`no "Older" link on page ${i}`);
    page40 = next.replace(/&amp;/g, '&');
  }

  const q = (query: string) => `/w/acme?view=all&q=${encodeURIComponent(query)}`;
  // [label, path, p95 target in ms, expected status, cookie (AGENT's unless given)]
  const allPages: [string, string, number, number, string?][] = [
    ['inbox: unassigned (default)', '/w/acme', VIEW_TARGET_MS, 200],
    ['inbox: all', '/w/acme?view=all', VIEW_TARGET_MS, 200],
    ['inbox: mine', '/w/acme?view=mine', VIEW_TARGET_MS, 200],
    ['inbox: open', '/w/acme?view=open', VIEW_TARGET_MS, 200],
    ['inbox: pending', '/w/acme?view=pending', VIEW_TARGET_MS, 200],
    ['inbox: solved', '/w/acme?view=solved', VIEW_TARGET_MS, 200],
    ['inbox: all, page 40', page40, VIEW_TARGET_MS, 200],
    ['inbox: open + high priority', '/w/acme?view=open&priority=high', VIEW_TARGET_MS, 200],
    ['inbox: all, closed, nobody', '/w/acme?view=all&status=closed&assignee=none', VIEW_TARGET_MS, 200],
    ['inbox: custom field Plan = Pro', `/w/acme?view=all&f.${field}=Pro`, VIEW_TARGET_MS, 200],
    ['inbox: mentions', '/w/acme?view=mentions', VIEW_TARGET_MS, 200],
    ['inbox: 5 saved views (agent 2)', '/w/acme', VIEW_TARGET_MS, 200, viewsCookie],
    ['inbox: tag billing', '/w/acme?view=all&tag=billing', VIEW_TARGET_MS, 200],
    ['inbox: open, tag vip', '/w/acme?view=open&tag=vip', VIEW_TARGET_MS, 200],
    ['inbox: breaching soon', '/w/acme?view=breaching', VIEW_TARGET_MS, 200],
    ['search: common word "refund"', q('refund'), SEARCH_TARGET_MS, 200],
    ['search: rare word "espresso"', q('espresso'), SEARCH_TARGET_MS, 200],
    ['search: no match "zebra"', q('zebra'), SEARCH_TARGET_MS, 200],
    ['search: prefix "ref"', q('ref'), SEARCH_TARGET_MS, 200],
    ['search: "parcel" in Open only', '/w/acme?view=open&q=parcel&scope=view', SEARCH_TARGET_MS, 200],
    ['search: phrase "duplicate charge"', q('"duplicate charge"'), SEARCH_TARGET_MS, 200],
    ['search: two words "tracking number"', q('tracking number'), SEARCH_TARGET_MS, 200],
    ['search: two words "refund parcel"', q('refund parcel'), SEARCH_TARGET_MS, 200],
    ['search: "tag:billing refund"', q('tag:billing refund'), VIEW_TARGET_MS, 200],
    ['search: "tag:vip"', q('tag:vip'), VIEW_TARGET_MS, 200],
    ['search: note word "warehouse", open', '/w/acme?view=open&q=warehouse', SEARCH_TARGET_MS, 200],
    ["search: a requester's email", q(requesterEmail), SEARCH_TARGET_MS, 200],
    [`search: number #${someNumber} (redirect)`, q(`#${someNumber}`), SEARCH_TARGET_MS, 302],
    ...threads.map((t): [string, string, number, number] => [
      `ticket #${t.number}, ${t.messages} messages`,
      `/w/acme/tickets/${t.number}`,
      VIEW_TARGET_MS,
      200,
    ]),
  ];
  const pages = allPages.filter(([label]) => !ONLY || ONLY.test(label));
  for (const [, p, , status, own] of pages) {
    const res = await fetch(`${base}${p}`, { headers: { cookie: own ?? cookie }, redirect: 'manual' });
    if (res.status !== status) throw new Error(`GET ${p} answered ${res.status}`);
  }

  // Every page once before any is measured: caches, plans and both workers' JIT warm for all of them.
  for (const [, p, , , own] of pages) await run(`${base}${p}`, { cookie: own ?? cookie }, 2, CONNECTIONS);
  if (baseline)
    for (const [, p, , , own] of pages) await run(`${baseline.base}${p}`, { cookie: own ?? cookie }, 2, CONNECTIONS);
  const missed: string[] = [];
  const threadP95 = new Map<string, number[]>(); // p95 of each round, by path

  // Per page: a warm-up, then ROUNDS rounds of the page and the PostgREST call alone, alternating, and
  // the median of each figure over the rounds (a 2-core machine shared by everything is noisy).
  const rows: Record<string, string | number>[] = [];
  for (const [label, p, target, , own] of pages) {
    const pageCookie = own ?? cookie;
    let restUrl: string | undefined;
    // The call alone, as the page's agent (the saved views' page: the other agent's token).
    const callHeaders = own ? await restHeadersOf(stack, own) : restHeaders;
    if (p.startsWith('/w/acme?') || p === '/w/acme') {
      const args = rpcArgs(new URL(p, base).searchParams);
      restUrl = `${stack.apiUrl}/rest/v1/rpc/inbox?${args}`;
      const check = await fetch(restUrl, { headers: callHeaders });
      if (check.status !== 200) throw new Error(`GET ${restUrl} answered ${check.status}: ${await check.text()}`);
      await run(restUrl, callHeaders, WARMUP, CONNECTIONS);
    }
    await run(`${base}${p}`, { cookie: pageCookie }, WARMUP, CONNECTIONS);
    if (baseline) await run(`${baseline.base}${p}`, { cookie: pageCookie }, WARMUP, CONNECTIONS);
    const page: BenchResult[] = [];
    const rest: BenchResult[] = [];
    const basePage: BenchResult[] = [];
    // CPU per request, from /proc and this process, for every process on the machine that serves
    // it: the app's workers, Postgres + PostgREST, and this process (the gateway and autocannon).
    // PostgREST's own share of "db" too (docs/decisions/091-page-cpu-outside-sql.md).
    const stackPids = stack.processes().map((x) => x.pid);
    const restPids = stack
      .processes()
      .filter((x) => x.name === 'postgrest')
      .map((x) => x.pid);
    const sample = (pid: number) => {
      const own = process.cpuUsage();
      return {
        app: cpuMs([pid]),
        stack: cpuMs(stackPids),
        rest: cpuMs(restPids) ?? 0,
        bench: (own.user + own.system) / 1000,
      };
    };
    type Cpu = { app: number; stack: number; rest: number; bench: number };
    const measured = async (url: string, headers: Record<string, string>, cpu: Cpu[], pid = appPid) => {
      const before = sample(pid);
      const result = await run(url, headers, DURATION, CONNECTIONS);
      const after = sample(pid);
      if (
        before.app !== undefined &&
        after.app !== undefined &&
        before.stack !== undefined &&
        after.stack !== undefined
      ) {
        cpu.push({
          app: (after.app - before.app) / result.total,
          stack: (after.stack - before.stack) / result.total,
          rest: (after.rest - before.rest) / result.total,
          bench: (after.bench - before.bench) / result.total,
        });
      }
      return result;
    };
    const pageCpu: Cpu[] = [];
    const restCpu: Cpu[] = [];
    const baseCpu: Cpu[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      page.push(await measured(`${base}${p}`, { cookie: pageCookie }, pageCpu));
      if (restUrl) rest.push(await measured(restUrl, callHeaders, restCpu));
      if (baseline)
        basePage.push(await measured(`${baseline.base}${p}`, { cookie: pageCookie }, baseCpu, baseline.pid));
    }
    const cpuOf = (cpu: Cpu[], k: keyof Cpu) => (cpu.length ? median(cpu.map((c) => c[k])) : NaN);
    const cpuTotal = (cpu: Cpu[]) => (cpu.length ? median(cpu.map((c) => c.app + c.stack + c.bench)) : NaN);
    const fmt = (ms: number) => (Number.isNaN(ms) ? '' : ms.toFixed(2));
    const m = (xs: BenchResult[], k: 'p50' | 'p95' | 'rps') => (xs.length ? median(xs.map((x) => x[k])) : undefined);
    const [pageP50, pageP95, restP50, restP95] = [m(page, 'p50')!, m(page, 'p95')!, m(rest, 'p50'), m(rest, 'p95')];
    // Each round times the page and then the call alone, back to back: the ratio of a pair is
    // what the machine's drift in speed (±15 % from minute to minute) moves least.
    const ratios = (k: 'p50' | 'p95') => rest.map((q, i) => page[i]![k] / q[k]);
    const ratio = (k: 'p50' | 'p95') => (rest.length ? +median(ratios(k)).toFixed(2) : '');
    const spread = (k: 'p50' | 'p95') => (rest.length ? range(ratios(k)) : '');
    // This build ÷ the baseline's, per round (the two pages timed in the same round).
    const vsBase = (k: 'p50' | 'p95') => basePage.map((b, i) => page[i]![k] / b[k]);
    const baseColumns: Record<string, string | number> = baseline
      ? {
          'baseline p50 ms': m(basePage, 'p50')!,
          'baseline p95 ms': m(basePage, 'p95')!,
          'p50 ÷ baseline': +median(vsBase('p50')).toFixed(2),
          'p50 ÷ baseline rounds': range(vsBase('p50')),
          'p95 ÷ baseline': +median(vsBase('p95')).toFixed(2),
          'app CPU ms ÷ baseline': `${fmt(cpuOf(pageCpu, 'app'))} ÷ ${fmt(cpuOf(baseCpu, 'app'))}`,
          'db CPU ms ÷ baseline': `${fmt(cpuOf(pageCpu, 'stack'))} ÷ ${fmt(cpuOf(baseCpu, 'stack'))}`,
        }
      : {};
    if (pageP95 > target) missed.push(`${label}: p95 ${pageP95} ms > ${target} ms`);
    threadP95.set(
      p,
      page.map((r) => r.p95),
    );
    rows.push({
      page: label,
      'page p50 ms': pageP50,
      'page p95 ms': pageP95,
      'p95 target': pageP95 > target ? `MISSED ${target}` : `≤ ${target}`,
      'page req/s': m(page, 'rps')!,
      'PostgREST p50 ms': restP50 ?? '',
      'PostgREST p95 ms': restP95 ?? '',
      'ratio p50': ratio('p50'),
      'ratio p95': ratio('p95'),
      'ratio p50 rounds': spread('p50'),
      'page CPU ms: app+db+bench': pageCpu.length
        ? `${fmt(cpuOf(pageCpu, 'app'))}+${fmt(cpuOf(pageCpu, 'stack'))}+${fmt(cpuOf(pageCpu, 'bench'))}`
        : '',
      'call CPU ms: db+bench': restCpu.length ? `${fmt(cpuOf(restCpu, 'stack'))}+${fmt(cpuOf(restCpu, 'bench'))}` : '',
      'PostgREST CPU ms: page, call': `${fmt(cpuOf(pageCpu, 'rest'))}, ${fmt(cpuOf(restCpu, 'rest'))}`,
      'CPU ratio': restCpu.length ? +(cpuTotal(pageCpu) / cpuTotal(restCpu)).toFixed(2) : '',
      ...baseColumns,
      'non-2xx': [...page, ...rest, ...basePage].reduce((n, r) => n + r.non2xx, 0),
      errors: [...page, ...rest, ...basePage].reduce((n, r) => n + r.errors, 0),
    });
  }
  console.log(
    `\nautocannon, ${CONNECTIONS} connections, medians of ${ROUNDS} rounds of ${DURATION} s (after ${WARMUP} s warm-up), loopback, NODE_ENV=production, acme + ${TICKETS} bulk tickets`,
  );
  console.log(
    'PostgREST = the same public.inbox call the page makes, alone (GET /rest/v1/rpc/inbox through the gateway)',
  );
  console.log(
    'ms = from sending the request to the end of the response (one write each, so first byte ≈ last); ratio = median over the rounds of page ÷ PostgREST, each round timing both back to back',
  );
  console.log(
    "CPU ms = user + system time per request: app = the app's workers, db = Postgres + PostgREST (/proc; PostgREST's process alone in its own column), bench = this process (the gateway and autocannon); CPU ratio = all of it per page ÷ all of it per call",
  );
  console.table(rows);
  console.log(`before the rounds, ${speedBefore}\nafter them, ${await superuser(stack, machineSpeed)}`);
  // The long threads' pages against the one-page thread's (rounds timed one page after the other).
  const [short, ...long] = threads.map((t) => ({ ...t, p95: threadP95.get(`/w/acme/tickets/${t.number}`) ?? [] }));
  for (const t of long.filter((t) => t.p95.length && short?.p95.length)) {
    const ratios = t.p95.map((x, i) => x / short!.p95[i]!);
    const r = +median(ratios).toFixed(2);
    console.log(
      `ticket page p95, ${t.messages} messages ÷ ${short!.messages}: ${r} (rounds ${range(ratios)}; target ≤ ${LONG_THREAD_RATIO})`,
    );
    if (r > LONG_THREAD_RATIO) missed.push(`ticket page, ${t.messages} messages: p95 ${r} × the short thread's`);
  }
  console.log(missed.length ? `\nMISSED p95 targets:\n  ${missed.join('\n  ')}` : '\nEvery page met its p95 target.');

  await sizes();
  const token = (headers: { authorization: string }) => headers.authorization.slice('Bearer '.length);
  await explain(
    token(restHeaders),
    token(await restHeadersOf(stack, viewsCookie)),
    pages.map(([label, p, , , own]) => [label, p, !!own]),
  );
} finally {
  await baseline?.stop();
  await app?.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}

// The database's size and its largest relations and indexes.
async function sizes() {
  await superuser(stack, async (c) => {
    const db = (await c.query(`select pg_size_pretty(pg_database_size(current_database())) as size`)).rows[0].size;
    console.log(`\nDatabase size: ${db}`);
    const { rows } = await c.query(
      `select c.relname as name, case c.relkind when 'i' then 'index' else 'table' end as kind,
              pg_size_pretty(pg_relation_size(c.oid)) as size
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'i')
        order by pg_relation_size(c.oid) desc limit 15`,
    );
    console.table(rows);
  });
}

// EXPLAIN ANALYZE of the statements inside public.inbox that pick each page's tickets and count the saved
// views (auto_explain, nested statements), as the agent (the other agent for their saved views' page).
type Explained = [label: string, path: string, viewsAgent: boolean];
async function explain(accessToken: string, viewsToken: string, pages: Explained[]) {
  await superuser(stack, (client) => printPlans(client, accessToken, viewsToken, pages));
}

async function printPlans(client: pg.Client, accessToken: string, viewsToken: string, pages: Explained[]) {
  const plans: string[] = [];
  client.on('notice', (n) => plans.push(n.message ?? ''));
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  await client.query(`load 'auto_explain'`);
  for (const sql of [
    `set auto_explain.log_min_duration = 0`,
    `set auto_explain.log_nested_statements = on`,
    `set auto_explain.log_analyze = on`,
    `set auto_explain.log_buffers = on`,
    `set auto_explain.log_level = notice`,
    `set client_min_messages = notice`,
  ])
    await client.query(sql);
  for (const [label, p, viewsAgent] of pages) {
    if (!p.startsWith('/w/acme?') && p !== '/w/acme') continue;
    const args = rpcArgs(new URL(p, 'http://x').searchParams);
    const names = [...args.keys()];
    plans.length = 0;
    await client.query('begin');
    await client.query(`select set_config('request.jwt.claims', $1, true)`, [
      JSON.stringify(claimsOf(viewsAgent ? viewsToken : accessToken)),
    ]);
    await client.query('set local role authenticated');
    await client.query(
      `select public.inbox(${names.map((n, i) => `${n} => $${i + 1}`).join(', ')}) is not null`,
      names.map((n) => args.get(n)),
    );
    await client.query('rollback');
    // The whole call's time (with auto_explain's own cost) heads each page's plans.
    const whole = plans.find((x) => /Query Text: select public\.inbox\(/.test(x))?.match(/^duration: ([\d.]+) ms/)?.[1];
    console.log(
      `\nEXPLAIN ANALYZE inside public.inbox — ${label} (${p.length > 80 ? `${p.slice(0, 80)}…` : p}; the call ${whole} ms):`,
    );
    // The statements that pick the page (select array(…)) and count saved views, not the ones that dress it
    // (BENCH_PLANS=all: every statement inside the call, the dressing and the counts too).
    for (const plan of plans.filter(
      (x) => ALL_PLANS || /Query Text: select ((\$11 \|\| )?array\(|count\(\*\) from \(select 1 )/.test(x),
    )) {
      console.log(plan.replace(/^duration: [\d.]+ ms {2}plan:\n/, '').replace(/\n/g, '\n  '));
    }
  }
}
