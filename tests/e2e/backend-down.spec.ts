// The app in front of a backend that goes away (docs/product.md §8 backend_unavailable): pages say so
// (how fast: npm run bench:backend-down), and a form that was being sent comes back with its text, to
// send again once the backend is back. The app's server reaches the stack through a TCP switch that this test opens
// and closes (closed: connections refused, as when the gateway or PostgREST has died).
import net from 'node:net';
import { startAppServer } from '../../scripts/lib/app-server.ts';
import { expect, signIn, test, uniqueEmail } from './fixtures.ts';

// What the gateway answers when PostgREST behind it has died (Kong's words, as supabase/local/gateway's).
const DEAD_UPSTREAM = '{"message":"An invalid response was received from the upstream server"}';
const BAD_GATEWAY = `HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json\r\ncontent-length: ${DEAD_UPSTREAM.length}\r\nconnection: close\r\n\r\n${DEAD_UPSTREAM}`;

function tcpSwitch(targetPort: number) {
  let server: net.Server | null = null;
  let port = 0;
  const sockets = new Set<net.Socket>();
  return {
    /** While true, every connection gets the gateway's 502 for a dead upstream. */
    upstreamDead: false,
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    up() {
      return new Promise<void>((resolve) => {
        server = net.createServer((client) => {
          if (this.upstreamDead) {
            client.once('data', () => client.end(BAD_GATEWAY));
            return;
          }
          const upstream = net.connect(targetPort, '127.0.0.1');
          const close = () => {
            client.destroy();
            upstream.destroy();
            sockets.delete(client);
            sockets.delete(upstream);
          };
          for (const socket of [client, upstream]) {
            sockets.add(socket);
            socket.on('error', close);
            socket.on('close', close);
          }
          client.pipe(upstream).pipe(client);
        });
        server.listen(port, '127.0.0.1', () => {
          port = (server!.address() as net.AddressInfo).port;
          resolve();
        });
      });
    },
    down: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        sockets.clear();
        server?.close(() => resolve());
      }),
  };
}

/** An app server (`npm start`'s) that reaches the e2e stack through a switch of its own. */
async function appBehindSwitch() {
  const backend = tcpSwitch(Number(new URL(process.env.E2E_API_URL!).port));
  await backend.up();
  const server = await startAppServer(process.env.E2E_BUILD_DIR!, {
    SUPABASE_URL: backend.url,
    SUPABASE_ANON_KEY: process.env.E2E_ANON_KEY!,
    WEB_CONCURRENCY: '1',
  });
  return { backend, server };
}

const UNAVAILABLE = "Tend can't reach its database right now. Your text is kept; try again.";

test('with the backend down, pages answer backend_unavailable and a new request keeps its text', async ({ page }) => {
  test.setTimeout(90_000);
  const { backend, server } = await appBehindSwitch();
  try {
    await signIn(page, { email: uniqueEmail('down'), path: `${server.baseURL}/login` });
    await page.goto(`${server.baseURL}/support/acme/new`);
    const subject = `Printer on fire ${Date.now()}`;
    const body = 'It started smoking at nine.\nThen it printed the same page forty times.';
    await page.getByLabel('Subject').fill(subject);
    await page.getByLabel('Message').fill(body);

    await backend.down();
    for (const path of ['/support/acme', '/support/acme/new']) {
      const response = await page.request.get(`${server.baseURL}${path}`);
      expect(response.status(), path).toBe(503);
      expect(await response.text(), path).toContain('reach its database');
    }

    await page.getByRole('button', { name: 'Submit request' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(UNAVAILABLE);
    await expect(page.getByLabel('Subject')).toHaveValue(subject);
    await expect(page.getByLabel('Message')).toHaveValue(body);

    // The gateway is back but PostgREST behind it is not: the same page, not a server error.
    backend.upstreamDead = true;
    await backend.up();
    const response = await page.request.get(`${server.baseURL}/support/acme`);
    expect(response.status()).toBe(503);
    await backend.down();

    // Back up: "Try again" sends the kept text, and the request exists.
    backend.upstreamDead = false;
    await backend.up();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.waitForURL(/\/support\/acme\/requests\/\d+$/);
    await expect(page.getByRole('main')).toContainText(subject);
  } finally {
    await server.stop();
    await backend.down();
  }
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('a reply sent while the backend is down comes back in the form', async ({ page }) => {
    test.setTimeout(90_000);
    const { backend, server } = await appBehindSwitch();
    try {
      await signIn(page, { email: uniqueEmail('down'), path: `${server.baseURL}/login`, javaScript: false });
      await page.goto(`${server.baseURL}/support/acme/new`);
      await page.getByLabel('Subject').fill('Where is my parcel?');
      await page.getByLabel('Message').fill('Ordered last week.');
      await page.getByRole('button', { name: 'Submit request' }).click();
      await page.waitForURL(/\/support\/acme\/requests\/\d+$/);

      const reply = 'Any news? It has been three days now.';
      await page.getByLabel(/reply|message/i).fill(reply);
      await backend.down();
      await page.getByRole('button', { name: /send|reply/i }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(UNAVAILABLE);
      await expect(page.getByLabel('Message')).toHaveValue(reply);
    } finally {
      await server.stop();
      await backend.down();
    }
  });
});
