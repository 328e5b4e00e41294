// npm run bench:pages: p50/p95 latency of GET /login and of a signed-in GET /account, measured
// with autocannon (20 connections, loopback) against a production build on a fresh local stack.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '@tend/supabase-local';
import { BASELINE, type BenchResult, cpuMs, median, printResults, range, run, signIn, startApp } from './lib/bench.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
// With BENCH_BASELINE (scripts/lib/bench.ts) each page is timed in rounds, this build and the
// baseline's back to back; the table has medians, and the ratio's range over the rounds.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (BASELINE ? 3 : 1));
const CONNECTIONS = 20;
// What Chromium sends: the server compresses what a browser would get compressed.
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';
// BENCH_ONLY=login|account: one of the two pages.
const ONLY = process.env.BENCH_ONLY;
const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-pages-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
let app: Awaited<ReturnType<typeof startApp>> | undefined;
let baseline: Awaited<ReturnType<typeof startApp>> | undefined;

try {
  app = await startApp(dir, stack, {
    nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean),
  });
  const { base } = app;
  if (BASELINE) baseline = await startApp(dir, stack, { projectDir: BASELINE });

  const cookie = await signIn(base, stack.mailUrl, `bench-${Date.now()}@example.com`);
  const servers = [base, ...(baseline ? [baseline.base] : [])];
  for (const server of servers) {
    const account = await fetch(`${server}/account`, { headers: { cookie }, redirect: 'manual' });
    if (account.status !== 200) throw new Error(`signed-in ${server}/account answered ${account.status}`);
  }

  const results = [];
  const compared: Record<string, string | number>[] = [];
  for (const [label, path, headers] of [
    ['GET /login (anonymous)', '/login', { 'accept-encoding': BROWSER_ENCODINGS }],
    ['GET /account (signed in)', '/account', { cookie, 'accept-encoding': BROWSER_ENCODINGS }],
  ] as const) {
    if (ONLY && !label.includes(`/${ONLY} `)) continue;
    for (const server of servers) await run(`${server}${path}`, headers, 2, CONNECTIONS); // warm-up
    const ours: BenchResult[] = [];
    const theirs: BenchResult[] = [];
    // The server's own CPU per request (its primary and workers, from /proc), which the machine's
    // drift moves far less than latency.
    const ourCpu: number[] = [];
    const theirCpu: number[] = [];
    const timed = async (server: { base: string; pid: number }, into: BenchResult[], cpu: number[]) => {
      const before = cpuMs([server.pid]);
      const result = await run(`${server.base}${path}`, headers, DURATION, CONNECTIONS);
      const after = cpuMs([server.pid]);
      into.push(result);
      if (before !== undefined && after !== undefined) cpu.push((after - before) / result.total);
    };
    for (let round = 0; round < ROUNDS; round++) {
      await timed(app, ours, ourCpu);
      if (baseline) await timed(baseline, theirs, theirCpu);
    }
    const m = (xs: BenchResult[], k: keyof BenchResult) => median(xs.map((x) => x[k]));
    results.push({
      label,
      ...ours[0]!,
      p50: m(ours, 'p50'),
      p95: m(ours, 'p95'),
      p99: m(ours, 'p99'),
      rps: m(ours, 'rps'),
      total: ours.reduce((n, r) => n + r.total, 0),
      non2xx: ours.reduce((n, r) => n + r.non2xx, 0),
      errors: ours.reduce((n, r) => n + r.errors, 0),
    });
    if (baseline) {
      const ratios = (k: 'p50' | 'p95' | 'rps') => ours.map((r, i) => r[k] / theirs[i]![k]);
      compared.push({
        page: label,
        'p50 ms': m(ours, 'p50'),
        'baseline p50 ms': m(theirs, 'p50'),
        'p50 ÷ baseline': +median(ratios('p50')).toFixed(2),
        'p50 rounds': range(ratios('p50')),
        'p95 ms': m(ours, 'p95'),
        'baseline p95 ms': m(theirs, 'p95'),
        'p95 ÷ baseline': +median(ratios('p95')).toFixed(2),
        'p95 rounds': range(ratios('p95')),
        'req/s ÷ baseline': +median(ratios('rps')).toFixed(2),
        'CPU ms/req': ourCpu.length ? +median(ourCpu).toFixed(3) : '',
        'baseline CPU ms/req': theirCpu.length ? +median(theirCpu).toFixed(3) : '',
        'CPU rounds': range(ourCpu.map((c, i) => c / theirCpu[i]!)),
        'baseline non-2xx': theirs.reduce((n, r) => n + r.non2xx + r.errors, 0),
      });
    }
  }
  const rounds = ROUNDS > 1 ? `medians of ${ROUNDS} rounds of ${DURATION} s` : `${DURATION} s each`;
  printResults(`autocannon, ${CONNECTIONS} connections, ${rounds}, loopback, NODE_ENV=production`, results);
  if (baseline) {
    console.log(`\nagainst the baseline (${BASELINE}), the two timed back to back in each round`);
    console.table(compared);
  }
} finally {
  await baseline?.stop();
  await app?.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
