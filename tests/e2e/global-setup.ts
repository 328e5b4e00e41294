// One local stack and one production build of the app (served by server.ts) for the whole e2e run, on free ports in a
// temp dir; both stop in the returned teardown.
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_ANON_KEY } from '../../supabase/local/keys.ts';
import { buildApp, startAppServer, type AppServer } from '../support/app-server.ts';
import { liftPerIpLimits } from '../support/stack.ts';

export default async function globalSetup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-e2e-'));
  chmodSync(dir, 0o755); // Postgres runs as an unprivileged user
  // E2E_STACK_API_URL + E2E_STACK_MAIL_URL (+ E2E_STACK_ANON_KEY): use a stack that is already running.
  const external = process.env.E2E_STACK_API_URL && process.env.E2E_STACK_MAIL_URL;
  const stack = external
    ? {
        apiUrl: process.env.E2E_STACK_API_URL!,
        mailUrl: process.env.E2E_STACK_MAIL_URL!,
        anonKey: process.env.E2E_STACK_ANON_KEY ?? DEFAULT_ANON_KEY,
        stop: async () => {},
      }
    : await (await import('../../supabase/local/stack.ts')).startStack({
        port: 0,
        dir: path.join(dir, 'data'),
        ephemeral: true,
        log: () => undefined,
        // Auth counts per client IP, and the app's calls all come from 127.0.0.1 unless they forward
        // the user's (Sb-Forwarded-For); a whole run signs in far more than 30 times in 5 minutes.
        configure: liftPerIpLimits,
      });

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

  process.env.E2E_BASE_URL = baseURL;
  process.env.E2E_API_URL = stack.apiUrl;
  process.env.E2E_MAIL_URL = stack.mailUrl;
  process.env.E2E_ANON_KEY = stack.anonKey;
  process.env.E2E_BUILD_DIR = buildDir; // for tests that start a server of their own

  return async () => {
    await app.stop();
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
