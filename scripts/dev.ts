// npm run dev: the local stack (gateway :54321, mail :54324), `remix dev` (classic compiler) on
// http://localhost:3000, and the island bundles rebuilt on change (scripts/build-islands.ts),
// wired together. Ctrl-C stops all.
//   npm run dev -- [--stack-port <gateway port; db, mail follow>] [--dir <data dir>]   (PORT: the app's)
import './node-check.mjs';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PORT, isBasePort, PROJECT_DIR, startStack } from '@tend/supabase-local';
import { watchIslands } from './build-islands.ts';
import { bold, devLine } from './dev-log.ts';

const { values: args } = parseArgs({ options: { 'stack-port': { type: 'string' }, dir: { type: 'string' } } });
const stackPort = Number(args['stack-port'] ?? DEFAULT_PORT);
if (!isBasePort(stackPort)) {
  console.error(`--stack-port must be a port number, got "${args['stack-port']}"`);
  process.exit(1);
}
const dir = args.dir ? path.resolve(args.dir) : path.join(PROJECT_DIR, '.supabase-local');
if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
chmodSync(dir, 0o755); // Postgres runs as an unprivileged user

function log(line: string) {
  const shown = devLine(line);
  if (shown !== null) console.log(shown);
}

const appPort = Number(process.env.PORT ?? 3000);
// The app's public origin, as its sign-in links name it: the functions' links (replies, invitations) too.
const appOrigin = (process.env.APP_ORIGIN || `http://localhost:${appPort}`).replace(/\/+$/, '');

const stack = await startStack({
  dir,
  log,
  port: stackPort,
  functionsEnv: { APP_URL: appOrigin },
  onCrash: (name, message) => {
    console.error(bold(`[stack] ${name} could not be brought back; stopping. ${message}`));
    void stop(1);
  },
});
// Island pages (docs/decisions/006-javascript-budget.md) load these instead of Remix's runtime.
const islands = await watchIslands();

// Its own process group, so that Ctrl-C (SIGINT to the terminal's foreground group) reaches only
// this script, which then stops the whole group: an app server that answers SIGINT by closing
// gracefully may stay alive (remix-serve did, watching the build, issue 13), and remix dev exits
// without waiting for it.
const remix = spawn(
  path.join(PROJECT_DIR, 'node_modules', '.bin', 'remix'),
  // server.ts in development mode (one process, reloads each build): the same Host check, refusals and
  // error answers as `npm start`, where remix-serve would answer stack traces (docs/decisions/021-allowed-hosts.md).
  ['dev', '--manual', '-c', 'node --import tsx server.ts ./build/index.js'],
  {
    cwd: PROJECT_DIR,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(appPort),
      // server.ts listens on every interface unless told; a dev server stays on this machine.
      HOST: process.env.HOST || '127.0.0.1',
      // Remix's own dev server (live reload, port 3001) has no host option: loopback by preload.
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require "${path.join(PROJECT_DIR, 'scripts', 'loopback-listen.cjs')}"`,
      SUPABASE_URL: stack.apiUrl,
      SUPABASE_ANON_KEY: stack.anonKey,
      // The app's sign-in calls forward the user's IP with it (Sb-Forwarded-For).
      SUPABASE_SECRET_KEY: stack.secretKey,
      PATH: `${path.join(PROJECT_DIR, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
    },
  },
);

/** Signals remix dev and everything it started (the app server); gone already is fine. */
function signalRemix(signal: NodeJS.Signals) {
  try {
    process.kill(-remix.pid!, signal);
  } catch {
    /* the group is empty */
  }
}
// If this script dies some other way, remix's group must not outlive it.
process.on('exit', () => signalRemix('SIGKILL'));

console.log(`
${bold('Tend is starting')}
  App        ${appOrigin}
  API        ${stack.apiUrl}
  Mail inbox ${stack.mailUrl}  (GET ${stack.mailUrl}/api/v1/search?query=to:<address>)
  Database   ${stack.dbUrl}
Sign-in codes are printed in this terminal as they are sent. Ctrl-C stops everything.
`);

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  if (remix.exitCode === null && remix.signalCode === null) {
    const exited = new Promise<void>((resolve) => remix.once('exit', () => resolve()));
    signalRemix('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  }
  signalRemix('SIGKILL'); // whatever of the group is left: nothing in dev needs a clean exit
  await islands.dispose();
  await stack.stop();
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
process.on('SIGHUP', () => void stop(0));
remix.on('exit', (code) => void stop(code ?? 0));
