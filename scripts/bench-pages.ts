// npm run bench:pages: p50/p95 latency of GET /login and of a signed-in GET /account, measured
// with autocannon (20 connections, loopback) against a production build on a fresh local stack.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, PROJECT_DIR, startStack } from '../supabase/local/stack.ts';
import { prepareBuildDir, printResults, run, signIn } from './bench-support.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 20;
const bin = (name: string) => path.join(PROJECT_DIR, 'node_modules', '.bin', name);

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-pages-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
let app: ReturnType<typeof spawn> | undefined;

try {
  const buildDir = path.join(dir, 'app'); // private build (TEND_BUILD_DIR in remix.config.js)
  {
    prepareBuildDir(buildDir);
    const build = spawnSync(bin('remix'), ['build'], { cwd: PROJECT_DIR, stdio: 'inherit', env: { ...process.env, TEND_BUILD_DIR: buildDir } });
    if (build.status !== 0) throw new Error('remix build failed');
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  app = spawn(bin('remix-serve'), [path.join(buildDir, 'index.js')], {
    cwd: PROJECT_DIR,
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), SUPABASE_URL: stack.apiUrl, SUPABASE_ANON_KEY: stack.anonKey },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/login`)).ok) break;
    } catch {}
    if (i > 300) throw new Error('app did not start');
    await new Promise((r) => setTimeout(r, 100));
  }

  const cookie = await signIn(base, stack.mailUrl, `bench-${Date.now()}@example.com`);
  const account = await fetch(`${base}/account`, { headers: { cookie }, redirect: 'manual' });
  if (account.status !== 200) throw new Error(`signed-in /account answered ${account.status}`);

  const results = [];
  for (const [label, url, headers] of [
    ['GET /login (anonymous)', `${base}/login`, {}],
    ['GET /account (signed in)', `${base}/account`, { cookie }],
  ] as const) {
    await run(url, headers, 2, CONNECTIONS); // warm-up
    const r = await run(url, headers, DURATION, CONNECTIONS);
    results.push({ label, ...r });
  }
  printResults(`autocannon, ${CONNECTIONS} connections, ${DURATION} s each, loopback, NODE_ENV=production`, results);
} finally {
  if (app && app.exitCode === null) {
    const exited = new Promise((r) => app!.once('exit', r));
    app.kill('SIGTERM');
    await exited;
  }
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
