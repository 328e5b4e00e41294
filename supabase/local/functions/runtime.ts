// The Deno processes that run functions: one per function (edge-runtime's per_worker policy), so
// one function can't read another's environment or take it down. A worker starts on its function's
// first request (cold start), serves until its files change, its wall-clock limit passes or it
// dies, and every one is stopped with the stack.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnManaged, stopChild, type ManagedChild } from '../process.ts';
import { BOOT_FILE, denoBinary } from './deno.ts';
import { sendPlatformError } from './errors.ts';
import type { FunctionDef } from './project.ts';

export interface RuntimeOptions {
  denoDir: string;
  logDir: string;
  policy: 'per_worker' | 'oneshot';
  memoryLimitMb: number;
  wallClockLimitMs: number;
  requestIdleTimeoutMs: number;
  /** The function's environment: its secrets and the SUPABASE_* variables. */
  env(def: FunctionDef): Record<string, string>;
  log(slug: string, line: string): void;
}

/** Why a worker ended: a resource limit answers 546, a crash 500 (or 503 while booting). */
type End = 'crash' | 'memory' | 'wall-clock' | 'stopped';

// The machine's network settings Deno needs to fetch npm: packages (and a function to fetch at all):
// a registry mirror, proxies, extra CA certificates. Nothing else of the stack's environment passes.
const PASS_THROUGH = [
  'NPM_CONFIG_REGISTRY',
  'DENO_CERT',
  'DENO_TLS_CA_STORE',
  'NODE_EXTRA_CA_CERTS',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'https_proxy',
  'http_proxy',
  'no_proxy',
];

// boot.ts prints this once Deno.serve listens.
const READY = '\u0000tend-function-ready';

interface Worker {
  id: number;
  slug: string;
  stamp: string;
  child: ManagedChild;
  /** The loopback port its Deno.serve listens on, once ready. */
  port: number;
  agent: http.Agent;
  state: 'booting' | 'ready' | 'retiring' | 'gone';
  inflight: number;
  end?: End;
  ready: Promise<void>;
  gone: Promise<void>;
}

export interface FunctionRuntime {
  /** Serves one request with the function's worker (starting one if needed). `rest` is the path after the slug. */
  handle(def: FunctionDef, stamp: string, req: IncomingMessage, res: ServerResponse, rest: string): Promise<void>;
  processes(): { name: string; pid: number }[];
  stop(): Promise<void>;
}

