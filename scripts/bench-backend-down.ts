// npm run bench:backend-down — how long a signed-in page takes to say backend_unavailable (503)
// when the backend refuses connections, and when the gateway answers 502 for a dead PostgREST;
// beside it, the same pages with the backend up. The e2e test (tests/e2e/backend-down.spec.ts)
// checks what the page says; the time it takes is printed here: median and slowest of
// BENCH_ROUNDS (default 20) sequential requests per page, against the 1 s the page should take.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, startStack } from '@tend/supabase-local';
import { startAppServer } from './lib/app-server.ts';
import { median, signIn, startApp } from './lib/bench.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const TARGET_MS = 1_000;
const PAGES = ['/support/acme', '/support/acme/new'];

// The gateway's answer when PostgREST behind it has died (Kong's words, as supabase/local/gateway's).
const DEAD_UPSTREAM = '{"message":"An invalid response was received from the upstream server"}';
const BAD_GATEWAY = `HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json\r\ncontent-length: ${DEAD_UPSTREAM.length}\r\nconnection: close\r\n\r\n${DEAD_UPSTREAM}`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-backend-down-'));
chmodSync(dir, 0o755); // as root, Postgres runs as an unprivileged user that must reach it
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
const stops: (() => Promise<void>)[] = [];

/** Milliseconds of each of ROUNDS requests for `page`, each answered `status`. */
async function times(base: string, page: string, cookie: string, status: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}${page}`, { headers: { cookie }, redirect: 'manual' });
    await res.arrayBuffer();
    out.push(performance.now() - t0);
    if (res.status !== status) throw new Error(`${base}${page} answered ${res.status}, not ${status}`);
  }
  return out;
}

try {
  const app = await startApp(dir, stack, { env: { WEB_CONCURRENCY: '1' } });
  stops.push(app.stop);
  const cookie = await signIn(app.base, stack.mailUrl, `bench-down-${Date.now()}@example.com`);

  // A backend that refuses connections: a port nothing listens on.
  const refusing = await startAppServer(
    app.buildDir,
    { SUPABASE_URL: `http://127.0.0.1:${await freePort()}`, SUPABASE_ANON_KEY: stack.anonKey, WEB_CONCURRENCY: '1' },
    { host: '127.0.0.1' },
  );
  stops.push(refusing.stop);
  // A gateway whose PostgREST has died: every request gets its 502.
  const gateway = net.createServer((client) => client.once('data', () => client.end(BAD_GATEWAY)));
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise<void>((resolve) => gateway.close(() => resolve())));
  const deadUpstream = await startAppServer(
    app.buildDir,
    {
      SUPABASE_URL: `http://127.0.0.1:${(gateway.address() as net.AddressInfo).port}`,
      SUPABASE_ANON_KEY: stack.anonKey,
      WEB_CONCURRENCY: '1',
    },
    { host: '127.0.0.1' },
  );
  stops.push(deadUpstream.stop);

  const rows = [];
  for (const page of PAGES) {
    for (const [backend, base, status] of [
      ['up', app.base, 200],
      ['refusing connections', refusing.baseURL, 503],
      ['gateway 502 (PostgREST dead)', deadUpstream.baseURL, 503],
    ] as const) {
      await times(base, page, cookie, status); // warm-up
      const ms = await times(base, page, cookie, status);
      rows.push({
        page,
        backend,
        status,
        'median ms': Math.round(median(ms)),
        'slowest ms': Math.round(Math.max(...ms)),
        'slowest ÷ 1 s': (Math.max(...ms) / TARGET_MS).toFixed(2),
      });
    }
  }
  console.log(`bench:backend-down — ${ROUNDS} sequential requests per row (load ${os.loadavg()[0].toFixed(1)})`);
  console.table(rows);
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
