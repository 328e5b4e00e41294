// The production server (`npm start`; docs/decisions/009-production-server.md): the Remix build
// behind plain node:http, one worker per core with node:cluster.
//
//   node --import tsx server.ts [build/index.js]
//   PORT (3000), HOST (all interfaces), WEB_CONCURRENCY (workers; default os.availableParallelism())
//
// The primary forks the workers, keeps the sign-in abuse counters for all of them (they ask over
// IPC), replaces a worker that dies, and on SIGINT/SIGTERM tells every worker to finish what it is
// serving, then exits once they have. Workers serve /build/* (immutable, a year) and the other
// files of public/ (an hour) from memory, brotli or gzip when the browser takes it, then the pages
// the app keeps the same for every reader (a signed-out reader's help center: keptDocument in
// app/lib/http/shared-documents.server.ts), and hand everything else to Remix with Node's own fetch
// classes (no web-fetch polyfill).
import cluster, { type Worker } from 'node:cluster';
import { createReadStream, promises as fs, readdirSync, statSync, watch } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { broadcastDevReady, createRequestHandler, type ServerBuild } from '@remix-run/node';
import { allowedHosts, isAllowedHost } from './app/lib/http/allowed-hosts.ts';
import { bytesOf } from './app/lib/http/bytes-response.ts';
import { PEER_ADDRESS_ENV, PEER_ADDRESS_HEADER } from './app/lib/http/peer-address.ts';
import type { keptDocument } from './app/lib/http/shared-documents.server.ts';

process.env.NODE_ENV ??= 'production';
/**
 * `npm run dev` runs this server too (under `remix dev --manual`): one process, the build re-imported
 * whenever remix dev rewrites it, static files read from disk as they change. The same answers as
 * `npm start` otherwise: Host check, 403 for cross-origin POSTs, no stack traces, socket addresses.
 */
const DEV = process.env.NODE_ENV === 'development';
const BUILD_PATH = path.resolve(process.argv[2] ?? 'build/index.js');
const PORT = Number(process.env.PORT ?? 3000);
const HOST = process.env.HOST || undefined;
const WORKERS = Math.max(1, Number(process.env.WEB_CONCURRENCY) || os.availableParallelism());
/** How long a worker may take to finish its requests after a shutdown signal. */
const SHUTDOWN_GRACE_MS = 10_000;

// ---------------------------------------------------------------------------------------------
// Primary

/** The environment is checked once, before anything serves, with a clear message rather than a stack trace. */
async function checkEnvironment() {
  try {
    await import('./app/lib/env.server.ts');
  } catch (error) {
    console.error(`[tend-server] ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}

async function runPrimary() {
  await checkEnvironment();
  // Only the primary keeps the counters (the workers' copy of this module is in the build).
  const { SHARED_LIMITS_ENV, answerSignInLimits } = await import('./app/lib/auth/sign-in-limits.server.ts');
  let stopping = false;
  let listening = false;
  const say = (msg: string) => console.log(`[tend-server] ${msg}`);

  const fork = () => {
    const worker = cluster.fork({ [SHARED_LIMITS_ENV]: '1' });
    answerSignInLimits(worker);
    let ready = false;
    worker.once('listening', () => {
      ready = true;
      if (!listening) {
        listening = true;
        say(
          `http://${HOST ?? 'localhost'}:${PORT} · ${WORKERS} worker${WORKERS === 1 ? '' : 's'} · ${path.relative(process.cwd(), BUILD_PATH)}`,
        );
      }
    });
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      // A worker that dies before it ever listened has a problem a new one would have too (bad env, port taken).
      if (!ready) {
        say(`worker ${worker.process.pid} exited before listening (${signal ?? code}); stopping`);
        void stop(1);
        return;
      }
      say(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
      fork();
    });
  };

  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            worker.once('exit', () => resolve());
            const kill = setTimeout(() => worker.process.kill('SIGKILL'), SHUTDOWN_GRACE_MS + 2_000);
            kill.unref();
            // Signals go to the worker itself (the terminal's Ctrl-C may already have reached it too).
            worker.process.kill('SIGTERM');
          }),
      ),
    );
    process.exit(exitCode);
  };

  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(0));
  for (let i = 0; i < WORKERS; i++) fork();
}

// ---------------------------------------------------------------------------------------------
// Worker

/** The build; in development a fresh copy each time (the query string defeats the import cache). */
async function importBuild(): Promise<ServerBuild> {
  const url = pathToFileURL(BUILD_PATH).href;
  return import(DEV ? `${url}?t=${statSync(BUILD_PATH).mtimeMs}` : url);
}

