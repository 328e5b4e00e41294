// The Docker-free local Supabase: Postgres, PostgREST, auth, mail, storage, realtime, functions
// and net/cron behind one gateway (docs/local-stack.md). `startStack` is what the CLI and the tests call.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createPool } from './connections.ts';
import { loadConfig, type ProjectConfig } from './config.ts';
import { apiKeysFrom, loadSigningKeys, verificationJwks } from './signing-keys.ts';
import { createAuthService } from './auth/index.ts';
import { createRealtimeService, type RealtimeService } from './realtime/index.ts';
import { createFunctionsService } from './functions/index.ts';
import { startMail } from './mail/index.ts';
import { copyStorage, createStorageService, resetStorage } from './storage/index.ts';
import { installExtensions, startNetCron } from './netcron/index.ts';
import { provideExtensions } from './extensions.ts';
import { startGateway, proxyService, type Gateway } from './gateway/index.ts';
import { defaultKeys, type StackKeys } from './keys.ts';
import { bootstrap, migrate, recreateDatabase, seed, seedVault } from './migrate.ts';
import { PASSWORD, SUPERUSER, startPostgres, withClient, type RunningPostgres } from './postgres.ts';
import { startPostgrest } from './postgrest.ts';
import { terminate } from './process.ts';
import { readStatus, statusFile, type StatusFile } from './status-file.ts';
import { DEFAULT_PORT, PROJECT_DIR } from './defaults.ts';
import { supervise, type Running } from './supervisor.ts';
import { trustFromEnv, type TrustOptions } from './trust.ts';
import type { Mailer, StackContext } from './service.ts';

export { readStatus, type StatusFile };

export { DEFAULT_PORT, isBasePort, PROJECT_DIR } from './defaults.ts';

export interface StackOptions {
  /** Gateway port; db = port + 1, mail = port + 3, SMTP = port + 4 (as `supabase start`). 0 picks free ports. */
  port?: number;
  /** Data dir (default <projectDir>/.supabase-local). */
  dir?: string;
  /** Where supabase/ (config.toml, migrations, seed.sql, templates) lives. */
  projectDir?: string;
  keys?: Partial<StackKeys>;
  /** Faster, non-durable Postgres settings for throwaway dirs (tests, benchmarks). */
  ephemeral?: boolean;
  /** Wipe the database and re-apply migrations and the seed before serving. */
  reset?: boolean;
  /**
   * The data dir of a stopped stack of the same project: a new data dir's database and stored files
   * start as a copy of that one's, migrated and seeded, instead of initdb, every migration and the
   * seed (tests start one stack per file from one template per run, docs/decisions/033-test-database-template.md).
   */
  template?: string;
  /** Override parts of config.toml (tests use short expiries). */
  configure?: (config: ProjectConfig) => void;
  log?: (line: string) => void;
  /** Functions' env file, as `supabase functions serve --env-file` (default supabase/functions/.env). */
  functionsEnvFile?: string;
  /** Defaults for the functions' secrets, which the env file overrides (`npm run dev` sets APP_URL). */
  functionsEnv?: Record<string, string>;
  /** Host names, proxies and IP forwarding the services trust (default: from the environment, trust.ts). */
  trust?: Partial<TrustOptions>;
  /** `functions serve --no-verify-jwt`: no function checks the JWT, whatever config.toml says. */
  noVerifyJwt?: boolean;
  /** Called when a crashed child can't be restarted (supervisor.ts); the stack has already stopped itself. */
  onCrash?: (name: string, message: string) => void;
  /** Phases spent before startStack was called (the CLI's Node and module loading), listed first in `timings`. */
  timings?: StartTimings;
}

/** Milliseconds each phase of a start took, in the order they ran (bench:stack prints them). */
export type StartTimings = Record<string, number>;

