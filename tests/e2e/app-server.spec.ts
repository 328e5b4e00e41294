// What the app's own server (server.ts) answers whatever the request: the Host it goes by (421 for
// others), no stack traces in production or development mode, a refusal page for cross-origin
// POSTs, sign-in links to the app that sent them, and no start without SESSION_SECRET in production.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { PROJECT_DIR } from '@tend/supabase-local';
import { startAppServer, type AppServer } from '../../scripts/lib/app-server.ts';
import { waitForMail } from '../../scripts/lib/mail.ts';
import { env, expect, requestCode, test, uniqueEmail } from './fixtures.ts';

// A V8 stack frame, or an absolute path of this machine.
const STACK_TRACE = /\n\s+at \S+ \(|node_modules\/|\.[jt]sx?:\d+:\d+|\/work\/|\/home\/|\/tmp\//;

/** A raw GET with the Host header given (fetch would set its own). */
function get(base: string, pathAndQuery: string, host?: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: pathAndQuery, headers: host ? { host } : undefined },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const backend = () => ({ SUPABASE_URL: process.env.E2E_API_URL!, SUPABASE_ANON_KEY: process.env.E2E_ANON_KEY! });

test.describe('Host names', () => {
  test('loopback names are answered; any other Host gets 421, before any page or file', async () => {
    const { port } = new URL(env.baseURL);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `app.localhost:${port}`, `[::1]:${port}`]) {
      expect((await get(env.baseURL, '/login', host)).status, host).toBe(200);
    }
    for (const host of [`evil.example:${port}`, 'evil.example', `localhost.evil.example:${port}`, '10.0.0.1']) {
      expect((await get(env.baseURL, '/login', host)).status, host).toBe(421);
      expect((await get(env.baseURL, '/favicon.ico', host)).status, host).toBe(421);
    }
  });

  test('ALLOWED_HOSTS adds names (and APP_ORIGIN its host)', async () => {
    test.setTimeout(60_000);
    const server = await startAppServer(process.env.E2E_BUILD_DIR!, {
      ...backend(),
      WEB_CONCURRENCY: '1',
      ALLOWED_HOSTS: 'tend.example, .tend.test',
      APP_ORIGIN: 'https://support.acme.example',
    });
    try {
      for (const host of ['tend.example', 'eu.tend.test', 'tend.test', 'support.acme.example'])
        expect((await get(server.baseURL, '/login', host)).status, host).toBe(200);
      for (const host of ['localhost', 'evil.example', 'tend.example.evil.example'])
        expect((await get(server.baseURL, '/login', host)).status, host).toBe(421);
    } finally {
      await server.stop();
    }
  });
});

test.describe('no stack traces', () => {
  const paths = [
    '/%E0%A4%A',
    '/?_data=routes/nonexistent',
    '/login?_data=routes%2Fnope',
    '/w/acme/tickets/%E0%A4%A',
    // Single fetch's data URLs (docs/decisions/014-single-fetch.md).
    '/%E0%A4%A.data',
    '/login.data?_routes=routes%2Fnope',
    '/w/acme/tickets/%E0%A4%A.data',
  ];

  test('under `npm start`', async () => {
    for (const p of paths) {
      const { status, body } = await get(env.baseURL, p);
      expect(status, p).toBeLessThan(500);
      expect(body, p).not.toMatch(STACK_TRACE);
    }
  });

  test('under the development server (`npm run dev` runs server.ts with NODE_ENV=development), which refuses as `npm start` does', async () => {
    test.setTimeout(60_000);
    // remix dev's ready ping: the server reports each build to REMIX_DEV_ORIGIN.
    const ping = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => ping.listen(0, '127.0.0.1', resolve));
    const { port } = ping.address() as { port: number };
    let server: AppServer | undefined;
    try {
      server = await startAppServer(process.env.E2E_BUILD_DIR!, {
        ...backend(),
        NODE_ENV: 'development',
        REMIX_DEV_ORIGIN: `http://127.0.0.1:${port}`,
      });
      for (const p of paths) {
        const { status, body } = await get(server.baseURL, p);
        expect(status, p).toBeLessThan(500);
        expect(body, p).not.toMatch(STACK_TRACE);
      }
      expect((await get(server.baseURL, '/login', 'evil.example')).status).toBe(421);
      // remix-serve answered this with an empty 500.
      const crossOrigin = await fetch(new URL('/login', server.baseURL), {
        method: 'POST',
        redirect: 'manual',
        headers: { Origin: 'http://evil.example', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'email=someone%40example.com',
      });
      expect(crossOrigin.status).toBe(403);
      expect(await crossOrigin.text()).toContain("You don't have access to this.");
    } finally {
      await server?.stop();
      ping.close();
    }
  });
});

test('a cross-origin POST gets the 403 page, not an empty 500', async () => {
  const response = await fetch(new URL('/login', env.baseURL), {
    method: 'POST',
    redirect: 'manual',
    headers: { Origin: 'http://evil.example', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'email=someone%40example.com',
  });
  expect(response.status).toBe(403);
  expect(await response.text()).toContain("You don't have access to this.");
});

test('the sign-in email links to the app that sent it, with the page to return to', async ({ page }) => {
  const email = uniqueEmail('link');
  await page.goto('/account');
  await requestCode(page, email);
  const mail = await waitForMail(env.mailUrl, email);
  const href = /href="([^"]*\/auth\/confirm[^"]*)"/.exec(mail.html)?.[1].replace(/&amp;/g, '&');
  expect(href).toBeTruthy();
  const link = new URL(href!);
  expect(link.origin).toBe(new URL(env.baseURL).origin); // not localhost:3000: this server's port
  expect(link.searchParams.get('next')).toBe('/account');
  // Opened in another browser (no pending sign-in cookie), it still leads to /account. That browser has
  // an address of its own: Auth limits the app's sign-in calls per end user (Sb-Forwarded-For).
  const other = await page
    .context()
    .browser()!
    .newContext({ extraHTTPHeaders: { 'X-Forwarded-For': '10.253.0.1' } });
  const otherPage = await other.newPage();
  await otherPage.goto(link.href);
  await otherPage.getByRole('button', { name: 'Confirm sign-in' }).click();
  await otherPage.waitForURL(/\/account$/);
  await expect(otherPage.getByRole('main')).toContainText(email);
  await other.close();
});

test('under NODE_ENV=production without SESSION_SECRET the server refuses to start, saying why', async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(PROJECT_DIR, 'server.ts'), path.join(process.env.E2E_BUILD_DIR!, 'index.js')],
    {
      cwd: PROJECT_DIR,
      env: { ...process.env, ...backend(), NODE_ENV: 'production', PORT: '0', SESSION_SECRET: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(1);
  expect(output).toContain('SESSION_SECRET is not set');
  expect(output).not.toMatch(/\n\s+at /);
});