async function runWorker() {
  // Before the build loads: the app may take the client's IP from the header toRequest sets.
  process.env[PEER_ADDRESS_ENV] = '1';
  let build = await importBuild();
  let handleRemix = createRequestHandler(build, process.env.NODE_ENV);
  const { isSameOriginPost } = await import('./app/lib/http/request-info.server.ts');
  const { errorMessage } = await import('./app/lib/errors/catalogue.server.ts');
  const hosts = allowedHosts({ ALLOWED_HOSTS: process.env.ALLOWED_HOSTS, APP_ORIGIN: process.env.APP_ORIGIN });
  const assets = new StaticFiles(path.resolve(build.assetsBuildDirectory), 'public, max-age=31536000, immutable');
  // public/ minus the build output under it (the build is served above, or is another build's).
  const publicFiles = new StaticFiles(path.resolve('public'), 'public, max-age=3600', path.resolve('public', 'build'));
  const publicPath = build.publicPath; // "/build/"
  if (DEV)
    watchBuild(async () => {
      build = await importBuild();
      handleRemix = createRequestHandler(build, process.env.NODE_ENV);
      await broadcastDevReady(build);
    });

  let closing = false;
  const server = http.createServer(async (req, res) => {
    // While shutting down, a keep-alive connection is closed after the request it carries.
    if (closing) res.setHeader('Connection', 'close');
    // A name this server doesn't go by (DNS rebinding, a forged Host): refused before anything else.
    if (!isAllowedHost(req.headers.host, hosts)) {
      sendPlain(res, 421, 'Misdirected Request: this server does not answer for that host name (ALLOWED_HOSTS).');
      dropUnreadBody(req);
      return;
    }
    // Set when this request renders a page others without a session wait for (sendKeptDocument).
    let rendering: Awaited<ReturnType<typeof sendKeptDocument>> = false;
    try {
      const pathname = (req.url ?? '/').split('?', 1)[0];
      if (req.method === 'GET' || req.method === 'HEAD') {
        if (pathname.startsWith(publicPath)) {
          if (!(await assets.serve(pathname.slice(publicPath.length), req, res))) sendPlain(res, 404, 'Not Found');
          return;
        }
        if (pathname !== '/' && (await publicFiles.serve(pathname.slice(1), req, res))) return;
        rendering = await sendKeptDocument(build, req, res);
        if (rendering === true) return;
      }
      const { request, abort } = toRequest(req, res);
      const response = await handleRemix(request);
      // Remix refuses a document POST from another origin before any action runs, with an empty 500
      // (server-runtime handleDocumentRequest); it is the client's fault, so: forbidden, 403.
      if (
        response.status === 500 &&
        !response.body &&
        req.method !== 'GET' &&
        req.method !== 'HEAD' &&
        !isSameOriginPost(request)
      ) {
        sendHtml(res, 403, errorMessage('forbidden'));
        return;
      }
      await sendResponse(req, res, response, abort);
    } catch (error) {
      console.error('[tend-server] request failed', error);
      if (!res.headersSent) sendPlain(res, 500, 'Internal Server Error');
      else res.destroy();
    } finally {
      if (typeof rendering === 'object') rendering.finished();
      dropUnreadBody(req);
    }
  });
  server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout (60 s)

  const shutdown = () => {
    if (closing) return;
    closing = true;
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
      process.exit(0);
    }, SHUTDOWN_GRACE_MS).unref();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, shutdown);

  server.listen(PORT, HOST, () => {
    if (!DEV) return;
    console.log(`[tend-server] development: http://${HOST ?? 'localhost'}:${PORT}`);
    void broadcastDevReady(build);
  });
}

/** Calls `reload` after remix dev has written a new build (it writes version.txt last). */
function watchBuild(reload: () => Promise<void>) {
  const dir = path.dirname(BUILD_PATH);
  const versionFile = path.join(dir, 'version.txt');
  let seen = '';
  let running = Promise.resolve();
  const check = () => {
    running = running.then(async () => {
      const version = await fs.readFile(versionFile, 'utf8').catch(() => '');
      if (!version || version === seen) return;
      seen = version;
      await reload().catch((error) => console.error('[tend-server] reloading the build failed', error));
    });
  };
  void fs.readFile(versionFile, 'utf8').then(
    (v) => (seen = v),
    () => undefined,
  );
  watch(dir, (_event, name) => {
    if (name === 'version.txt') check();
  });
}

/** A page of one sentence, for answers Remix gives no page of its own. */
function sendHtml(res: ServerResponse, status: number, message: string) {
  const escaped = message.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const html = `<!DOCTYPE html><html lang="en"><meta charset="utf-8"><title>Tend</title><h1>${escaped}</h1></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-store',
  });
  res.end(html);
}

function sendPlain(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** The request's URL as Remix gets it. Concatenated, not resolved: a path like //evil.test/x stays a path on this host. */
const urlOf = (req: IncomingMessage) => new URL(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`);

