// npm run bench:auth — sign-in round trips (otp → mail API → verify) and refreshes per second at
// 10 concurrent clients against an ephemeral local stack. Prints medians over rounds. Then the
// guessing test (issue 13): how many wrong codes for one address reach a decision in 10 s from 50
// parallel clients, straight at /auth/v1/verify and through the app (`npm start`'s server.ts).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '@tend/supabase-local';
import { buildApp, startAppServer } from './lib/app-server.ts';
import { waitForMail } from './lib/mail.ts';

const CONCURRENCY = 10;
const ROUNDS = 5;
const SIGNINS_PER_CLIENT = 5;
const REFRESHES_PER_CLIENT = 30;
const GUESS_CLIENTS = 50;
const GUESS_SECONDS = 10;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function json(url: string, init: RequestInit & { body?: string }) {
  const res = await fetch(url, init);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${init.method} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function main() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-auth-'));
  chmodSync(root, 0o755);
  const stack = await startStack({ port: 0, dir: root, ephemeral: true, log: () => undefined });
  // As the app's server calls Auth (docs/decisions/020-sign-in-limits.md): the secret key and each
  // user's IP in Sb-Forwarded-For, so Auth's per-IP limits count the (simulated) users, not this process.
  const base = { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' };
  const asUser = (n: number) => ({
    ...base,
    apikey: stack.secretKey,
    'sb-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
  });
  let n = 0;
  const signIn = async () => {
    const user = ++n;
    const email = `bench${user}.${process.pid}@example.test`;
    await json(`${stack.apiUrl}/auth/v1/otp`, {
      method: 'POST',
      headers: asUser(user),
      body: JSON.stringify({ email, create_user: true }),
    });
    const { code } = await waitForMail(stack.mailUrl, email);
    return json(`${stack.apiUrl}/auth/v1/verify`, {
      method: 'POST',
      headers: asUser(user),
      body: JSON.stringify({ email, token: code, type: 'email' }),
    });
  };
  try {
    await signIn(); // warm-up
    const signinRates: number[] = [];
    const refreshRates: number[] = [];
    const latencies: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let t0 = performance.now();
      const sessions = await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          let last: Awaited<ReturnType<typeof signIn>> | undefined;
          for (let i = 0; i < SIGNINS_PER_CLIENT; i++) {
            const s = performance.now();
            last = await signIn();
            latencies.push(performance.now() - s);
          }
          return last;
        }),
      );
      signinRates.push((CONCURRENCY * SIGNINS_PER_CLIENT) / ((performance.now() - t0) / 1000));

      t0 = performance.now();
      await Promise.all(
        sessions.map(async (s) => {
          let token = s.refresh_token;
          for (let i = 0; i < REFRESHES_PER_CLIENT; i++) {
            token = (
              await json(`${stack.apiUrl}/auth/v1/token?grant_type=refresh_token`, {
                method: 'POST',
                // A refresh a second from one user would hit Auth's token_refresh limit (burst 30): this
                // measures throughput, so each comes from an address of its own.
                headers: asUser(++n),
                body: JSON.stringify({ refresh_token: token }),
              })
            ).refresh_token;
          }
        }),
      );
      refreshRates.push((CONCURRENCY * REFRESHES_PER_CLIENT) / ((performance.now() - t0) / 1000));
    }
    // Other work on the machine skews these figures; the load average says how much.
    console.log(
      `bench:auth — ${CONCURRENCY} concurrent clients, ${ROUNDS} rounds, ${os.cpus().length} CPUs, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `  sign-in round trips (otp → mail API → verify)  median ${median(signinRates).toFixed(1)}/s  (rounds: ${signinRates.map((r) => r.toFixed(1)).join(', ')}); one sign-in median ${median(latencies).toFixed(0)} ms`,
    );
    console.log(
      `  refreshes (grant_type=refresh_token)           median ${median(refreshRates).toFixed(1)}/s  (rounds: ${refreshRates.map((r) => r.toFixed(1)).join(', ')})`,
    );
    await guessing(stack, root);
  } finally {
    await stack.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Sends wrong codes from GUESS_CLIENTS loops for GUESS_SECONDS; counts the answers by status. */
async function guess(send: (i: number) => Promise<number>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const until = performance.now() + GUESS_SECONDS * 1000;
  let sent = 0;
  await Promise.all(
    Array.from({ length: GUESS_CLIENTS }, async () => {
      while (performance.now() < until) {
        const status = await send(sent++).catch(() => 0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

/** The status, once the body has been read (the connection is then free for the next request). */
async function statusOf(res: Response): Promise<number> {
  await res.arrayBuffer();
  return res.status;
}

const summary = (statuses: Map<number, number>) =>
  [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status || 'error'}×${count}`)
    .join(' ');

