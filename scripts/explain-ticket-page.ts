// Where public.ticket_page's time goes (docs/decisions/075-page-cpu.md): starts a throw-away stack, adds
// TICKETS bulk tickets (seed:bulk) and the threads of bench:inbox (30, 200 and 1 000 messages), then for each
// thread prints the plans of the statements inside the function (auto_explain: nested statements, timings,
// buffers) and times CALLS calls of it as the agent, in one session.
//   npx tsx scripts/explain-ticket-page.ts [tickets] [calls]
// Plans and CPU per call, not a benchmark of pages (bench:inbox): this machine is shared.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { startStack } from '@tend/supabase-local';
import { median, range, seedBulk, superuser } from './lib/bench.ts';
import { addThreads } from './lib/inbox-data.ts';

const TICKETS = Number(process.argv[2] ?? 100_000);
const CALLS = Number(process.argv[3] ?? 200);
const ROUNDS = 5;
const AGENT = 'agent@acme.test';
const THREADS = [30, 200, 1000];

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-explain-ticket-'));
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
try {
  if (TICKETS > 0) seedBulk(stack, TICKETS);
  // The threads as bench:inbox writes them.
  const rows = await addThreads(stack, AGENT, THREADS);
  await superuser(stack, async (c) => {
    await c.query('checkpoint');
    await c.query('analyze');
    const { rows: agent } = await c.query(`select id from auth.users where email = $1`, [AGENT]);
    const claims = JSON.stringify({ sub: agent[0].id, role: 'authenticated', aud: 'authenticated' });
    await plans(c, claims, rows);
    await timings(c, claims, rows);
  });
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** As the agent, the way PostgREST runs a call: claims set, role authenticated, in a transaction. */
async function asAgent<T>(c: pg.Client, claims: string, fn: () => Promise<T>): Promise<T> {
  await c.query('begin');
  await c.query(`select set_config('request.jwt.claims', $1, true)`, [claims]);
  await c.query('set local role authenticated');
  try {
    return await fn();
  } finally {
    await c.query('rollback');
  }
}

async function plans(c: pg.Client, claims: string, tickets: { number: number }[]) {
  const notices: string[] = [];
  const listen = (n: { message?: string }) => notices.push(n.message ?? '');
  c.on('notice', listen);
  await c.query(`load 'auto_explain'`);
  for (const sql of [
    'set auto_explain.log_min_duration = 0',
    'set auto_explain.log_nested_statements = on',
    'set auto_explain.log_analyze = on',
    'set auto_explain.log_buffers = on',
    'set auto_explain.log_timing = on',
    'set auto_explain.log_level = notice',
    'set client_min_messages = notice',
  ])
    await c.query(sql);
  for (const [i, t] of tickets.entries()) {
    // Once to warm the cache and the plan, then the one printed.
    await asAgent(c, claims, () => c.query(`select public.ticket_page('acme', $1) is not null`, [t.number]));
    notices.length = 0;
    await asAgent(c, claims, () => c.query(`select public.ticket_page('acme', $1) is not null`, [t.number]));
    console.log(`\n===== ticket_page, ${THREADS[i]} messages (#${t.number}) =====`);
    for (const n of notices) console.log(n.replace(/\n/g, '\n  '));
  }
  c.off('notice', listen);
  await c.query('set auto_explain.log_min_duration = -1');
}

async function timings(c: pg.Client, claims: string, tickets: { number: number }[]) {
  const rows: Record<string, string | number>[] = [];
  const per = new Map<number, number[]>();
  for (let round = 0; round < ROUNDS; round++)
    for (const t of tickets) {
      const ms = await asAgent(c, claims, async () => {
        const t0 = performance.now();
        for (let i = 0; i < CALLS; i++) await c.query(`select public.ticket_page('acme', $1) is not null`, [t.number]);
        return (performance.now() - t0) / CALLS;
      });
      per.set(t.number, [...(per.get(t.number) ?? []), ms]);
    }
  for (const [i, t] of tickets.entries()) {
    const ms = per.get(t.number)!;
    rows.push({ messages: THREADS[i]!, 'ms a call (median)': +median(ms).toFixed(2), rounds: range(ms) });
  }
  console.log(`\nticket_page as the agent, ${CALLS} calls a round, ${ROUNDS} rounds (wall time in one session):`);
  console.table(rows);
}
