// The data client's transport answers like fetch: against a real HTTP server on loopback.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFetch } from '~/lib/supabase/data-fetch.server.ts';

let server: Server;
let base = '';
const seen: { method?: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body });
      if (req.url === '/json') {
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'] });
        res.end(JSON.stringify({ ok: true, body }));
      } else if (req.url === '/empty') {
        res.writeHead(204).end();
      } else if (req.url === '/refused') {
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"code":"42501"}');
      } else if (req.url === '/silent') {
        // Never answers: the caller's timeout has to end it.
      } else {
        res.writeHead(404).end('nope');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const neverUsed: typeof fetch = () => Promise.reject(new Error('the fallback was used'));

describe('requestFetch', () => {
  it('sends the method, headers and body, and answers with status, text, headers and every Set-Cookie', async () => {
    const dataFetch = requestFetch(5_000, neverUsed);
    const res = await dataFetch(`${base}/json`, {
      method: 'post',
      headers: new Headers({ apikey: 'anon', Authorization: 'Bearer t', 'Content-Type': 'application/json' }),
      body: '{"p_slug":"acme"}',
    });
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.statusText).toBe('OK');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(await res.json()).toEqual({ ok: true, body: '{"p_slug":"acme"}' });
    const request = seen.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.headers.apikey).toBe('anon');
    expect(request.headers.authorization).toBe('Bearer t');
  });

  it('gives error statuses and their bodies back, and no body for 204', async () => {
    const dataFetch = requestFetch(5_000, neverUsed);
    const refused = await dataFetch(new URL(`${base}/refused`));
    expect(refused.status).toBe(403);
    expect(refused.statusText).toBe('Forbidden');
    expect(await refused.json()).toEqual({ code: '42501' });
    const empty = await dataFetch(`${base}/empty`, { method: 'PATCH', body: '{}' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('rejects a refused connection with TypeError("fetch failed") and its cause, like fetch', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await requestFetch(5_000, neverUsed)(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('fetch failed');
    expect(((error as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('gives up on a backend that does not answer within the timeout', async () => {
    const started = Date.now();
    const error = await requestFetch(300, neverUsed)(`${base}/silent`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("stops when the caller's signal aborts", async () => {
    const error = await requestFetch(5_000, neverUsed)(`${base}/silent`, { signal: AbortSignal.timeout(100) }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).name).toMatch(/AbortError|TimeoutError/);
  });

  it('leaves streams, forms and Request objects to the fallback fetch', async () => {
    const calls: unknown[] = [];
    const fallback: typeof fetch = async (input) => {
      calls.push(input);
      return new Response('from fallback');
    };
    const dataFetch = requestFetch(5_000, fallback);
    const form = new FormData();
    form.set('file', new Blob(['x']), 'x.txt');
    expect(await (await dataFetch(`${base}/json`, { method: 'POST', body: form })).text()).toBe('from fallback');
    expect(await (await dataFetch(new Request(`${base}/json`))).text()).toBe('from fallback');
    expect(calls).toHaveLength(2);
  });
});
