// Auth's per-IP limits with config.toml's values (token_verifications = 30 per 5 minutes, burst 30),
// keyed on the address the gateway takes from the socket, and IP address forwarding
// (Sb-Forwarded-For) for servers holding the secret key (supabase/auth internal/sbff).
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { DEFAULT_SECRET_KEY } from '@tend/supabase-local';
import { newEmail, type TestStack } from '../support/stack.ts';

interface Answer {
  status: number;
  body: { code?: string; error_code?: string; msg?: string; message?: string };
}

/** POST /auth/v1/<path> from a chosen loopback address (the socket's source, which the gateway believes). */
function post(
  stack: TestStack,
  path: string,
  body: unknown,
  opts: { key?: string; headers?: Record<string, string>; from?: string } = {},
): Promise<Answer> {
  const url = new URL(`${stack.apiUrl}/auth/v1${path}`);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        localAddress: opts.from ?? '127.0.0.1',
        agent: false,
        headers: {
          apikey: opts.key ?? stack.anonKey,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          ...opts.headers,
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : {} }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * Sends `n` requests, `parallel` at a time; their statuses, and the most that may reach a decision:
 * the burst of 30 plus what 30 per 5 minutes (one per 10 s) refilled while they ran.
 */
async function flood(n: number, parallel: number, send: (i: number) => Promise<Answer>) {
  const t0 = Date.now();
  const statuses: number[] = [];
  for (let i = 0; i < n; i += parallel) {
    const batch = await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, (_, j) => send(i + j)));
    statuses.push(...batch.map((a) => a.status));
  }
  return Object.assign(statuses, { most: 30 + Math.ceil((Date.now() - t0) / 10_000) });
}

const decided = (statuses: number[]) => statuses.filter((s) => s !== 429).length;

describe('per-IP limits on /verify (config.toml: token_verifications = 30)', () => {
  const lines: string[] = [];
  const stack = stackFixture({ hostedLimits: true, log: (l) => lines.push(l) });

  const wrongCode = (email: string, i: number) => ({ email, token: String(100000 + i), type: 'email' });

  it('lets at most the burst of 1,000 wrong codes reach a decision, whatever X-Forwarded-For says', async () => {
    const email = newEmail('target');
    expect((await post(stack, '/otp', { email })).status).toBe(200);
    const statuses = await flood(1000, 50, (i) =>
      post(stack, '/verify', wrongCode(email, i), {
        headers: { 'x-forwarded-for': `198.51.${i >> 8}.${i & 255}`, 'x-real-ip': `203.0.113.${i & 255}` },
      }),
    );
    expect(decided(statuses)).toBeGreaterThanOrEqual(30);
    expect(decided(statuses)).toBeLessThanOrEqual(statuses.most);
    expect(new Set(statuses)).toEqual(new Set([403, 429]));
    const refused = await post(stack, '/verify', wrongCode(email, 0));
    expect(refused).toMatchObject({
      status: 429,
      body: { code: 429, error_code: 'over_request_rate_limit', msg: 'Request rate limit reached' },
    });
    // The trailing-slash spelling of the endpoint is the same bucket.
    expect((await post(stack, '/verify/', wrongCode(email, 1))).status).toBe(429);
  }, 60_000);

  it('does not lock out another address, nor the same user there', async () => {
    const email = newEmail('other');
    expect((await post(stack, '/otp', { email }, { from: '127.0.0.2' })).status).toBe(200);
    expect((await post(stack, '/verify', wrongCode(email, 1), { from: '127.0.0.2' })).status).toBe(403);
  });

  it('limits per forwarded address on secret-key requests carrying Sb-Forwarded-For', async () => {
    expect(stack.secretKey).toBe(DEFAULT_SECRET_KEY); // what the app uses when SUPABASE_SECRET_KEY is unset
    const email = newEmail('forwarded');
    expect((await post(stack, '/otp', { email }, { from: '127.0.0.3' })).status).toBe(200);
    const as = (ip: string, i: number, key = stack.secretKey) =>
      post(stack, '/verify', wrongCode(email, i), { key, headers: { 'sb-forwarded-for': ip } });
    // 127.0.0.1 is exhausted (first test), but each forwarded address has a bucket of its own.
    const first = await flood(60, 20, (i) => as('192.0.2.10', i));
    expect(decided(first)).toBeGreaterThanOrEqual(30);
    expect(decided(first)).toBeLessThanOrEqual(first.most);
    expect((await as('192.0.2.11', 0)).status).toBe(403);
    // The left-most value counts, in Go's canonical form.
    expect((await as('192.0.2.10, 192.0.2.99', 0)).status).toBe(429);
    expect((await as('2001:db8:0:0::1', 0)).status).toBe(403);
    expect((await as('2001:db8::1', 0)).status).toBe(403);
  });

  it('ignores Sb-Forwarded-For without the secret key, and an invalid one with it (logged)', async () => {
    const email = newEmail('ignored');
    expect((await post(stack, '/otp', { email }, { from: '127.0.0.4' })).status).toBe(200);
    // 127.0.0.1 spent its burst in the first test; whatever trickled back since goes now.
    while ((await post(stack, '/verify', wrongCode(email, 0))).status !== 429);
    const anon = await post(stack, '/verify', wrongCode(email, 0), { headers: { 'sb-forwarded-for': '192.0.2.50' } });
    expect(anon.status).toBe(429); // counted as 127.0.0.1, which is exhausted
    const publishable = await post(stack, '/verify', wrongCode(email, 0), {
      key: stack.publishableKey,
      headers: { 'sb-forwarded-for': '192.0.2.51' },
    });
    expect(publishable.status).toBe(429);
    const service = await post(stack, '/verify', wrongCode(email, 0), {
      key: stack.serviceRoleKey,
      headers: { 'sb-forwarded-for': '192.0.2.52' },
    });
    expect(service.status).toBe(429);
    const invalid = await post(stack, '/verify', wrongCode(email, 0), {
      key: stack.secretKey,
      headers: { 'sb-forwarded-for': 'invalid, 192.0.2.53' },
    });
    expect(invalid.status).toBe(429);
    expect(lines).toContain('[auth] error processing Sb-Forwarded-For: invalid Sb-Forwarded-For header value');
  });
});

