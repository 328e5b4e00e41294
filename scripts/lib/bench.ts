// Shared by the page benchmarks: the autocannon runner, the results table and signing in through the app.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createServerClient, parseCookieHeader } from '@supabase/ssr';
import autocannon from 'autocannon';
import pg from 'pg';
import { PROJECT_DIR, type Stack, SUPERUSER } from '@tend/supabase-local';
import { buildApp, startAppServer } from './app-server.ts';
import { messagesTo, waitForMail } from './mail.ts';

export interface BenchResult {
  p50: number;
  p95: number;
  p99: number;
  rps: number;
  total: number;
  non2xx: number;
  errors: number;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;
}

export async function run(
  url: string,
  headers: Record<string, string>,
  duration: number,
  connections: number,
  /** Paths each connection asks for in turn (on `url`'s origin) instead of `url` alone. */
  paths?: string[],
): Promise<BenchResult> {
  // autocannon's own percentiles come from a histogram of whole milliseconds (rounded down), which
  // at 10–30 ms moves a ratio of two of them by several per cent; its per-response times are exact
  // (ms from sending the request to the end of the response; 2xx and 3xx: a search for a ticket's
  // number answers with a redirect to it).
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const requests = paths?.map((path) => ({ method: 'GET' as const, path }));
    const instance = autocannon({ url, connections, duration, headers, requests }, (error, done) =>
      error ? reject(error) : resolve(done),
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 400) times.push(ms);
    });
  });
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    p50: round(percentile(times, 50)),
    p95: round(percentile(times, 95)),
    p99: round(percentile(times, 99)),
    rps: Math.round(result.requests.average),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/**
 * BENCH_BASELINE=<another checkout, its node_modules installed>: the benchmarks serve that
 * version's build too, on the same stack, and time the two in alternating rounds, so a change is
 * compared under the same load and drift (`git worktree add ../base main` makes one).
 */
export const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;

/** The median of `xs` (the upper one of an even count). */
export const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

/** "min–max" of `xs`, to `digits` places. */
export const range = (xs: number[], digits = 2) =>
  xs.length ? `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}` : '';

export function printResults(title: string, results: ({ label: string } & BenchResult)[]) {
  console.log(`\n${title}`);
  console.table(
    results.map((r) => ({
      page: r.label,
      'p50 ms': r.p50,
      'p95 ms': r.p95,
      'p99 ms': r.p99,
      'req/s': r.rps,
      requests: r.total,
      'non-2xx': r.non2xx,
      errors: r.errors,
    })),
  );
}

/**
 * CPU time (ms, user + system) that the processes `roots` and all their descendants, living or ended, have used so
 * far, from /proc (Linux; undefined elsewhere). Sampled around a run, it gives CPU per request,
 * which the machine's drift in speed moves far less than latency.
 */
export function cpuMs(roots: number[]): number | undefined {
  return cpuMsByTree({ all: roots })?.all;
}

/** cpuMs of several groups of processes (each with its descendants), from one reading of /proc. */
export function cpuMsByTree<K extends string>(groups: Record<K, number[]>): Record<K, number> | undefined {
  if (process.platform !== 'linux') return undefined;
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const raw = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After "pid (comm) ": state ppid … utime (14th field) stime (15th) cutime cstime (16th, 17th). The last two
      // are its ended children's, once waited for (a Postgres backend that closed): without them a round in which
      // a busy backend ended read less CPU than it began with.
      const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      stats.set(Number(entry), { ppid: Number(f[1]), ticks });
    } catch {
      /* the process ended */
    }
  }
  const out = {} as Record<K, number>;
  for (const key of Object.keys(groups) as K[]) {
    const roots = groups[key];
    const inTree = (pid: number): boolean => {
      for (let p = pid; p > 1; p = stats.get(p)?.ppid ?? 0) if (roots.includes(p)) return true;
      return false;
    };
    let ticks = 0;
    for (const [pid, s] of stats) if (inTree(pid)) ticks += s.ticks;
    out[key] = ticks * 10; // USER_HZ is 100 on Linux
  }
  return out;
}

