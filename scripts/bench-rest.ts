// npm run bench:rest: the CPU of one inbox call (GET /rest/v1/rpc/inbox, the default view, as an agent)
// split by process — the gateway (this process), PostgREST and Postgres — through the gateway and
// straight to PostgREST, and the same call to other PostgREST processes on the same database whose
// settings differ (BENCH_REST_VARIANTS), all timed in alternating rounds in one run. The load comes from
// autocannon in a process of its own, so its CPU is in no column. docs/decisions/091-page-cpu-outside-sql.md.
// Postgres's CPU is also split between the backends that serve PostgREST's calls and everything else (the
// background processes, the stack's own sessions, pg_net's and pg_cron's: their idle CPU lands in a bench's
// per-call figure too; docs/decisions/106-inbox-call-cost-outside-the-page.md). The data: seed:bulk's tickets
// and bench:inbox's field, mentions, tags, promises and saved views (scripts/lib/inbox-data.ts).
//   BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_TICKETS=20000 BENCH_CONNECTIONS=10 npm run bench:rest
// BENCH_REST_VARIANTS='{"-A16m":{"GHCRTS":"-A16m"}}': name → environment added to a copy of the stack's PostgREST.
// BENCH_VIEWS='view=open|view=all': the inbox pages (the page's query string) timed, default the default view.
// BENCH_BASELINE=<another checkout>: a second stack of that checkout (its supabase/local, migrations and seed),
// seeded the same, whose call (PostgREST alone) alternates with this one's in every round: a database or
// stack change is timed against the old one under the same load, as this ÷ baseline per round.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { importJWK, SignJWT } from 'jose';
import { DEFAULT_SIGNING_KEY, PROJECT_DIR, startStack } from '@tend/supabase-local';
import { inboxArgs, inboxFilters } from '../app/lib/helpdesk/inbox-query.server.ts';
import { BASELINE, cpuMs, median, range, seedBulk, superuser } from './lib/bench.ts';
import { addInboxData } from './lib/inbox-data.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TICKETS = Number(process.env.BENCH_TICKETS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const VARIANTS: Record<string, Record<string, string>> = JSON.parse(process.env.BENCH_REST_VARIANTS ?? '{}');
const AGENT = 'agent@acme.test';
const VIEWS = (process.env.BENCH_VIEWS ?? '').split('|');

type StackLike = Awaited<ReturnType<typeof startStack>>;

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-rest-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
// The baseline's own stack code, migrations and seed (its PROJECT_DIR), on free ports beside this one.
const baseline: StackLike | undefined = BASELINE
  ? await (
      (await import(path.join(BASELINE, 'supabase/local/index.ts'))) as { startStack: typeof startStack }
    ).startStack({ port: 0, dir: path.join(dir, 'baseline'), ephemeral: true, log: () => undefined })
  : undefined;
