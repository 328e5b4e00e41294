// npm run stack -- start | status [--json] | reset   [--port <gateway port>] [--dir <data dir>]
//                  db diff [-f <name>] | gen types   (supabase/schemas/ → migration, generated types)
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MigrationError } from './migrate.ts';
import { runSchemaCommand } from './schema-diff.ts';
import {
  DEFAULT_PORT,
  isBasePort,
  PortInUseError,
  PROJECT_DIR,
  readStatus,
  resetStack,
  StackRunningError,
  startStack,
} from './stack.ts';

const USAGE = `Usage: npm run stack -- <start|status|reset|db diff [-f <name>]|gen types> [--port <gateway port, default ${DEFAULT_PORT}>] [--dir <data dir>] [--json] [--env-file <functions' env file>]`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function explain(err: unknown): string {
  if (err instanceof MigrationError)
    return `Migration failed: ${err.file}${err.line ? ` line ${err.line}` : ''}\n${err.pgMessage}`;
  if (err instanceof PortInUseError || err instanceof StackRunningError) return err.message;
  // Taken between the probe and the listen: the same one-line advice.
  const { code, port } = err as NodeJS.ErrnoException & { port?: number };
  if (code === 'EADDRINUSE' && port) return new PortInUseError(port, 'taken while starting').message;
  return err instanceof Error ? err.message : String(err);
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      dir: { type: 'string' },
      project: { type: 'string' },
      'env-file': { type: 'string' },
      json: { type: 'boolean', default: false },
      file: { type: 'string', short: 'f' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0] ?? 'start';
  if (values.help) return console.log(USAGE);
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !isBasePort(port)) fail(`--port must be a port number, got "${values.port}"`);
  // --project: where supabase/ lives (default: this repository); tests point it at fixtures.
  const projectDir = values.project ? path.resolve(values.project) : PROJECT_DIR;
  const dir = values.dir ? path.resolve(values.dir) : path.join(projectDir, '.supabase-local');

  if (command === 'db' || command === 'gen')
    return console.log(await runSchemaCommand(positionals, { projectDir, file: values.file }));

  if (command === 'status') {
    const s = readStatus(dir);
    if (!s) fail(values.json ? JSON.stringify({ error: 'not running', dir }) : `No stack is running on ${dir}.`);
    const { pid: _pid, processes: _p, ...info } = s;
    return console.log(
      values.json
        ? JSON.stringify(info, null, 2)
        : Object.entries(info)
            .map(([k, v]) => `${k.padEnd(16)} ${v}`)
            .join('\n'),
    );
  }

  if (command === 'reset') {
    const { applied } = await resetStack({ port, dir, projectDir });
    return console.log(`Database reset: ${applied.length} migration(s) applied, seed loaded.`);
  }

  if (command !== 'start') fail(USAGE);
  const t0 = performance.now();
  let stopping = false;
  let starting: Promise<Awaited<ReturnType<typeof startStack>>> | undefined;
  // Installed before start-up so that Ctrl-C during start-up also stops whatever has started.
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n[stack] ${signal}: stopping…`);
    const stack = await starting?.catch(() => undefined);
    await stack?.stop();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal));
  starting = startStack({
    port,
    dir,
    projectDir,
    // As `supabase functions serve --env-file`: relative to where the command runs.
    functionsEnvFile: values['env-file'] ? path.resolve(values['env-file']) : undefined,
    onCrash: (name, message) => {
      console.error(`\n[stack] ${name} could not be brought back; the stack has stopped.\n${message}`);
      process.exit(1);
    },
  });
  const stack = await starting;
  if (stopping) return;
  if (stack.applied.length)
    console.log(`[stack] applied ${stack.applied.length} migration(s): ${stack.applied.join(', ')}`);
  console.log(
    [
      '',
      `Tend local Supabase is ready in ${((performance.now() - t0) / 1000).toFixed(1)} s.`,
      '',
      `  API URL          ${stack.apiUrl}`,
      `  REST             ${stack.apiUrl}/rest/v1`,
      `  Auth             ${stack.apiUrl}/auth/v1`,
      `  DB URL           ${stack.dbUrl}`,
      `  Mail (inbox)     ${stack.mailUrl}`,
      `  Mail (SMTP)      127.0.0.1:${stack.smtpPort}`,
      `  Functions        ${stack.apiUrl}/functions/v1/<name>`,
      `  JWT secret       ${stack.jwtSecret}`,
      `  anon key         ${stack.anonKey}`,
      `  service_role key ${stack.serviceRoleKey}`,
      `  Publishable key  ${stack.publishableKey}`,
      `  Secret key       ${stack.secretKey}`,
      `  Data             ${stack.dir}`,
      '',
      'Press Ctrl-C to stop.',
    ].join('\n'),
  );
}

main().catch((err) => fail(explain(err)));
