// npm run dev: the local stack (gateway :54321, mail :54324), `remix dev` (classic compiler) on
// http://localhost:3000, and the island bundles rebuilt on change (scripts/build-islands.ts),
// wired together. Ctrl-C stops all.
//   npm run dev -- [--stack-port <gateway port; db, mail follow>] [--dir <data dir>]   (PORT: the app's)
import './node-check.mjs';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PORT, isBasePort, PROJECT_DIR, startStack } from '../supabase/local/stack.ts';
import { watchIslands } from './build-islands.ts';

const { values: args } = parseArgs({ options: { 'stack-port': { type: 'string' }, dir: { type: 'string' } } });
const stackPort = Number(args['stack-port'] ?? DEFAULT_PORT);
if (!isBasePort(stackPort)) {
  console.error(`--stack-port must be a port number, got "${args['stack-port']}"`);
  process.exit(1);
}
const dir = args.dir ? path.resolve(args.dir) : path.join(PROJECT_DIR, '.supabase-local');
if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
chmodSync(dir, 0o755); // Postgres runs as an unprivileged user

const dim = (s: string) => `\x1b[2m${s}\x1b[0m`;
const bold = (s: string) => `\x1b[1m${s}\x1b[0m`;

// The mail catcher prints one line per email with its code; show those, the rest only with DEBUG.
function log(line: string) {
  if (line.startsWith('[mail]')) console.log(bold(line));
  else if (process.env.DEBUG) console.log(dim(`[stack] ${line}`));
}

const stack = await startStack({ dir, log, port: stackPort });
// Island pages (docs/decisions/006-javascript-budget.md) load these instead of Remix's runtime.
const islands = await watchIslands();
const appPort = Number(process.env.PORT ?? 3000);

const remix = spawn(
  path.join(PROJECT_DIR, 'node_modules', '.bin', 'remix'),
  // server.ts in development mode (one process, reloads each build): the same Host check, refusals and
  // error answers as `npm start`, where remix-serve would answer stack traces (docs/decisions/019-allowed-hosts.md).
  ['dev', '--manual', '-c', 'node --import tsx server.ts ./build/index.js'],
  {
    cwd: PROJECT_DIR,
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(appPort),
      // server.ts listens on every interface unless told; a dev server stays on this machine.
      HOST: process.env.HOST || '127.0.0.1',
      SUPABASE_URL: stack.apiUrl,
      SUPABASE_ANON_KEY: stack.anonKey,
      PATH: `${path.join(PROJECT_DIR, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
    },
  },
);

console.log(`
${bold('Tend is starting')}
  App        http://localhost:${appPort}
  API        ${stack.apiUrl}
  Mail inbox ${stack.mailUrl}  (GET ${stack.mailUrl}/api/v1/search?query=to:<address>)
  Database   ${stack.dbUrl}
Sign-in codes are printed in this terminal as they are sent. Ctrl-C stops everything.
`);

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  if (remix.exitCode === null) {
    await new Promise<void>((resolve) => {
      remix.once('exit', () => resolve());
      remix.kill('SIGTERM');
      setTimeout(() => remix.kill('SIGKILL'), 5_000).unref();
    });
  }
  await islands.dispose();
  await stack.stop();
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
remix.on('exit', (code) => void stop(code ?? 0));