describe('the other limits, and IP address forwarding turned off', () => {
  const stack = stackFixture({
    hostedLimits: true,
    trust: { sbForwardedFor: false },
    configure: (c) => {
      c.auth.rateLimit.emailSent = 3;
      c.auth.email.enableConfirmations = true; // GoTrue skips the email limit under autoconfirm
    },
  });

  it('sign_in_sign_ups on /otp and token_refresh on /token count by the socket address too', async () => {
    const otp = await flood(40, 20, (i) =>
      post(
        stack,
        '/otp',
        { email: 'not-an-email' },
        { from: '127.0.0.5', headers: { 'x-forwarded-for': `192.0.2.${i}` } },
      ),
    );
    expect(decided(otp)).toBeLessThanOrEqual(otp.most);
    expect(otp).toContain(429);
    const refresh = await flood(40, 20, (i) =>
      post(stack, '/token?grant_type=refresh_token', { refresh_token: `nope${i}` }, { from: '127.0.0.6' }),
    );
    expect(decided(refresh)).toBeGreaterThanOrEqual(30); // token_refresh = 150 per 5 minutes, burst 30
    expect(decided(refresh)).toBeLessThanOrEqual(30 + 5 * (refresh.most - 30)); // refilled 5 times faster
  });

  it('email_sent caps the emails of the whole instance per hour (with confirmations on), whichever address asks', async () => {
    const sends = [];
    for (let i = 0; i < 4; i++)
      sends.push(await post(stack, '/otp', { email: newEmail('capped') }, { from: '127.0.0.7' }));
    expect(sends.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(sends[3]).toMatchObject({
      status: 429,
      body: { error_code: 'over_email_send_rate_limit', msg: 'email rate limit exceeded' },
    });
  });

  it('counts secret-key requests by the socket address, Sb-Forwarded-For or not', async () => {
    const email = newEmail('off'); // no code was sent: every verification is a 403, until the limit's 429
    const statuses = await flood(40, 20, (i) =>
      post(
        stack,
        '/verify',
        { email, token: String(200000 + i), type: 'email' },
        {
          key: stack.secretKey,
          headers: { 'sb-forwarded-for': `192.0.2.${i}` },
        },
      ),
    );
    expect(decided(statuses)).toBeLessThanOrEqual(statuses.most);
    expect(statuses).toContain(429);
  });
});
