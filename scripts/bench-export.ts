// npm run bench:export: the CSV export (/w/acme/export.csv?view=all) for an admin at BENCH_TICKETS
// (default 100 000) extra tickets from seed:bulk: time to first byte, total time, rows and bytes, and
// the app server's resident memory sampled while it streams (it should not grow with the rows).
// Production build on a fresh local stack. BENCH_NODE_ARGS="--max-old-space-size=64" runs the app with
// a small heap, which the export must fit whatever the number of rows.
//   BENCH_ROUNDS=3 BENCH_TICKETS=100000 npm run bench:export
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_DIR, startStack } from '@tend/supabase-local';
import { median, range, signIn, startApp } from './lib/bench.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-export-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
let app: Awaited<ReturnType<typeof startApp>> | undefined;

/** Resident memory of a process and its children (the app's workers), in MB. */
function rssMb(pid: number): number {
  let total = 0;
  const visit = (p: number) => {
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      const children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
      for (const c of children ? children.split(/\s+/) : []) visit(Number(c));
    } catch {}
  };
  visit(pid);
  return total / 1024;
}

try {
  if (TICKETS > 0) {
    const args = ['--import', 'tsx', 'scripts/seed-bulk.ts', '--workspace', 'acme', '--tickets', String(TICKETS)];
    const seed = spawnSync(process.execPath, [...args, '--db-url', stack.dbUrl], {
      cwd: PROJECT_DIR,
      stdio: 'inherit',
    });
    if (seed.status !== 0) throw new Error('seed:bulk failed');
  }
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean);
  app = await startApp(dir, stack, { env: { WEB_CONCURRENCY: '1' }, nodeArgs });
  const cookie = await signIn(app.base, stack.mailUrl, 'admin@acme.test');
  const totals: number[] = [];
  const firstBytes: number[] = [];
  const peaks: number[] = [];
  let rows = 0;
  let bytes = 0;
  const idle = rssMb(app.pid);
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const res = await fetch(`${app.base}/w/acme/export.csv?view=all`, { headers: { cookie } });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    firstBytes.push(performance.now() - started);
    let peak = 0;
    rows = 0;
    bytes = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(app!.pid));
    }, 100);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 0x0a) rows++;
    }
    clearInterval(sampler);
    totals.push(performance.now() - started);
    peaks.push(peak);
  }
  console.log(`export of ${rows - 1} tickets (${(bytes / 1e6).toFixed(1)} MB), ${ROUNDS} rounds:`);
  console.log(`  time to first byte  median ${median(firstBytes).toFixed(0)} ms  (${range(firstBytes, 0)})`);
  console.log(
    `  total               median ${(median(totals) / 1000).toFixed(2)} s  (${range(totals.map((t) => t / 1000))})`,
  );
  console.log(`  rows per second     median ${((rows - 1) / (median(totals) / 1000)).toFixed(0)}`);
  const rates = totals.map((t) => bytes / 1e6 / (t / 1000));
  console.log(`  MB per second       median ${median(rates).toFixed(2)}  (${range(rates)})`);
  console.log(
    `  app RSS             idle ${idle.toFixed(0)} MB, peak while streaming median ${median(peaks).toFixed(0)} MB (${range(peaks, 0)})`,
  );
} finally {
  await app?.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
