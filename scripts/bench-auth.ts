// npm run bench:auth — sign-in round trips (otp → mail API → verify) and refreshes per second at
// 10 concurrent clients against an ephemeral local stack. Prints medians over rounds.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../supabase/local/stack.ts';
import { waitForMail } from '../tests/support/mail.ts';

const CONCURRENCY = 10;
const ROUNDS = 5;
const SIGNINS_PER_CLIENT = 5;
const REFRESHES_PER_CLIENT = 30;

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
  const headers = { apikey: stack.anonKey, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' };
  let n = 0;
  const signIn = async () => {
    const email = `bench${++n}.${process.pid}@example.test`;
    await json(`${stack.apiUrl}/auth/v1/otp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email, create_user: true }),
    });
    const { code } = await waitForMail(stack.mailUrl, email);
    return json(`${stack.apiUrl}/auth/v1/verify`, {
      method: 'POST',
      headers,
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
                headers,
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
  } finally {
    await stack.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
