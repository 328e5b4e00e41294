// What the local services trust: only loopback Host names (a DNS-rebinding page gets 421), the
// client address from the socket, and no cross-origin writes to the mail catcher.
import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { clientAddress, hostAllowed, parseSbForwardedFor } from '@tend/supabase-local/testing';

/** A raw request with exactly the headers given (fetch won't let a test set Host). */
function request(
  base: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path, method: opts.method ?? 'GET', headers: opts.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The status line a websocket upgrade gets. */
function upgradeStatus(base: string, path: string, host: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      ),
    );
    socket.once('data', (d) => {
      resolve(d.toString('utf8').split('\r\n')[0]);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

describe('Host names, client addresses and forwarded-for values', () => {
  it('answers loopback names and configured ones only', () => {
    for (const host of [
      'localhost',
      'localhost:54321',
      'app.localhost:3000',
      '127.0.0.1:1',
      '127.8.9.10',
      '[::1]:54321',
    ])
      expect(hostAllowed(host, []), host).toBe(true);
    for (const host of [
      'evil.example',
      'evil.example:54321',
      '127.0.0.1.evil.example',
      'localhost.evil.example',
      '10.0.0.1',
      '[::2]',
      '',
      'a b',
    ])
      expect(hostAllowed(host, []), host).toBe(false);
    expect(hostAllowed('dev.tend.test:54321', ['dev.tend.test'])).toBe(true);
    expect(hostAllowed('anything.example', ['*'])).toBe(true);
    expect(hostAllowed('dev.tend.test', ['.tend.test'])).toBe(true);
    expect(hostAllowed('tend.test:443', ['.tend.test'])).toBe(true);
    expect(hostAllowed('eviltend.test', ['.tend.test'])).toBe(false);
  });

  it('takes the socket address, and X-Forwarded-For only from trusted proxies (right to left)', () => {
    expect(clientAddress('::ffff:127.0.0.1', '203.0.113.9', [])).toBe('127.0.0.1');
    expect(clientAddress('10.0.0.2', '198.51.100.1, 203.0.113.9', ['10.0.0.2'])).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', '198.51.100.1, 10.0.0.3', ['10.0.0.2', '10.0.0.3'])).toBe('198.51.100.1');
    expect(clientAddress('10.0.0.2', 'not-an-ip', ['10.0.0.2'])).toBe('10.0.0.2');
  });

  it('reads Sb-Forwarded-For as upstream sbff does', () => {
    expect(parseSbForwardedFor(undefined)).toBeUndefined();
    expect(parseSbForwardedFor('192.168.1.100    ,60.60.60.60')).toBe('192.168.1.100');
    expect(parseSbForwardedFor('2600:1000:cafe:bead:0:0:0:1')).toBe('2600:1000:cafe:bead::1');
    expect(() => parseSbForwardedFor('invalid, 60.60.60.60')).toThrow('invalid Sb-Forwarded-For header value');
  });
});

describe('the gateway and the mail catcher', () => {
  const stack = stackFixture();

  it('refuses a Host that is not a loopback name with 421, on every path and on websocket upgrades', async () => {
    const port = new URL(stack.apiUrl).port;
    for (const path of ['/health', '/auth/v1/settings', '/rest/v1/', '/storage/v1/bucket']) {
      const res = await request(stack.apiUrl, path, {
        headers: { host: `evil.example:${port}`, apikey: stack.anonKey },
      });
      expect(res.status, path).toBe(421);
      expect(JSON.parse(res.body).message).toContain('loopback host names only');
    }
    const preflight = await request(stack.apiUrl, '/rest/v1/', {
      method: 'OPTIONS',
      headers: { host: 'evil.example', origin: 'http://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(421);
    expect(
      await upgradeStatus(stack.apiUrl, `/realtime/v1/websocket?apikey=${stack.anonKey}&vsn=1.0.0`, 'evil.example'),
    ).toBe('HTTP/1.1 421 Misdirected Request');
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`])
      expect(
        (await request(stack.apiUrl, '/auth/v1/settings', { headers: { host, apikey: stack.anonKey } })).status,
      ).toBe(200);
  });

  it('refuses a foreign Host on the inbox and the Mailpit API', async () => {
    const port = new URL(stack.mailUrl).port;
    for (const path of ['/', '/api/v1/messages', '/api/v1/search?query=to:a@example.test']) {
      const res = await request(stack.mailUrl, path, { headers: { host: `rebound.example:${port}` } });
      expect(res.status, path).toBe(421);
    }
    expect((await request(stack.mailUrl, '/api/v1/messages', { headers: { host: `localhost:${port}` } })).status).toBe(
      200,
    );
  });

  it('refuses cross-origin writes and non-JSON sends, and keeps no mail from them', async () => {
    const host = new URL(stack.mailUrl).host;
    const fake = JSON.stringify({
      From: { Email: 'auth@example.test' },
      To: [{ Email: 'agent@example.test' }],
      Subject: 'Your sign-in code',
      Text: 'Your code is 123456',
    });
    const crossSite = await request(stack.mailUrl, '/api/v1/send', {
      method: 'POST',
      headers: { host, origin: 'http://evil.example', 'content-type': 'text/plain' },
      body: fake,
    });
    expect(crossSite.status).toBe(403);
    const crossSiteJson = await request(stack.mailUrl, '/api/v1/send', {
      method: 'POST',
      headers: { host, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: fake,
    });
    expect(crossSiteJson.status).toBe(403);
    const textPlain = await request(stack.mailUrl, '/api/v1/send', {
      method: 'POST',
      headers: { host, 'content-type': 'text/plain' },
      body: fake,
    });
    expect(textPlain.status).toBe(415);
    const clear = await request(stack.mailUrl, '/clear', {
      method: 'POST',
      headers: { host, origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(clear.status).toBe(403);
    const foreign: Record<string, string>[] = [
      { origin: 'null' }, // an opaque origin (a sandboxed frame, a data: page)
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'http://localhost:3000' },
      { 'sec-fetch-site': 'cross-site', origin: `http://${host}` },
    ];
    for (const headers of foreign) {
      const res = await request(stack.mailUrl, '/api/v1/send', {
        method: 'POST',
        headers: { host, 'content-type': 'application/json', ...headers },
        body: fake,
      });
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    const listed = JSON.parse(
      (await request(stack.mailUrl, '/api/v1/search?query=to:agent@example.test', { headers: { host } })).body,
    );
    expect(listed.messages_count).toBe(0);

    // The inbox's own form and tools without an Origin still work.
    const sameOrigin = await request(stack.mailUrl, '/api/v1/send', {
      method: 'POST',
      headers: { host, origin: `http://${host}`, 'content-type': 'application/json' },
      body: fake,
    });
    expect(sameOrigin.status).toBe(200);
    const tool = await request(stack.mailUrl, '/api/v1/send', {
      method: 'POST',
      headers: { host, 'content-type': 'application/json; charset=utf-8' },
      body: fake,
    });
    expect(tool.status).toBe(200);
    const olderBrowser = await request(stack.mailUrl, '/clear', {
      method: 'POST',
      headers: { host, origin: `http://${host}` },
    });
    expect(olderBrowser.status).toBe(303);
    // Chromium's own form post: Origin "null" (the inbox sends no referrer), Sec-Fetch-Site same-origin.
    const ownForm = await request(stack.mailUrl, '/clear', {
      method: 'POST',
      headers: { host, origin: 'null', 'sec-fetch-site': 'same-origin' },
    });
    expect(ownForm.status).toBe(303);
  });
});