export function createRuntime(opts: RuntimeOptions): FunctionRuntime {
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'tend-fn-')); // each worker's TMPDIR
  const current = new Map<string, Worker>(); // the worker that takes a function's new requests
  const live = new Set<Worker>(); // every worker not yet exited, retiring ones included
  let seq = 0;
  let stopping = false;
  let deno: string | undefined;

  const isLimit = (w: Worker) => w.end === 'memory' || w.end === 'wall-clock';

  function kill(w: Worker, why: End) {
    w.end ??= why;
    void stopChild(w.child, 'SIGTERM', 2000);
  }

  /** No new requests; it exits once the ones it has are answered. */
  function retire(w: Worker) {
    if (current.get(w.slug) === w) current.delete(w.slug);
    if (w.state === 'gone') return;
    w.state = 'retiring';
    if (w.inflight === 0) kill(w, 'stopped');
  }

  function spawnWorker(def: FunctionDef, stamp: string): Worker {
    deno ??= denoBinary();
    const id = ++seq;
    const tmp = path.join(runDir, `${id}.tmp`);
    mkdirSync(tmp);
    const flags = [
      'run',
      '--quiet',
      '--no-lock', // as edge-runtime: never write a deno.lock into the project
      ...(def.config ? [def.config.kind === 'config' ? '--config' : '--import-map', def.config.file] : ['--no-config']),
      // edge-runtime's user-worker permissions (crates/base/src/runtime/permissions.rs): net, env
      // (its own only: the process has no other), imports, hostname; files limited to its code.
      '--allow-net',
      '--allow-env',
      '--allow-import',
      '--allow-sys=hostname',
      `--allow-read=${[...def.readable, path.join(opts.denoDir, 'npm'), tmp].join(',')}`,
      `--allow-write=${tmp}`,
      `--v8-flags=--max-old-space-size=${opts.memoryLimitMb}`,
      // Dev only: extra Deno flags for every worker, e.g. FUNCTIONS_DENO_FLAGS=--inspect=127.0.0.1:9230 to take a
      // CPU profile over the inspector (scripts/deno-cpu-profile.ts); edge-runtime has no such knob.
      ...(process.env.FUNCTIONS_DENO_FLAGS?.split(/\s+/).filter(Boolean) ?? []),
      BOOT_FILE,
    ];
    const env: Record<string, string> = {
      ...opts.env(def),
      DENO_DIR: opts.denoDir,
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
      TMPDIR: tmp,
      TEND_FUNCTION_ENTRYPOINT: pathToFileURL(def.entrypoint).href,
    };
    // CLI main.ts: a package.json beside the entrypoint (and no import map) is used for resolution;
    // otherwise this repository's own package.json must not be.
    if (def.config || !existsSync(path.join(path.dirname(def.entrypoint), 'package.json')))
      env.DENO_NO_PACKAGE_JSON = '1';
    for (const name of PASS_THROUGH) if (process.env[name]) env[name] = process.env[name]!;

    let markReady!: () => void;
    let markFailed!: (e: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => undefined);
    const child = spawnManaged('deno', deno, flags, {
      cwd: path.dirname(def.entrypoint),
      env: env as NodeJS.ProcessEnv,
      logFile: path.join(opts.logDir, `${def.slug}.log`),
      onLine: (line) => {
        if (!line.startsWith(READY)) return opts.log(def.slug, line);
        w.port = Number(line.slice(READY.length + 1));
        if (w.state === 'booting') w.state = 'ready';
        markReady();
      },
    });
    const half = setTimeout(() => retire(w), opts.wallClockLimitMs / 2); // edge-runtime retires early too
    const full = setTimeout(() => {
      opts.log(def.slug, 'wall clock time limit reached');
      kill(w, 'wall-clock');
    }, opts.wallClockLimitMs);
    const w: Worker = {
      id,
      slug: def.slug,
      stamp,
      child,
      port: 0,
      agent: new http.Agent({ keepAlive: true }),
      state: 'booting',
      inflight: 0,
      ready,
      gone: child.exited.then(({ code, signal }) => {
        clearTimeout(half);
        clearTimeout(full);
        w.state = 'gone';
        live.delete(w);
        if (current.get(w.slug) === w) current.delete(w.slug);
        w.agent.destroy();
        rmSync(tmp, { recursive: true, force: true });
        // V8 aborts with SIGTRAP on "Fatal JavaScript out of memory" (the --max-old-space-size limit).
        if (!w.end && (signal === 'SIGTRAP' || /out of memory/i.test(child.tail()))) {
          w.end = 'memory';
          opts.log(def.slug, 'Memory limit exceeded');
        }
        if (!w.end) {
          w.end = 'crash';
          if (!stopping) opts.log(def.slug, `worker exited (${signal ?? `code ${code}`})`);
        }
        markFailed(new Error('worker exited'));
      }),
    };
    live.add(w);
    return w;
  }

  /** Streams the request to the worker and its answer back; the platform answers for a worker that fails. */
  function forward(w: Worker, req: IncomingMessage, res: ServerResponse, rest: string): Promise<void> {
    return new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(idle);
        w.inflight--;
        if (opts.policy === 'oneshot' || w.state === 'retiring') retire(w);
        resolve();
      };
      const headers = { ...req.headers };
      delete headers.connection;
      // The function sees /<slug>/<rest> (the gateway strips /functions/v1, reference B2).
      const up = http.request(
        { host: '127.0.0.1', port: w.port, method: req.method, path: `/${w.slug}${rest}`, headers, agent: w.agent },
        (upRes) => {
          clearTimeout(idle);
          const out: http.OutgoingHttpHeaders = { ...upRes.headers };
          // Hosted rewrites GET text/html to text/plain without a custom domain (functions limits guide).
          const type = String(out['content-type'] ?? '');
          if (req.method === 'GET' && /^text\/html/i.test(type))
            out['content-type'] = type.replace(/^text\/html/i, 'text/plain');
          // error-codes guide: EDGE_FUNCTION_ERROR marks a function's unhandled error or 5xx.
          if ((upRes.statusCode ?? 500) >= 500) out['sb-error-code'] = 'EDGE_FUNCTION_ERROR';
          res.writeHead(upRes.statusCode ?? 500, out);
          upRes.pipe(res);
          upRes.on('end', finish);
          upRes.on('error', () => {
            res.destroy();
            finish();
          });
        },
      );
      const idle = setTimeout(() => {
        opts.log(w.slug, `no response within ${opts.requestIdleTimeoutMs / 1000} s (request idle timeout)`);
        up.destroy();
        sendPlatformError(res, 'IDLE_TIMEOUT');
        finish();
      }, opts.requestIdleTimeoutMs);
      up.on('error', async () => {
        if (done) return;
        // The worker died under the request: wait (briefly) to learn why.
        await Promise.race([w.gone, new Promise((r) => setTimeout(r, 1000))]);
        if (!done) sendPlatformError(res, isLimit(w) ? 'WORKER_LIMIT' : 'WORKER_ERROR');
        finish();
      });
      res.on('close', () => {
        if (done) return;
        up.destroy(); // the caller went away
        finish();
      });
      req.pipe(up);
    });
  }

  return {
    async handle(def, stamp, req, res, rest) {
      let w = current.get(def.slug);
      if (w && w.stamp !== stamp) {
        opts.log(def.slug, 'files changed, reloading');
        retire(w);
        w = undefined;
      }
      if (!w) {
        try {
          w = spawnWorker(def, stamp);
        } catch (err) {
          opts.log(def.slug, `worker boot error: ${(err as Error).message}`);
          return sendPlatformError(res, 'BOOT_ERROR');
        }
        current.set(def.slug, w);
      }
      // Counted from now: a worker retired while booting still serves the requests waiting for it.
      w.inflight++;
      try {
        await w.ready;
      } catch {
        w.inflight--;
        return sendPlatformError(res, isLimit(w) ? 'WORKER_LIMIT' : 'BOOT_ERROR');
      }
      return forward(w, req, res, rest);
    },
    processes: () =>
      [...live].filter((w) => w.child.child.pid).map((w) => ({ name: `deno ${w.slug}`, pid: w.child.child.pid! })),
    async stop() {
      stopping = true;
      const all = [...live];
      for (const w of all) kill(w, 'stopped');
      await Promise.all(all.map((w) => w.gone));
      rmSync(runDir, { recursive: true, force: true });
    },
  };
}