export interface StackInfo {
  apiUrl: string;
  dbUrl: string;
  mailUrl: string;
  /** The mail catcher's SMTP port (the CLI's inbucket smtp_port, 54325). */
  smtpPort: number;
  anonKey: string;
  serviceRoleKey: string;
  jwtSecret: string;
}

export interface Stack extends StackInfo {
  publishableKey: string;
  secretKey: string;
  dir: string;
  /** Applied migration files during this start. */
  applied: string[];
  /** True when this start created the database. */
  created: boolean;
  /** The realtime service, when config.toml enables it (tests stop and start it). */
  realtime?: RealtimeService;
  /** Where this start spent its time (also in stack.json). */
  timings: StartTimings;
  /** The child processes the stack owns (for status and for tests that check nothing is left). */
  processes(): { name: string; pid: number }[];
  stop(): Promise<void>;
}

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly what: string,
  ) {
    super(
      `Port ${port} (${what}) is already in use. Start on other ports with --port <n> (the gateway port; db, mail follow).`,
    );
  }
}

export class StackRunningError extends Error {}

async function assertFree(port: number, what: string) {
  await new Promise<void>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new PortInUseError(port, what) : e));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve()));
  });
}

/**
 * The lowest port the kernel gives outgoing connections (Linux: ip_local_port_range). Ports picked
 * below it can't be taken by some other connection between our probe and the server's listen; a
 * port from listen(0) can, since both come from that range (seen as EADDRINUSE in CI).
 */
export function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (low > 0) return low;
  } catch {
    /* not Linux: macOS and Windows start at 49152 */
  }
  return 32768;
}

const PICK_FROM = 20000;

/** A random port below the ephemeral range whose port + each offset is free on 127.0.0.1. */
async function pickFree(offsets: number[]): Promise<number> {
  const span = Math.max(...offsets) + 1;
  const below = ephemeralLow() - span;
  for (let i = 0; i < 50; i++) {
    const base =
      below - PICK_FROM > 1000 ? PICK_FROM + Math.floor(Math.random() * (below - PICK_FROM)) : await kernelPort();
    if (base + span > 65536) continue;
    try {
      for (const offset of offsets) await assertFree(base + offset, 'probe');
      return base;
    } catch {
      /* try another */
    }
  }
  throw new Error('could not find free ports');
}

/** What listen(0) gets: a port from the ephemeral range; the fallback where that range is all there is. */
function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export const freePort = (): Promise<number> => pickFree([0]);

/** A base port whose gateway, db, mail and SMTP ports (+0, +1, +3, +4) are all free. */
export const freeBasePort = (): Promise<number> => pickFree([0, 1, 3, 4]);

/** What the database needs to call this stack's functions (net.http_post from triggers and cron jobs). */
const vaultSecrets = (apiUrl: string, keys: StackKeys) => ({
  project_url: apiUrl,
  service_role_key: keys.serviceRoleKey,
});

const pick = ({ publishableKey, secretKey }: StackKeys) => ({ publishableKey, secretKey });

/**
 * A stack killed with SIGKILL leaves its children running (they have their own process group).
 * Stop the ones its status file names, if they are still those programs.
 */
async function reapOrphans(dir: string) {
  let recorded: { name: string; pid: number }[] = [];
  try {
    recorded = JSON.parse(readFileSync(statusFile(dir), 'utf8')).processes ?? [];
  } catch {
    return;
  }
  for (const { name, pid } of recorded) {
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes(name)) continue;
    await terminate(pid, name === 'postgres' ? 'SIGINT' : 'SIGTERM');
  }
  rmSync(statusFile(dir), { force: true });
}

/**
 * Runs `start` again (at most 3 times) while it fails because a port it picked is taken: another
 * process (a parallel test, say) can listen on it between our probe and our listen.
 */