/** `fn` on a connection as the cluster's superuser (checkpoints, sizes, auto_explain, bulk setup). */
export async function superuser<T>(stack: Pick<Stack, 'dbUrl'>, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(stack.dbUrl);
  url.username = SUPERUSER;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The headers of a PostgREST call as the signed-in user of `cookie` (their access token, read from
 * the session cookie the way the app reads it): to time a page's call beside the page.
 */
export async function restHeadersOf(stack: Pick<Stack, 'apiUrl' | 'anonKey'>, cookie: string) {
  const session = createServerClient(stack.apiUrl, stack.anonKey, {
    cookies: {
      getAll: () => parseCookieHeader(cookie).map(({ name, value }) => ({ name, value: value ?? '' })),
      setAll: () => undefined,
    },
  });
  const token = (await session.auth.getSession()).data.session?.access_token;
  if (!token) throw new Error('no access token in the session cookie');
  return { apikey: stack.anonKey, authorization: `Bearer ${token}` };
}

/** Signs in through the app's own forms (as a browser without JS would) and returns the Cookie header. */
export async function signIn(base: string, mailUrl: string, email: string): Promise<string> {
  const jar = new Map<string, string>();
  const absorb = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const expired = attrs.some((a) => /max-age=0/i.test(a.trim()));
      if (expired || pair.slice(eq + 1) === '') jar.delete(name);
      else jar.set(name, pair.slice(eq + 1));
    }
  };
  const header = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const post = async (url: string, form: Record<string, string>) => {
    const res = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: { cookie: header(), origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    absorb(res);
    return res;
  };
  const before = (await messagesTo(mailUrl, email)).length;
  const step1 = await post(`${base}/login`, { email });
  if (step1.status !== 302) throw new Error(`POST /login answered ${step1.status}: ${await step1.text()}`);
  const verifyUrl = new URL(step1.headers.get('location')!, base).toString();
  absorb(await fetch(verifyUrl, { headers: { cookie: header() }, redirect: 'manual' }));
  const { code } = await waitForMail(mailUrl, email, before + 1);
  const step2 = await post(verifyUrl, { email, code, intent: 'verify' });
  if (step2.status !== 302) throw new Error(`POST /login/verify answered ${step2.status}: ${await step2.text()}`);
  if (![...jar.keys()].some((k) => /^sb-.+-auth-token/.test(k))) throw new Error('no session cookie after sign-in');
  return header();
}

/**
 * Builds the app and its islands into <dir>/app (TEND_BUILD_DIR) and serves it with server.ts against `stack`.
 * `env` adds to the server's environment (WEB_CONCURRENCY, TRUST_PROXY…); `nodeArgs` go to Node
 * (e.g. --cpu-prof, which the workers inherit).
 */
export async function startApp(
  dir: string,
  stack: Pick<Stack, 'apiUrl' | 'anonKey'>,
  opts: { env?: Record<string, string>; nodeArgs?: string[]; projectDir?: string } = {},
): Promise<{ base: string; buildDir: string; pid: number; stop(): Promise<void> }> {
  const buildDir = path.join(dir, opts.projectDir ? 'baseline' : 'app');
  buildApp(buildDir, opts.projectDir);
  // BENCH_CPU_PROF=<dir>: the server's processes write V8 CPU profiles to <dir>/app (the baseline's to <dir>/baseline).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', path.join(path.resolve(process.env.BENCH_CPU_PROF), path.basename(buildDir))]
    : [];
  const app = await startAppServer(
    buildDir,
    { SUPABASE_URL: stack.apiUrl, SUPABASE_ANON_KEY: stack.anonKey, ...opts.env },
    {
      nodeArgs: [...profile, ...(opts.nodeArgs ?? [])],
      host: '127.0.0.1',
      log: !!process.env.BENCH_APP_LOG,
      projectDir: opts.projectDir,
    },
  );
  return { base: app.baseURL, buildDir, pid: app.pid, stop: app.stop };
}

/**
 * The nightly job that keeps the pairs of the words the statistics call common (private.keep_common_search_pairs,
 * docs/decisions/122-words-apart.md), run once after a seed as it would have run while the tickets came in: the
 * statistics first, and says how long it took. Skipped with BENCH_SEARCH_PAIRS=0 (the searches as without the store),
 * and on a database without the job (an older checkout's).
 */
export async function keepSearchPairs(stack: Pick<Stack, 'dbUrl'>): Promise<void> {
  if (process.env.BENCH_SEARCH_PAIRS === '0') return;
  await superuser(stack, async (c) => {
    const { rows } = await c.query(
      `select to_regprocedure('private.keep_common_search_pairs(integer)') is not null as x`,
    );
    if (!rows[0].x) return;
    const started = performance.now();
    await c.query('analyze public.tickets');
    await c.query('call private.keep_common_search_pairs()');
    console.log(
      `Kept the common words' pairs (the nightly job) in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    );
  });
}

/** `tickets` more tickets at Acme from seed:bulk (scripts/seed-bulk.ts), into `stack`'s database. */
export function seedBulk(stack: Pick<Stack, 'dbUrl'>, tickets: number) {
  const seed = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/seed-bulk.ts',
      '--workspace',
      'acme',
      '--tickets',
      String(tickets),
      '--db-url',
      stack.dbUrl,
    ],
    { cwd: PROJECT_DIR, stdio: 'inherit' },
  );
  if (seed.status !== 0) throw new Error('seed:bulk failed');
}
