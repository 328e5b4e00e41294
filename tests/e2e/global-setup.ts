// One local stack and one production build of the app for the whole e2e run, on free ports in a
// temp dir; both stop in the returned teardown.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, PROJECT_DIR, startStack } from '../../supabase/local/stack.ts';

const bin = (name: string) => path.join(PROJECT_DIR, 'node_modules', '.bin', name);

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
  const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });

  if (!process.env.E2E_SKIP_BUILD || !existsSync(path.join(PROJECT_DIR, 'build', 'index.js'))) {
    const build = spawnSync(bin('remix'), ['build'], { cwd: PROJECT_DIR, stdio: 'inherit' });
    if (build.status !== 0) {
      await stack.stop();
      throw new Error('remix build failed');
    }
  }

  const port = await freePort();
  const baseURL = `http://localhost:${port}`;
  const app = spawn(bin('remix-serve'), ['./build/index.js'], {
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
  } catch (error) {
    app.kill('SIGTERM');
    await stack.stop();
    throw error;
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
