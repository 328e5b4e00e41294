// pg_net's background worker, done by the stack: takes requests from net.http_request_queue (rows
// are visible, and the wake-up notification arrives, only once the queuing transaction commits),
// sends them and records each answer in net._http_response as pg_net does (supabase/pg_net
// src/core.c: consume_request_queue, insert_response, delete_expired_responses).
import http from 'node:http';
import https from 'node:https';
import type pg from 'pg';
import { isConnectionLost } from '../connections.ts';

const BATCH = 200; // pg_net.batch_size
const TTL = '6 hours'; // pg_net.ttl

interface QueuedRequest {
  id: string;
  method: string;
  url: string;
  timeout_milliseconds: number;
  headers: Record<string, unknown> | null;
  body: Buffer | null;
}

/** curl_easy_strerror's words for what a failed request most often means. */
function curlError(err: unknown): string {
  const code = (err as { code?: string })?.code ?? (err as { cause?: { code?: string } })?.cause?.code;
  if (code === 'ECONNREFUSED') return "Couldn't connect to server";
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return "Couldn't resolve host name";
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'Failure when receiving data from the peer';
  if ((err as Error)?.name === 'TypeError' && /URL/i.test((err as Error).message))
    return 'URL using bad/illegal format or missing URL';
  return `Failure when receiving data from the peer (${(err as Error)?.message ?? err})`;
}

// Connections kept between requests, as curl's connection cache keeps the worker's.
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
const REDIRECTS = 20; // fetch's limit, which this worker followed before

interface Answer {
  status: number;
  /** Lower-case names; repeated ones joined with ", " (set-cookie: the last), as fetch's Headers gave them. */
  headers: Record<string, string>;
  content: string;
}

/**
 * One request and its answer over node:http, redirects followed as fetch's `redirect: 'follow'` does
 * (CURLOPT_FOLLOWLOCATION for pg_net): 303, and 301/302 after a POST, go on as a GET without the body;
 * a redirect to another origin drops Authorization. node:http rather than fetch: fetch cost about three
 * times its CPU a request, and every notification's email is one (docs/decisions/096-assignment-email-cpu.md).
 */
async function exchange(r: QueuedRequest, signal: AbortSignal): Promise<Answer> {
  let url = new URL(r.url);
  let method = r.method;
  let headers: Record<string, string> = Object.fromEntries(
    Object.entries(r.headers ?? {}).map(([k, v]) => [k, String(v)]),
  );
  let body = method === 'GET' || !r.body ? undefined : r.body;
  for (let hop = 0; ; hop++) {
    const answer = await once(url, method, headers, body, signal);
    const location = answer.headers.location;
    if (![301, 302, 303, 307, 308].includes(answer.status) || location === undefined) return answer;
    if (hop >= REDIRECTS) throw Object.assign(new Error('redirect count exceeded'), { code: 'TOO_MANY_REDIRECTS' });
    const next = new URL(location, url);
    if (
      (answer.status === 303 && method !== 'HEAD') ||
      ((answer.status === 301 || answer.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)));
    }
    if (next.origin !== url.origin)
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
    url = next;
  }
}

function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
) {
  return new Promise<Answer>((resolve, reject) => {
    const agent = url.protocol === 'http:' || url.protocol === 'https:' ? agents[url.protocol] : undefined;
    if (!agent) return reject(new TypeError(`Invalid URL protocol: ${url.protocol}`));
    const onAbort = () => {
      req.destroy();
      reject(signal.reason);
    };
    const req = (url.protocol === 'https:' ? https : http).request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        signal.removeEventListener('abort', onAbort);
        const names: Record<string, string> = Object.create(null);
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase();
          const value = res.rawHeaders[i + 1]!;
          names[name] = Object.hasOwn(names, name) && name !== 'set-cookie' ? `${names[name]}, ${value}` : value;
        }
        // As Response.text(): UTF-8, a byte-order mark dropped, bad bytes replaced.
        resolve({
          status: res.statusCode ?? 0,
          headers: names,
          content: new TextDecoder().decode(Buffer.concat(chunks)),
        });
      });
    });
    req.on('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}

export function createNetWorker(pool: pg.Pool, log: (message: string) => void) {
  const inflight = new Set<Promise<void>>();
  let draining = false;
  let again = false;
  let missing = false;
  let unreachable = false; // said once per outage, not at every poll

  async function send(r: QueuedRequest) {
    const started = performance.now();
    let row: unknown[];
    try {
      const res = await exchange(r, AbortSignal.timeout(r.timeout_milliseconds));
      row = [
        r.id,
        res.status,
        res.content || null,
        JSON.stringify(res.headers),
        res.headers['content-type'] ?? null,
        false,
        null,
      ];
    } catch (err) {
      const timedOut = (err as Error)?.name === 'TimeoutError';
      const total = (performance.now() - started).toFixed(6);
      const message = timedOut
        ? `Timeout of ${r.timeout_milliseconds} ms reached. Total time: ${total} ms`
        : curlError(err);
      row = [r.id, null, null, null, null, timedOut, message];
    }
    // Not tried again if Postgres is away: a restart empties the unlogged tables and starts their ids
    // again, so a late answer could land on another request's id.
    await pool
      .query(
        `insert into net._http_response (id, status_code, content, headers, content_type, timed_out, error_msg)
         values ($1, $2, $3, $4, $5, $6, $7)`,
        row,
      )
      .catch((e) => log(`could not record the response to request ${r.id}: ${e.message}`));
  }

  /** Sends everything queued; called on a wake-up notification, on (re)connect and now and then. */
  async function drain(): Promise<void> {
    if (draining) {
      again = true;
      return;
    }
    draining = true;
    try {
      do {
        again = false;
        const { rows } = await pool.query<QueuedRequest>(
          `with rows as (select id from net.http_request_queue order by id limit $1)
           delete from net.http_request_queue q using rows where q.id = rows.id
           returning q.id, q.method, q.url, q.timeout_milliseconds, q.headers, q.body`,
          [BATCH],
        );
        missing = false;
        unreachable = false;
        for (const r of rows) {
          const p = send(r).finally(() => inflight.delete(p));
          inflight.add(p);
        }
        if (rows.length === BATCH) again = true;
      } while (again);
    } catch (err) {
      // Without pg_net (dropped by a migration) there is nothing to send; say so once.
      if ((err as { code?: string }).code === '42P01' || (err as { code?: string }).code === '3F000') {
        if (!missing) log('pg_net is not installed: requests are not sent');
        missing = true;
      } else if (!isConnectionLost(err)) log(`queue: ${(err as Error).message}`);
      else if (!unreachable) {
        unreachable = true;
        log(`queue: the database is unavailable (${(err as Error).message}); waiting for it`);
      }
    } finally {
      draining = false;
    }
  }

  async function expire() {
    await pool
      .query(
        `with rows as (select ctid from net._http_response where created < now() - $1::interval order by created limit $2)
         delete from net._http_response r using rows where r.ctid = rows.ctid`,
        [TTL, BATCH],
      )
      .catch(() => undefined);
  }

  return {
    drain,
    expire,
    /** Waits for requests being sent (each bounded by its own timeout). */
    settle: () => Promise.all([...inflight]).then(() => undefined),
  };
}
