// The app's sign-in calls tell Auth whose they are (docs/decisions/020-sign-in-limits.md): the secret
// key and the end user's IP in Sb-Forwarded-For, on POST /auth/v1/otp and /auth/v1/verify only. The
// app reaches the stack through a proxy here that notes the headers of every call.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_SECRET_KEY } from '@tend/supabase-local';
import { startAppServer } from '../../scripts/lib/app-server.ts';
import { expect, signIn, test, uniqueEmail } from './fixtures.ts';

interface Seen {
  method: string;
  path: string;
  apikey?: string;
  authorization?: string;
  forwardedFor?: string;
}

/** A pass-through HTTP proxy to the e2e stack that remembers each request's headers. */
async function recordingProxy() {
  const target = new URL(process.env.E2E_API_URL!);
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0],
      apikey: req.headers.apikey as string | undefined,
      authorization: req.headers.authorization,
      forwardedFor: req.headers['sb-forwarded-for'] as string | undefined,
    });
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

for (const [label, settings, clientIp, expected] of [
  // The browser reaches localhost over IPv4 or IPv6; whatever it claims in X-Forwarded-For is not believed.
  ['not behind a proxy: the socket address', { TRUST_PROXY: '0' }, '198.51.100.77', /^(127\.0\.0\.1|::1)$/],
  ['behind a trusted proxy: its X-Forwarded-For entry', { TRUST_PROXY: '1' }, '203.0.113.9', /^203\.0\.113\.9$/],
] as const) {
  test(`sign-in calls carry the secret key and the user's IP (${label}); other calls do not`, async ({ browser }) => {
    test.setTimeout(60_000);
    const proxy = await recordingProxy();
    const server = await startAppServer(process.env.E2E_BUILD_DIR!, {
      SUPABASE_URL: proxy.url,
      SUPABASE_ANON_KEY: process.env.E2E_ANON_KEY!,
      WEB_CONCURRENCY: '1',
      ...settings,
    });
    const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-For': clientIp } });
    try {
      const page = await context.newPage();
      await signIn(page, { email: uniqueEmail('sbff'), path: `${server.baseURL}/login` });
      await page.goto(`${server.baseURL}/support/acme`);

      const signInCalls = proxy.seen.filter((s) => s.method === 'POST' && /^\/auth\/v1\/(otp|verify)$/.test(s.path));
      expect(signInCalls.map((s) => s.path)).toEqual(['/auth/v1/otp', '/auth/v1/verify']);
      for (const call of signInCalls) {
        expect(call.apikey, call.path).toBe(DEFAULT_SECRET_KEY);
        expect(call.authorization ?? '', call.path).not.toContain('sb_secret_');
        expect(call.forwardedFor, call.path).toMatch(expected);
      }
      const others = proxy.seen.filter((s) => !signInCalls.includes(s));
      expect(others.length).toBeGreaterThan(0);
      for (const call of others) {
        expect(call.apikey, call.path).toBe(process.env.E2E_ANON_KEY);
        expect(call.forwardedFor, call.path).toBeUndefined();
      }
    } finally {
      await context.close();
      await server.stop();
      await proxy.close();
    }
  });
}
