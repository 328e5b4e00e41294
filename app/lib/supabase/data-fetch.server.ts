// undici's request API behind the fetch interface supabase-js's data client uses. fetch() builds
// a spec Request, validates every header and streams the body through web streams: on an inbox
// page that was the largest share of our own CPU after rendering (docs/decisions/008-inbox-in-one-call.md). What the
// caller sees is what fetch would give it: a Response with the status, status text and headers
// (every Set-Cookie kept), and a refused or reset connection rejects with
// TypeError('fetch failed', { cause }), so postgrest-js reports it the same way.
import { STATUS_CODES } from 'node:http';
import { request, type Dispatcher } from 'undici';
import { BytesResponse } from '../http/bytes-response.ts';

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A fetch for string and empty bodies (JSON to PostgREST) that gives up on a backend silent for
 * `timeoutMs`. A Request object, a stream, a form or a blob (storage uploads) goes to `fallback`.
 */
export function requestFetch(timeoutMs: number, fallback: typeof fetch): typeof fetch {
  return async (input, init) => {
    if (input instanceof Request || (init?.body != null && typeof init.body !== 'string')) return fallback(input, init);
    const url = input instanceof URL ? input.href : input;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const method = (init?.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod;
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method,
        headers,
        body: init?.body ?? undefined,
        signal: init?.signal ?? undefined,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (cause) {
      // Aborted by the caller: fetch rejects with the signal's reason.
      if (init?.signal?.aborted) throw init.signal.reason ?? cause;
      throw new TypeError('fetch failed', { cause });
    }
    let body: ArrayBuffer | null = null;
    try {
      if (NULL_BODY_STATUSES.has(response.statusCode) || method === 'HEAD') await response.body.dump();
      else body = await response.body.arrayBuffer();
    } catch (cause) {
      throw new TypeError('fetch failed', { cause });
    }
    const pairs: [string, string][] = [];
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const v of value) pairs.push([name, v]);
      else if (value !== undefined) pairs.push([name, value]);
    }
    return new BytesResponse(body && new Uint8Array(body), {
      status: response.statusCode,
      statusText: STATUS_CODES[response.statusCode] ?? '',
      headers: pairs,
    });
  };
}
