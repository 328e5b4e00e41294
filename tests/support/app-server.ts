// Starts the production server (server.ts) on a build, on a free port, and waits until it answers.
// A port picked free can be taken before the server listens (supabase/local/stack.ts, onFreePorts):
// a server that exits before listening gets another port, at most 3 times.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../supabase/local/stack.ts';

const PROJECT_DIR = path.resolve(import.meta.dirname, '..', '..');

export interface AppServer {
  baseURL: string;
  stop(): Promise<void>;
}

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

function stopped(app: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (app.exitCode !== null || app.signalCode !== null) return resolve();
    app.once('exit', () => resolve());
    app.kill('SIGTERM');
    setTimeout(() => app.kill('SIGKILL'), 5_000).unref();
  });
}

/** `env` comes on top of this process's environment, with NODE_ENV=production and PORT. */
export async function startAppServer(buildDir: string, env: Record<string, string>): Promise<AppServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const baseURL = `http://localhost:${port}`;
    const app = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_DIR, 'server.ts'), path.join(buildDir, 'index.js')], {
      cwd: PROJECT_DIR,
      env: { ...process.env, NODE_ENV: 'production', PORT: String(port), ...env },
      stdio: ['ignore', process.env.E2E_APP_LOG ? 'inherit' : 'ignore', 'inherit'],
    });
    try {
      await waitForHttp(`${baseURL}/login`, app);
      return { baseURL, stop: () => stopped(app) };
    } catch (error) {
      await stopped(app);
      if (app.exitCode !== null && attempt < 3) continue;
      throw error;
    }
  }
}
