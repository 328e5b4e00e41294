// npm run bench:pages: p50/p95 latency of GET /login and of a signed-in GET /account, measured
// with autocannon (20 connections, loopback) against a production build on a fresh local stack.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../supabase/local/stack.ts';
import { printResults, run, signIn, startApp } from './bench-support.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 20;
// What Chromium sends: the server compresses what a browser would get compressed.
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';
// BENCH_ONLY=login|account: one of the two pages.
const ONLY = process.env.BENCH_ONLY;
// BENCH_CPU_PROF=<dir>: the server's processes write V8 CPU profiles there (node --cpu-prof).
const PROFILE_DIR = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-pages-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
let app: Awaited<ReturnType<typeof startApp>> | undefined;

try {
  app = await startApp(dir, stack, {
    nodeArgs: [
      ...(PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : []),
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
  });
  const { base } = app;

  const cookie = await signIn(base, stack.mailUrl, `bench-${Date.now()}@example.com`);
  const account = await fetch(`${base}/account`, { headers: { cookie }, redirect: 'manual' });
  if (account.status !== 200) throw new Error(`signed-in /account answered ${account.status}`);

  const results = [];
  for (const [label, url, headers] of [
    ['GET /login (anonymous)', `${base}/login`, { 'accept-encoding': BROWSER_ENCODINGS }],
    ['GET /account (signed in)', `${base}/account`, { cookie, 'accept-encoding': BROWSER_ENCODINGS }],
  ] as const) {
    if (ONLY && !label.includes(`/${ONLY} `)) continue;
    await run(url, headers, 2, CONNECTIONS); // warm-up
    const r = await run(url, headers, DURATION, CONNECTIONS);
    results.push({ label, ...r });
  }
  printResults(`autocannon, ${CONNECTIONS} connections, ${DURATION} s each, loopback, NODE_ENV=production`, results);
} finally {
  await app?.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
