// Serving a production build with server.ts, as `npm start` does, for the e2e tests and the
// benchmarks: on a free port, answered once it answers /login. A port picked free can be taken
// before the server listens (supabase/local/stack.ts, onFreePorts): a server that exits before
// listening gets another port, at most 3 times.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, PROJECT_DIR } from '@tend/supabase-local';
import { waitFor } from './wait.ts';

const TEST_SESSION_SECRET = 'tend-test-session-secret-0123456789';

export interface AppServer {
  baseURL: string;
  /** The primary's pid (its workers are its children). */
  pid: number;
  stop(): Promise<void>;
}

export interface AppServerOptions {
  /** Arguments for Node itself (e.g. --cpu-prof, which the workers inherit). */
  nodeArgs?: string[];
  /** The host in baseURL (default localhost). */
  host?: string;
  /** The server's stdout to this process's (stderr always is). */
  log?: boolean;
  /** Another checkout whose server.ts serves the build (a benchmark's baseline); default this one. */
  projectDir?: string;
}

/**
 * `npm run build` (remix build, then the island bundles: scripts/build.ts) into a private build dir
 * (TEND_BUILD_DIR, see remix.config.js), which still resolves the project's packages as ESM.
 */
export function buildApp(buildDir: string, projectDir = PROJECT_DIR) {
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(path.join(buildDir, 'package.json'), '{ "type": "module" }\n');
  if (!existsSync(path.join(buildDir, 'node_modules')))
    symlinkSync(path.join(projectDir, 'node_modules'), path.join(buildDir, 'node_modules'), 'dir');
  const build = spawnSync(process.execPath, ['--import', 'tsx', path.join(projectDir, 'scripts', 'build.ts')], {
    cwd: projectDir,
    stdio: 'inherit',
    env: { ...process.env, TEND_BUILD_DIR: buildDir },
  });
  if (build.status !== 0) throw new Error('the build failed');
}

function waitForHttp(url: string, child: ChildProcess, timeoutMs = 60_000) {
  return waitFor(
    `the app to answer at ${url}`,
    async () => {
      if (child.exitCode !== null) throw new Error(`app exited with ${child.exitCode} before listening`);
      const res = await fetch(url, { redirect: 'manual' }).catch(() => undefined); // not up yet
      return res && res.status < 500;
    },
    timeoutMs,
  );
}

function stopped(app: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (app.exitCode !== null || app.signalCode !== null) return resolve();
    app.once('exit', () => resolve());
    app.kill('SIGTERM');
    setTimeout(() => app.kill('SIGKILL'), 5_000).unref();
  });
}

/** `env` comes on top of this process's environment, with NODE_ENV=production, PORT and a SESSION_SECRET. */
export async function startAppServer(
  buildDir: string,
  env: Record<string, string>,
  opts: AppServerOptions = {},
): Promise<AppServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const baseURL = `http://${opts.host ?? 'localhost'}:${port}`;
    const app = spawn(
      process.execPath,
      [
        ...(opts.nodeArgs ?? []),
        '--import',
        'tsx',
        path.join(opts.projectDir ?? PROJECT_DIR, 'server.ts'),
        path.join(buildDir, 'index.js'),
      ],
      {
        cwd: opts.projectDir ?? PROJECT_DIR,
        // A production server refuses to start without its own SESSION_SECRET.
        env: {
          ...process.env,
          NODE_ENV: 'production',
          PORT: String(port),
          SESSION_SECRET: TEST_SESSION_SECRET,
          ...env,
        },
        stdio: ['ignore', opts.log ? 'inherit' : 'ignore', 'inherit'],
      },
    );
    try {
      await waitForHttp(`${baseURL}/login`, app);
      return { baseURL, pid: app.pid!, stop: () => stopped(app) };
    } catch (error) {
      const exitedFirst = app.exitCode !== null; // e.g. its port was taken; not one that never answered
      await stopped(app);
      if (exitedFirst && attempt < 3) continue;
      throw error;
    }
  }
}