/**
 * How many wrong codes for one address Auth decides on (403 otp_expired: the code was checked and
 * was wrong) in GUESS_SECONDS, and how many the app lets reach Auth (its 400 code_invalid).
 */
async function guessing(stack: Stack, root: string) {
  const email = `victim.${process.pid}@example.test`;
  const base = { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' };
  await json(`${stack.apiUrl}/auth/v1/otp`, {
    method: 'POST',
    headers: { ...base, apikey: stack.secretKey, 'sb-forwarded-for': '10.200.0.1' },
    body: JSON.stringify({ email, create_user: true }),
  });
  const { code } = await waitForMail(stack.mailUrl, email);
  const wrong = code === '000000' ? '111111' : '000000';
  const verify = (headers: Record<string, string>) =>
    fetch(`${stack.apiUrl}/auth/v1/verify`, {
      method: 'POST',
      headers: { ...base, ...headers },
      body: JSON.stringify({ email, token: wrong, type: 'email' }),
    }).then(statusOf);
  const ip = (i: number) => `198.51.${(i >> 8) & 255}.${i & 255}`;
  console.log(
    `  wrong codes for one address from ${GUESS_CLIENTS} parallel clients in ${GUESS_SECONDS} s (403 = decided by Auth, 429 = refused):`,
  );
  // Through the app first (its calls carry this machine's address in Sb-Forwarded-For, the same bucket
  // at Auth as the straight runs), as `npm start` serves it, not behind a proxy: client IPs are socket addresses.
  const buildDir = path.join(root, 'app');
  buildApp(buildDir);
  const app = await startAppServer(buildDir, { SUPABASE_URL: stack.apiUrl, SUPABASE_ANON_KEY: stack.anonKey });
  try {
    const victim = `victim2.${process.pid}@example.test`;
    const login = await fetch(`${app.baseURL}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: app.baseURL },
      body: new URLSearchParams({ email: victim }),
    });
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const { code: victimCode } = await waitForMail(stack.mailUrl, victim);
    const wrongForApp = victimCode === '000000' ? '111111' : '000000';
    const statuses = await guess((i) =>
      fetch(`${app.baseURL}/login/verify`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: app.baseURL, cookie, 'x-forwarded-for': ip(i) },
        body: new URLSearchParams({ intent: 'verify', code: wrongForApp }),
      }).then(statusOf),
    );
    console.log(
      `    through the app (POST /login/verify; 400 = decided by Auth)           decisions ${statuses.get(400) ?? 0}  (${summary(statuses)})`,
    );
  } finally {
    await app.stop();
  }
  // Straight at Auth, from this machine's one address, one run after the other: Auth's bucket for the
  // address (burst 30, one more every 10 s) is shared by the runs, so the later ones get what the first left.
  const straight: [string, (i: number) => Promise<number>][] = [
    ['anon key', () => verify({ apikey: stack.anonKey })],
    ['anon key, a new X-Forwarded-For each time', (i) => verify({ apikey: stack.anonKey, 'x-forwarded-for': ip(i) })],
    ['anon key, a new Sb-Forwarded-For each time', (i) => verify({ apikey: stack.anonKey, 'sb-forwarded-for': ip(i) })],
  ];
  for (const [label, send] of straight) {
    const statuses = await guess(send);
    console.log(
      `    straight at /auth/v1/verify, ${label.padEnd(44)} decisions ${statuses.get(403) ?? 0}  (${summary(statuses)})`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