/**
 * A page the app rendered once for every reader without a session and kept (entry.server.tsx), sent
 * without Remix while its data is current: no Request, no route matching, no loaders. True when sent;
 * false when there is none for this request; or the rendering this request leads, to be `finished()`
 * once Remix has answered (others asking for the same page meanwhile wait for it).
 */
async function sendKeptDocument(
  build: ServerBuild,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean | { finished(): void }> {
  const kept = (build.entry.module as { keptDocument?: typeof keptDocument }).keptDocument;
  if (!kept) return false;
  const answer = await kept({
    method: req.method ?? 'GET',
    url: urlOf(req).href,
    headers: {
      get(name) {
        const value = req.headers[name];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
  });
  if (!answer) return false;
  if ('finished' in answer) return answer;
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body ?? undefined);
  return true;
}

/** The fetch Request Remix wants, from Node's request; aborted when the client goes away. */
function toRequest(req: IncomingMessage, res: ServerResponse): { request: Request; abort: AbortController } {
  const url = urlOf(req);
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].charCodeAt(0) !== 58 /* ":" HTTP/2 pseudo-headers */) headers.append(raw[i], raw[i + 1]);
  }
  // The client's address, for per-IP limits when no proxy tells it; a client can't send its own.
  headers.delete(PEER_ADDRESS_HEADER);
  const peer = req.socket.remoteAddress;
  if (peer) headers.set(PEER_ADDRESS_HEADER, peer.startsWith('::ffff:') ? peer.slice(7) : peer);
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal: abort.signal };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    init.body = bodyStream(req);
    init.duplex = 'half';
  }
  return { request: new Request(url, init), abort };
}

/**
 * The request body as a web stream that reads only as fast as it is read from. Cancelling it (a
 * form over its size limit) stops the reading without closing the connection: dropUnreadBody
 * decides what becomes of the rest once the answer has gone out.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  const onData = (chunk: Buffer) => {
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        req.pause();
        req.on('data', onData);
        req.once('end', () => controller.close());
        // A client gone mid-body: Node emits ECONNRESET here, and the reader gets it.
        req.once('error', (error) => controller.error(error));
      },
      pull() {
        req.resume();
      },
      cancel() {
        req.off('data', onData);
        req.pause();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/**
 * Past this much unread body (a form refused before it was read: over its size, cross-site) the
 * connection is closed; up to it the rest is read and dropped, so that the client, still sending,
 * gets the answer instead of a reset, and the connection can carry its next request.
 */
const DRAIN_MAX_BYTES = 8 * 1024 * 1024;

function dropUnreadBody(req: IncomingMessage) {
  if (req.complete || req.destroyed) return;
  req.removeAllListeners('data');
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > DRAIN_MAX_BYTES) req.socket.destroy();
  });
  req.resume();
}

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml)|image\/svg\+xml)/;
/** Static files: below this a compressed body saves less than it costs (about one TCP packet). */
const COMPRESS_MIN_BYTES = 1024;
/**
 * Pages and data are compressed per response, so only from this size: anything smaller fits in
 * TCP's initial congestion window (10 segments, RFC 6928) and arrives in the same round trip
 * either way, while gzip would cost ~0.1 ms of CPU per 10 KB.
 */
const COMPRESS_DYNAMIC_MIN_BYTES = 14 * 1024;

type Encoding = 'br' | 'gzip' | null;
function acceptedEncoding(req: IncomingMessage): Encoding {
  const accept = req.headers['accept-encoding'];
  if (!accept) return null;
  if (/\bbr\b/.test(accept)) return 'br';
  return /\bgzip\b/.test(accept) ? 'gzip' : null;
}

/**
 * Writes Remix's Response. A body that is there all at once (every page that defers nothing) is
 * sent in one write with its length, compressed when it is text of some size; a streamed body is
 * passed on chunk by chunk as it comes.
 */
async function sendResponse(req: IncomingMessage, res: ServerResponse, response: Response, abort: AbortController) {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) if (name !== 'set-cookie') headers[name] = value;
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;

  // A document's bytes as they are (bytes-response.ts); else the body read: all there at once, or a stream.
  const bytes = req.method === 'HEAD' ? null : bytesOf(response);
  if (bytes) return sendWhole(req, res, response, headers, bytes);
  if (!response.body || req.method === 'HEAD') {
    res.writeHead(response.status, response.statusText || undefined, headers);
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const first = await reader.read();
  const second = first.done ? first : await reader.read();
  if (second.done) return sendWhole(req, res, response, headers, first.value ?? new Uint8Array(0));
  res.writeHead(response.status, response.statusText || undefined, headers);
  res.write(first.value);
  res.write(second.value);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
      if (abort.signal.aborted) break;
    }
  } finally {
    if (abort.signal.aborted) await reader.cancel().catch(() => undefined);
    res.end();
  }
}

