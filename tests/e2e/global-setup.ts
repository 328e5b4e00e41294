// One local stack and one production build of the app (served by server.ts) for the whole e2e run, on free ports in a
// temp dir; both stop in the returned teardown.
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_ANON_KEY, DEFAULT_SERVICE_ROLE_KEY, type RealtimeService, SUPERUSER } from '@tend/supabase-local';
import { buildApp, startAppServer, type AppServer } from '../../scripts/lib/app-server.ts';
import { liftPerIpLimits } from '../support/stack.ts';
import { superuserSql } from './fixtures.ts';

/** The scheduler's jobs the specs wait for (snooze.spec.ts, spam-trash.spec.ts), and how often they run here. */
const E2E_FAST_JOBS = ['wake-snoozed', 'purge-trash'];
const E2E_CRON_SCHEDULE = '2 seconds';

export default async function globalSetup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-e2e-'));
  chmodSync(dir, 0o755); // Postgres runs as an unprivileged user
  // E2E_STACK_API_URL + E2E_STACK_MAIL_URL (+ E2E_STACK_ANON_KEY, E2E_STACK_DB_URL): use a stack that is already running.
  const external = process.env.E2E_STACK_API_URL && process.env.E2E_STACK_MAIL_URL;
  // The functions' secrets (as supabase/functions/.env): the inbound webhook's, then the app's URL
  // for the links in emails once the app has its port (a changed env file reloads the functions).
  const functionsEnvFile = path.join(dir, 'functions.env');
  const inboundSecret = process.env.E2E_INBOUND_EMAIL_SECRET ?? randomUUID();
  writeFileSync(functionsEnvFile, `INBOUND_EMAIL_SECRET=${inboundSecret}\n`);
  const stack = external
    ? {
        apiUrl: process.env.E2E_STACK_API_URL!,
        mailUrl: process.env.E2E_STACK_MAIL_URL!,
        anonKey: process.env.E2E_STACK_ANON_KEY ?? DEFAULT_ANON_KEY,
        serviceRoleKey: process.env.E2E_STACK_SERVICE_ROLE_KEY ?? DEFAULT_SERVICE_ROLE_KEY,
        dbUrl: process.env.E2E_STACK_DB_URL,
        realtime: undefined,
        stop: async () => {},
      }
    : await (await import('@tend/supabase-local')).startStack({
        port: 0,
        dir: path.join(dir, 'data'),
        ephemeral: true,
        log: () => undefined,
        // Auth counts per client IP: the app forwards the user's only on its sign-in calls
        // (Sb-Forwarded-For); its token refreshes and the tests' own calls all come from 127.0.0.1.
        configure: liftPerIpLimits,
        functionsEnvFile,
      });

  // Test setup only: moving a sent code's time back instead of waiting out a cooldown (sign-in-limits.spec.ts).
  if (stack.dbUrl) process.env.E2E_DB_URL = stack.dbUrl.replace('//postgres:', `//${SUPERUSER}:`);
  // The every-minute jobs that specs wait for run every few seconds in this run's own stack (an
  // external stack keeps its schedule, the specs' timeouts allow a minute): pg_cron still runs them
  // (tests/integration/db-snooze.test.ts and db-spam-trash-split.test.ts pin the schedule itself).
  if (!external && stack.dbUrl) {
    try {
      await superuserSql(
        `select cron.alter_job(jobid, schedule := '${E2E_CRON_SCHEDULE}') from cron.job where jobname = any($1)`,
        [E2E_FAST_JOBS],
      );
    } catch (error) {
      await stack.stop();
      throw error;
    }
  }

  // A private build (TEND_BUILD_DIR, see remix.config.js): other builds in this checkout can't swap
  // the assets under the running server. E2E_BUILD_DIR reuses an existing one.
  const buildDir = process.env.E2E_BUILD_DIR ?? path.join(dir, 'app');
  if (!existsSync(path.join(buildDir, 'index.js'))) {
    try {
      buildApp(buildDir);
    } catch (error) {
      await stack.stop();
      throw error;
    }
  }

  // The production server (server.ts): a cluster of one worker per core, as `npm start` runs it,
  // so the abuse limits are exercised across workers.
  let app: AppServer;
  try {
    app = await startAppServer(
      buildDir,
      {
        SUPABASE_URL: stack.apiUrl,
        SUPABASE_ANON_KEY: stack.anonKey,
        // Each test sends its own X-Forwarded-For so per-IP limits don't leak between tests.
        TRUST_PROXY: '1',
      },
      { log: !!process.env.E2E_APP_LOG },
    );
  } catch (error) {
    await stack.stop();
    throw error;
  }
  const baseURL = app.baseURL;
  writeFileSync(functionsEnvFile, `INBOUND_EMAIL_SECRET=${inboundSecret}\nAPP_URL=${baseURL}\n`);
  process.env.E2E_INBOUND_EMAIL_SECRET = inboundSecret;
  const control = await controlServer(stack.realtime);

  process.env.E2E_BASE_URL = baseURL;
  process.env.E2E_API_URL = stack.apiUrl;
  process.env.E2E_MAIL_URL = stack.mailUrl;
  process.env.E2E_ANON_KEY = stack.anonKey;
  // Test setup only (live.spec.ts adds a member to a workspace it made); never given to the app.
  process.env.E2E_SERVICE_ROLE_KEY = stack.serviceRoleKey;
  process.env.E2E_STACK_CONTROL_URL = control.url;
  process.env.E2E_BUILD_DIR = buildDir; // for tests that start a server of their own

  return async () => {
    await control.close();
    await app.stop();
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

/**
 * The stack runs in this process, the tests in workers: a loopback endpoint lets a test stop and
 * start the realtime service (POST /realtime/stop, /realtime/start; 404 with an external stack).
 */
async function controlServer(realtime: RealtimeService | undefined) {
  const server = http.createServer((req, res) => {
    const action = /^\/realtime\/(stop|start)$/.exec(req.url ?? '')?.[1] as 'stop' | 'start' | undefined;
    if (req.method !== 'POST' || !action || !realtime) {
      res.writeHead(404).end();
      return;
    }
    realtime[action]().then(
      () => res.writeHead(204).end(),
      (error: Error) => res.writeHead(500).end(error.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
