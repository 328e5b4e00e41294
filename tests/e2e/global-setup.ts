// One local stack and one production build of the app (served by server.ts) for the whole e2e run, on free ports in a
// temp dir; both stop in the returned teardown.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_ANON_KEY } from '../../supabase/local/keys.ts';
import { freePort } from '../../supabase/local/stack.ts';

const PROJECT_DIR = path.resolve(import.meta.dirname, '..', '..');

async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`app exited with ${child.exitCode} before listening`);
    try {
      const res = await fetch(url, { redirect: 'manual' });
      if (res.status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`app not reachable at ${url} within ${timeoutMs} ms`);
}

export default async function globalSetup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-e2e-'));
  chmodSync(dir, 0o755); // Postgres runs as an unprivileged user
  // E2E_STACK_API_URL + E2E_STACK_MAIL_URL (+ E2E_STACK_ANON_KEY): use a stack that is already running.
  const external = process.env.E2E_STACK_API_URL && process.env.E2E_STACK_MAIL_URL;
  const stack = external
    ? { apiUrl: process.env.E2E_STACK_API_URL!, mailUrl: process.env.E2E_STACK_MAIL_URL!, anonKey: process.env.E2E_STACK_ANON_KEY ?? DEFAULT_ANON_KEY, stop: async () => {} }
    : await (await import('../../supabase/local/stack.ts')).startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });

  // A private build (TEND_BUILD_DIR, see remix.config.js): other builds in this checkout can't swap
  // the assets under the running server. E2E_BUILD_DIR reuses an existing one.
  const buildDir = process.env.E2E_BUILD_DIR ?? path.join(dir, 'app');
  if (!existsSync(path.join(buildDir, 'index.js'))) {
    prepareBuildDir(buildDir);
    // `npm run build`: remix build, then the island bundles (scripts/build.ts).
    const build = spawnSync(process.execPath, ['--import', 'tsx', path.join(PROJECT_DIR, 'scripts', 'build.ts')], {
      cwd: PROJECT_DIR,
      stdio: 'inherit',
      env: { ...process.env, TEND_BUILD_DIR: buildDir },
    });
    if (build.status !== 0) {
      await stack.stop();
      throw new Error('the build failed');
    }
  }

  // The production server (server.ts): a cluster of one worker per core, as `npm start` runs it,
  // so the abuse limits are exercised across workers. A port picked free can be taken before the
  // server listens (supabase/local/stack.ts, onFreePorts); a server that exits first gets another.
  let app: ChildProcess;
  let baseURL: string;
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    baseURL = `http://localhost:${port}`;
    app = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_DIR, 'server.ts'), path.join(buildDir, 'index.js')], {
      cwd: PROJECT_DIR,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        PORT: String(port),
        SUPABASE_URL: stack.apiUrl,
        SUPABASE_ANON_KEY: stack.anonKey,
        // Each test sends its own X-Forwarded-For so per-IP limits don't leak between tests.
        TRUST_PROXY: '1',
      },
      stdio: ['ignore', process.env.E2E_APP_LOG ? 'inherit' : 'ignore', 'inherit'],
    });
    try {
      await waitForHttp(`${baseURL}/login`, app);
      break;
    } catch (error) {
      app.kill('SIGTERM');
      if (app.exitCode !== null && attempt < 3) continue;
      await stack.stop();
      throw error;
    }
  }

  process.env.E2E_BASE_URL = baseURL;
  process.env.E2E_API_URL = stack.apiUrl;
  process.env.E2E_MAIL_URL = stack.mailUrl;
  process.env.E2E_ANON_KEY = stack.anonKey;

  return async () => {
    await new Promise<void>((resolve) => {
      if (app.exitCode !== null) return resolve();
      app.once('exit', () => resolve());
      app.kill('SIGTERM');
      setTimeout(() => app.kill('SIGKILL'), 5_000).unref();
    });
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

/** A private build dir outside the checkout still resolves the project's packages as ESM. */
function prepareBuildDir(buildDir: string) {
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(path.join(buildDir, 'package.json'), '{ "type": "module" }\n');
  if (!existsSync(path.join(buildDir, 'node_modules'))) symlinkSync(path.join(PROJECT_DIR, 'node_modules'), path.join(buildDir, 'node_modules'), 'dir');
}