const extra: ChildProcess[] = [];

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** A copy of the stack's PostgREST (its binary and environment, read from /proc) with `env` added. */
async function postgrestLike(
  pid: number,
  env: Record<string, string>,
): Promise<{ url: string; pid: number; socketPath?: string }> {
  const own: Record<string, string> = Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const [port, adminPort] = [await freePort(), await freePort()];
  const childEnv: Record<string, string | undefined> = {
    ...own,
    ...env,
    PGRST_SERVER_PORT: String(port),
    PGRST_ADMIN_SERVER_PORT: String(adminPort),
  };
  const binary = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!;
  const child = spawn(binary, [], { env: childEnv as NodeJS.ProcessEnv, stdio: 'ignore' });
  extra.push(child);
  for (let i = 0; ; i++) {
    const ok = await fetch(`http://127.0.0.1:${adminPort}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 400) throw new Error('the PostgREST copy did not become ready');
    await new Promise((r) => setTimeout(r, 50));
  }
  // PGRST_SERVER_UNIX_SOCKET: it listens there instead of on a port.
  const socketPath = env.PGRST_SERVER_UNIX_SOCKET;
  return { url: socketPath ? 'http://localhost' : `http://127.0.0.1:${port}`, pid: child.pid!, socketPath };
}

/** autocannon in its own process: the number of 2xx answers. */
function load(
  url: string,
  headers: Record<string, string>,
  socketPath?: string,
): Promise<{ total: number; non2xx: number }> {
  const args = ['-c', String(CONNECTIONS), '-d', String(DURATION), '-j', ...(socketPath ? ['-S', socketPath] : [])];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  const child = spawn(path.join(PROJECT_DIR, 'node_modules/.bin/autocannon'), [...args, url], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}`));
      const r = JSON.parse(out);
      resolve({ total: r['2xx'], non2xx: r.non2xx });
    }),
  );
}

/** An access token for the agent on `on`, as Auth signs one (ES256, the default signing key's kid). */
async function agentToken(on: StackLike): Promise<string> {
  const agentId = await superuser(on, async (c) => {
    await c.query('checkpoint');
    return (await c.query(`select id from auth.users where email = $1`, [AGENT])).rows[0].id as string;
  });
  const now = Math.floor(Date.now() / 1000);
  const key = await importJWK(
    { ...DEFAULT_SIGNING_KEY, key_ops: ['sign'] } as Parameters<typeof importJWK>[0],
    'ES256',
  );
  return new SignJWT({ sub: agentId, role: 'authenticated', aud: 'authenticated', email: AGENT })
    .setProtectedHeader({ alg: 'ES256', kid: DEFAULT_SIGNING_KEY.kid!, typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(key);
}

/** The inbox call's query string for a page's (`view=open`…), as the page's loader makes it. */
function inboxQuery(page: string): URLSearchParams {
  const query = new URLSearchParams({ p_slug: 'acme', p_limit: '25' });
  for (const [k, v] of Object.entries(inboxArgs(inboxFilters(new URLSearchParams(page)))))
    query.set(k, Array.isArray(v) ? `{${v.join(',')}}` : String(v));
  return query;
}

/** PostgREST's own port (straight to it, not through the gateway). */
const directPort = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').match(/PGRST_SERVER_PORT=(\d+)/)![1];

try {
  for (const s of [stack, baseline]) {
    if (!s) continue;
    if (TICKETS > 0) seedBulk(s, TICKETS);
    await addInboxData(s, AGENT, 'agent2@acme.test');
  }
  const headers = { apikey: stack.anonKey, authorization: `Bearer ${await agentToken(stack)}` };
  const baseHeaders = baseline && { apikey: baseline.anonKey, authorization: `Bearer ${await agentToken(baseline)}` };
  const query = inboxQuery(VIEWS[0]!);

  const procs = stack.processes();
  const pgPid = procs.find((p) => p.name === 'postgres')!.pid;
  const restPid = procs.find((p) => p.name === 'postgrest')!.pid;
  type Target = {
    label: string;
    url: string;
    pid: number;
    pgPid: number;
    headers: Record<string, string>;
    socketPath?: string;
    /** The label of the baseline's target this one is compared with. */
    against?: string;
  };
  const targets: Target[] = [
    { label: 'through the gateway', url: `${stack.apiUrl}/rest/v1/rpc/inbox?${query}`, pid: restPid, pgPid, headers },
  ];
  for (const page of VIEWS) {
    const label = `PostgREST alone${page ? ` (${page})` : ''}`;
    const q = inboxQuery(page);
    targets.push({
      label,
      url: `http://127.0.0.1:${directPort(restPid)}/rpc/inbox?${q}`,
      pid: restPid,
      pgPid,
      headers,
    });
    if (baseline && baseHeaders) {
      const [basePg, baseRest] = ['postgres', 'postgrest'].map(
        (n) => baseline.processes().find((p) => p.name === n)!.pid,
      );
      targets.push({
        label: `baseline: ${label}`,
        url: `http://127.0.0.1:${directPort(baseRest!)}/rpc/inbox?${q}`,
        pid: baseRest!,
        pgPid: basePg!,
        headers: baseHeaders,
      });
      targets.at(-2)!.against = `baseline: ${label}`;
    }
  }
  for (const [name, env] of Object.entries(VARIANTS)) {
    const copy = await postgrestLike(restPid, env);
    targets.push({
      label: `PostgREST ${name}`,
      url: `${copy.url}/rpc/inbox?${query}`,
      pid: copy.pid,
      pgPid,
      headers,
      socketPath: copy.socketPath,
    });
  }
  for (const t of targets) {
    await load(t.url, t.headers, t.socketPath); // warm-up (every answer checked below)
  }
  type Cpu = { gateway: number; postgrest: number; postgres: number; serving: number };
  const cpu = new Map<string, Cpu[]>(targets.map((t) => [t.label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const sample = () => ({
        gateway: process.cpuUsage(),
        postgrest: cpuMs([t.pid])!,
        postgres: cpuMs([t.pgPid])!,
        serving: servingMs(t.pgPid),
      });
      const before = sample();
      const { total, non2xx } = await load(t.url, t.headers, t.socketPath);
      const after = sample();
      if (non2xx || !total) throw new Error(`${t.label}: ${non2xx} answers not 2xx of ${total + non2xx}`);
      const own = process.cpuUsage(before.gateway);
      cpu.get(t.label)!.push({
        gateway: (own.user + own.system) / 1000 / total,
        postgrest: (after.postgrest - before.postgrest) / total,
        postgres: (after.postgres - before.postgres) / total,
        serving: (after.serving - before.serving) / total,
      });
    }
  }
  const col = (xs: Cpu[], k: keyof Cpu) =>
    `${median(xs.map((x) => x[k])).toFixed(3)} (${range(
      xs.map((x) => x[k]),
      3,
    )})`;
  console.log(
    `\nCPU ms per call, the default inbox view's public.inbox (acme + ${TICKETS} tickets), ${CONNECTIONS} connections, medians of ${ROUNDS} rounds of ${DURATION} s (range); load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  // Database CPU a call (Postgres + PostgREST, as bench:inbox's "db"), this ÷ the baseline's in each round.
  const db = (x: Cpu) => x.postgres + x.postgrest;
  console.table(
    targets.map((t) => {
      const xs = cpu.get(t.label)!;
      const base = t.against ? cpu.get(t.against)! : undefined;
      const ratios = base ? xs.map((x, i) => db(x) / db(base[i]!)) : [];
      return {
        target: t.label,
        'gateway (this process)': col(xs, 'gateway'),
        PostgREST: col(xs, 'postgrest'),
        Postgres: col(xs, 'postgres'),
        "of which PostgREST's backends": col(xs, 'serving'),
        'db (Postgres + PostgREST)': col(
          xs.map((x) => ({ ...x, postgres: db(x) })),
          'postgres',
        ),
        'db ÷ baseline (rounds)': base ? `${median(ratios).toFixed(2)} (${range(ratios)})` : '',
      };
    }),
  );
} finally {
  for (const c of extra) c.kill();
  await baseline?.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** CPU ms of the Postgres backends serving PostgREST (sessions as authenticator) under the postmaster `pgPid`. */
function servingMs(pgPid: number): number {
  let ticks = 0;
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (!readFileSync(`/proc/${e}/cmdline`, 'utf8').startsWith('postgres: authenticator ')) continue;
      // After "pid (comm) ": state ppid … utime (14th field) stime (15th).
      const raw = readFileSync(`/proc/${e}/stat`, 'utf8');
      const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) === pgPid) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* the session ended */
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}