async function onFreePorts<T>(start: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(attempt);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) throw err;
    }
  }
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  // What earlier attempts did to the database, reported as if one start did it all.
  const done = { created: false, applied: [] as string[] };
  if (options.port !== 0) return startOnce(options, done);
  // Only Node's own listens (gateway, mail) fail this way, after the database is set up and seeded.
  return onFreePorts((attempt) => startOnce(attempt === 1 ? options : { ...options, reset: false }, done));
}

async function startOnce(options: StackOptions, done: { created: boolean; applied: string[] }): Promise<Stack> {
  const projectDir = options.projectDir ?? PROJECT_DIR;
  const dir = path.resolve(options.dir ?? path.join(projectDir, '.supabase-local'));
  const log = options.log ?? ((line: string) => console.log(line));
  const timings: StartTimings = { ...options.timings };
  let lapStart = performance.now();
  /** Ends the phase running since the last lap. */
  const lap = (phase: string) => {
    const now = performance.now();
    timings[phase] = Math.round(now - lapStart);
    lapStart = now;
  };
  const trust: TrustOptions = { ...trustFromEnv(), ...options.trust };
  const config = loadConfig(projectDir);
  options.configure?.(config);
  // A key the stack doesn't honour is said once at start, never dropped silently (config-keys.ts).
  for (const w of config.warnings) log(`[config] ${w}`);
  const ownKeys = Boolean(config.auth.signingKeysPath);
  const signingKeys = loadSigningKeys(projectDir, config.auth.signingKeysPath);
  const keys: StackKeys = { ...defaultKeys, ...(ownKeys && (await apiKeysFrom(signingKeys))), ...options.keys };

  mkdirSync(dir, { recursive: true });
  const running = readStatus(dir);
  if (running && running.pid !== process.pid)
    throw new StackRunningError(`A stack is already running on ${dir} (pid ${running.pid}, ${running.apiUrl}).`);
  await reapOrphans(dir);

  const port = options.port === 0 ? await freeBasePort() : (options.port ?? DEFAULT_PORT);
  const ports = { gateway: port, db: port + 1, mail: port + 3, smtp: port + 4 };
  await assertFree(ports.gateway, 'gateway');
  await assertFree(ports.db, 'database');
  await assertFree(ports.mail, 'mail');
  await assertFree(ports.smtp, 'SMTP');
  lap('config');

  const stoppers: (() => Promise<void>)[] = [];
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    for (const s of stoppers.reverse()) await s().catch((e) => log(`[stack] stop: ${e}`));
    rmSync(statusFile(dir), { force: true });
  };
  /** A crashed child is restarted (supervisor.ts); only one that can't come back stops the stack. */
  const keepRunning = <T extends Running>(
    name: string,
    first: T,
    restart: () => Promise<T>,
    onRestart?: (t: T) => void,
  ) => {
    const supervised = supervise({
      name,
      first,
      restart,
      onRestart: (t) => {
        onRestart?.(t);
        writeStatus();
      },
      log,
      onGiveUp: async (message) => {
        await stop();
        (options.onCrash ?? ((_n, m) => log(`[stack] ${m}`)))(name, message);
      },
    });
    stoppers.push(supervised.stop);
    return supervised;
  };
  let writeStatus = () => {};

  try {
    const postgresOptions = {
      dataDir: dir,
      port: ports.db,
      ephemeral: options.ephemeral,
      template: options.template,
      log,
    };
    const db: RunningPostgres = await startPostgres(postgresOptions);
    lap('postgres');
    // Restarted on the same data dir and port: the cluster recovers from its WAL; nothing is re-initialised.
    const postgres = keepRunning('postgres', db, () => startPostgres(postgresOptions));
    const superuserUrl = db.url();
    const postgresUrl = db.url('postgres', PASSWORD);

    /**
     * Starts a step beside the ones that follow (they wait on the database or on a child, seldom on
     * this process): its own time is recorded as `<name> (alongside)`, and the start waits for all
     * such steps before it says ready. `stopIt` is called at stop, even if the step is still starting.
     */
    const alongside = <T>(name: string, step: () => Promise<T>, stopIt?: (t: T) => Promise<void>) => {
      const t0 = performance.now();
      const started = step().then((t) => {
        timings[`${name} (alongside)`] = Math.round(performance.now() - t0);
        return t;
      });
      started.catch(() => undefined); // awaited below; a failure before then stops the stack
      if (stopIt) stoppers.push(() => started.then(stopIt, () => undefined));
      return started;
    };

    // PostgREST loads its schema cache, the longest step of a warm start. On a data dir that was there
    // already it starts now, while the setup SQL below finds nothing new (if it finds something, it
    // starts again after it, on the schema as it then is); on a new one, once the schema is made.
    const restOptions = {
      dbUrl: db.url('authenticator', PASSWORD),
      port: 0,
      adminPort: 0,
      jwtSecret: keys.jwtSecret,
      jwks: JSON.stringify(verificationJwks(signingKeys, keys.jwtSecret, ownKeys)),
      config,
      dataDir: dir,
    };
    const startRest = () =>
      alongside(
        'postgrest',
        () =>
          onFreePorts(async () =>
            startPostgrest(Object.assign(restOptions, { port: await freePort(), adminPort: await freePort() })),
          ),
        (r) => r.stop(),
      );
    let restStarting = db.created || options.reset ? undefined : startRest();

    if (options.reset && !db.created) await recreateDatabase(superuserUrl);
    await installExtensions(superuserUrl); // pg_net, pg_cron: before bootstrap and migrations create them
    await provideExtensions(superuserUrl); // hosted's contrib extensions, creatable by postgres
    lap('extensions');
    const bootstrapped = await bootstrap(superuserUrl);
    lap('bootstrap');
    const { applied } = await migrate(postgresUrl, projectDir); // on a template's copy, only newer ones
    lap('migrations');
    // A template's copy comes seeded, and with the stored files its storage.objects rows name.
    const seeded = db.created && options.template !== undefined;
    if (seeded) await copyStorage(path.resolve(options.template!), dir);
    if ((db.created || options.reset) && !seeded) await seed(postgresUrl, projectDir);
    done.created ||= db.created;
    done.applied.push(...applied);
    lap('seed');
    if (restStarting && (bootstrapped || applied.length)) {
      await restStarting.then(
        (r) => r.stop(),
        () => undefined,
      );
      restStarting = undefined;
    }
    restStarting ??= startRest();

    const gateway: Gateway = await startGateway({ port: ports.gateway, keys, signingKeys, trust });
    stoppers.push(gateway.stop);
    const apiUrl = `http://127.0.0.1:${gateway.port}`;
    lap('gateway');
    const vaultSeeding = alongside('vault', () => seedVault(superuserUrl, vaultSecrets(apiUrl, keys)));

    const pool = createPool({ connectionString: superuserUrl, max: 10 });
    stoppers.push(() => pool.end());
    const netCronStarting = alongside(
      'netcron',
      () => startNetCron({ superuserUrl, pool, log: (s, m) => log(`[${s}] ${m}`) }),
      (n) => n.stop(),
    );

    const mail = await startMail({
      port: ports.mail,
      smtpPort: ports.smtp,
      dir,
      log,
      allowedHosts: trust.allowedHosts,
    });
    stoppers.push(mail.stop);
    lap('mail');
    const mailUrl = mail.url;
    const mailer: Mailer = mail.mailer;
    const ctx: StackContext = {
      projectDir,
      dataDir: dir,
      apiUrl,
      dbUrl: postgresUrl,
      mailUrl,
      smtpPort: mail.smtpPort!,
      keys,
      trust,
      signingKeys,
      config,
      pool,
      mailer,
      dbUrlFor: (role) => db.url(role, PASSWORD),
      onStop: (fn) => stoppers.push(fn),
      log: (s, m) => log(`[${s}] ${m}`),
    };

    // services: each mounts itself on the gateway under /<name>/v1.
    gateway.mount(createAuthService(ctx));
    lap('auth');
    const storageStarting = alongside('storage', async () => {
      if (options.reset && !db.created) await resetStorage(dir);
      return createStorageService(ctx);
    });
    const realtime = config.realtime.enabled ? createRealtimeService(ctx) : undefined;
    if (realtime) {
      await realtime.start();
      stoppers.push(realtime.stop);
      gateway.mount(realtime);
    }
    const functions = config.edgeRuntime.enabled
      ? createFunctionsService(ctx, {
          envFile: options.functionsEnvFile,
          env: options.functionsEnv,
          noVerifyJwt: options.noVerifyJwt,
        })
      : undefined;
    if (functions) gateway.mount(functions);
    lap('realtime, functions');

    const [rest, storage] = await Promise.all([restStarting, storageStarting, vaultSeeding, netCronStarting]);
    lap('waiting for those alongside');
    gateway.mount(storage);
    gateway.mount(proxyService('rest', rest.url));
    // Again on its ports; on others if they were taken meanwhile (the gateway follows).
    const postgrest = keepRunning(
      'postgrest',
      rest,
      () =>
        startPostgrest(restOptions).catch(async (err) => {
          if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
          return startPostgrest(Object.assign(restOptions, { port: await freePort(), adminPort: await freePort() }));
        }),
      (r) => gateway.mount(proxyService('rest', r.url)),
    );

    const info: StackInfo = {
      apiUrl,
      dbUrl: postgresUrl,
      mailUrl,
      smtpPort: mail.smtpPort!,
      anonKey: keys.anonKey,
      serviceRoleKey: keys.serviceRoleKey,
      jwtSecret: keys.jwtSecret,
    };
    const processes = () => [
      ...[postgres.current().child, postgrest.current().child]
        .filter((c) => c.child.pid && c.child.exitCode === null)
        .map((c) => ({ name: c.name, pid: c.child.pid! })),
      ...(functions?.processes() ?? []),
    ];
    writeStatus = () => {
      const status: StatusFile = { ...info, ...pick(keys), pid: process.pid, processes: processes(), timings };
      writeFileSync(statusFile(dir), JSON.stringify(status, null, 2));
    };
    writeStatus();
    return {
      ...info,
      publishableKey: keys.publishableKey,
      secretKey: keys.secretKey,
      dir,
      applied: done.applied,
      created: done.created,
      timings,
      realtime,
      processes,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * `npm run stack -- reset`: recreate the database, then bootstrap, migrations and the seed. On a
 * running stack it works in place (as `supabase db reset`); otherwise it starts, resets and stops.
 */
export async function resetStack(options: StackOptions = {}): Promise<{ applied: string[] }> {
  const projectDir = options.projectDir ?? PROJECT_DIR;
  const dir = path.resolve(options.dir ?? path.join(projectDir, '.supabase-local'));
  const running = readStatus(dir);
  if (!running) {
    const stack = await startStack({ ...options, reset: true });
    await stack.stop();
    return { applied: stack.applied };
  }
  const postgresUrl = running.dbUrl;
  const superuserUrl = postgresUrl.replace(/\/\/postgres:/, `//${SUPERUSER}:`);
  await recreateDatabase(superuserUrl);
  await bootstrap(superuserUrl);
  const { applied } = await migrate(postgresUrl, projectDir);
  await seed(postgresUrl, projectDir);
  const keys = { ...defaultKeys, anonKey: running.anonKey, serviceRoleKey: running.serviceRoleKey };
  await seedVault(superuserUrl, vaultSecrets(running.apiUrl, keys));
  await resetStorage(dir, { dbUrl: postgresUrl, config: loadConfig(projectDir) });
  await withClient(superuserUrl, (c) => c.query(`notify pgrst, 'reload schema'`));
  return { applied };
}
