// npm run bench:inbox: p50/p95 latency of the inbox (/w/acme: views, search, a deep page) and of a
// ticket page for a signed-in agent, measured with autocannon against a production build on a
// fresh local stack with BENCH_TICKETS (default 20 000) extra tickets from seed:bulk.
//   BENCH_SECONDS=10 BENCH_TICKETS=20000 BENCH_CONNECTIONS=20 npm run bench:inbox
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_DIR, startStack } from '../supabase/local/stack.ts';
import { printResults, run, signIn, startApp } from './bench-support.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const TICKETS = Number(process.env.BENCH_TICKETS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const AGENT = 'agent@acme.test';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-inbox-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
let app: Awaited<ReturnType<typeof startApp>> | undefined;

try {
  if (TICKETS > 0) {
    const seed = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/seed-bulk.ts', '--workspace', 'acme', '--tickets', String(TICKETS), '--db-url', stack.dbUrl], {
      cwd: PROJECT_DIR,
      stdio: 'inherit',
    });
    if (seed.status !== 0) throw new Error('seed:bulk failed');
  }
  app = await startApp(dir, stack);
  const { base } = app;

  const cookie = await signIn(base, stack.mailUrl, AGENT);
  const pages = [
    ['inbox: unassigned', '/w/acme'],
    ['inbox: all', '/w/acme?view=all'],
    ['inbox: mine', '/w/acme?view=mine'],
    ['inbox: all, page 40', '/w/acme?view=all&page=40'],
    ['inbox: search "refund"', '/w/acme?view=all&q=refund'],
    ['inbox: open + high priority', '/w/acme?view=open&priority=high'],
    ['ticket #1', '/w/acme/tickets/1'],
  ] as const;
  for (const [, p] of pages) {
    const res = await fetch(`${base}${p}`, { headers: { cookie }, redirect: 'manual' });
    if (res.status !== 200) throw new Error(`GET ${p} answered ${res.status}`);
  }

  const results = [];
  for (const [label, p] of pages) {
    await run(`${base}${p}`, { cookie }, 2, CONNECTIONS); // warm-up
    results.push({ label, ...(await run(`${base}${p}`, { cookie }, DURATION, CONNECTIONS)) });
  }
  printResults(`autocannon, ${CONNECTIONS} connections, ${DURATION} s each, loopback, NODE_ENV=production, acme + ${TICKETS} bulk tickets`, results);
} finally {
  await app?.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