/** A body there all at once: one write with its length, compressed when it is text of some size. */
function sendWhole(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  headers: Record<string, string | string[]>,
  bytes: Uint8Array,
) {
  let body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = response.headers.get('content-type') ?? '';
  if (
    body.length >= COMPRESS_DYNAMIC_MIN_BYTES &&
    COMPRESSIBLE.test(type) &&
    !response.headers.has('content-encoding')
  ) {
    headers.vary = headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding';
    // gzip at a fast level: per response, brotli at a similar ratio costs twice the CPU.
    if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      body = gzipSync(body, { level: 2 });
      headers['content-encoding'] = 'gzip';
    }
  }
  headers['content-length'] = String(body.length);
  res.writeHead(response.status, response.statusText || undefined, headers);
  res.end(body);
}

/** Until the socket takes more, or is gone (a client that went away never drains). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

// ---------------------------------------------------------------------------------------------
// Static files

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};
/** Files up to this size are kept in memory with their compressed forms; bigger ones are streamed. */
const CACHE_MAX_BYTES = 1024 * 1024;

interface CachedFile {
  type: string;
  etag: string;
  lastModified: string;
  body: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

/**
 * The files under one directory, listed at start-up (a deploy restarts the server): a path that
 * isn't one of them costs a map lookup. Small files are read once and kept with their compressed
 * forms; bigger ones are streamed.
 */
class StaticFiles {
  private files = new Map<string, string>();
  private cache = new Map<string, CachedFile>();

  constructor(
    private readonly root: string,
    private readonly cacheControl: string,
    private readonly skip?: string,
  ) {
    // In development the files change under the server: each request looks on disk (onDisk).
    if (DEV) return;
    let entries: string[] = [];
    try {
      entries = readdirSync(root, { recursive: true, encoding: 'utf8' });
    } catch {
      // no such directory: nothing to serve
    }
    for (const entry of entries) {
      const full = path.join(root, entry);
      if (this.skip && (full === this.skip || full.startsWith(this.skip + path.sep))) continue;
      if (statSync(full).isFile()) this.files.set(entry.split(path.sep).join('/'), full);
    }
  }

  /** Serves `relative` (URL-encoded, no leading slash) when it is one of the files; false when not. */
  async serve(relative: string, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    let name = relative;
    if (name.includes('%')) {
      try {
        name = decodeURIComponent(name);
      } catch {
        return false;
      }
    }
    const full = DEV ? this.onDisk(name) : this.files.get(name);
    if (!full) return false;
    const file = this.cache.get(name) ?? (await this.load(name, full, req, res));
    if (!file) return true; // streamed
    const headers: Record<string, string> = {
      'Content-Type': file.type,
      'Cache-Control': this.cacheControl,
      ETag: file.etag,
      'Last-Modified': file.lastModified,
      Vary: 'Accept-Encoding',
    };
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    let body = file.body;
    const encoding = acceptedEncoding(req);
    if (encoding && body.length >= COMPRESS_MIN_BYTES && COMPRESSIBLE.test(file.type)) {
      // Once per file and process, at the best settings.
      body =
        encoding === 'br'
          ? (file.br ??= brotliCompressSync(file.body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }))
          : (file.gzip ??= gzipSync(file.body, { level: 9 }));
      headers['Content-Encoding'] = encoding;
    }
    headers['Content-Length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  }

  /** Reads and keeps a small file; streams a big one itself and returns null. */
  private async load(
    name: string,
    full: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<CachedFile | null> {
    const stats = await fs.stat(full);
    const type = TYPES[path.extname(full).toLowerCase()] ?? 'application/octet-stream';
    const etag = `W/"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`;
    const lastModified = stats.mtime.toUTCString();
    if (stats.size > CACHE_MAX_BYTES) {
      res.writeHead(200, {
        'Content-Type': type,
        'Content-Length': String(stats.size),
        'Cache-Control': this.cacheControl,
        ETag: etag,
        'Last-Modified': lastModified,
      });
      if (req.method === 'HEAD') res.end();
      else createReadStream(full).pipe(res);
      return null;
    }
    const file: CachedFile = { type, etag, lastModified, body: await fs.readFile(full) };
    if (!DEV) this.cache.set(name, file);
    return file;
  }

  /** The file for `name` under the root as it is now (development), never outside the root. */
  private onDisk(name: string): string | undefined {
    const full = path.join(this.root, name);
    if (!full.startsWith(this.root + path.sep)) return undefined;
    if (this.skip && (full === this.skip || full.startsWith(this.skip + path.sep))) return undefined;
    try {
      return statSync(full).isFile() ? full : undefined;
    } catch {
      return undefined;
    }
  }
}

if (DEV) {
  await checkEnvironment();
  await runWorker();
} else if (cluster.isPrimary) await runPrimary();
else await runWorker();
