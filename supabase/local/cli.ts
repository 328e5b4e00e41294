// The local stack's command line, named as the Supabase CLI names its commands so habits carry over:
//   npm run stack -- [--workdir <project>] start | stop | status [-o env|json] | db reset | db dump
//                    | db diff | migration new|list|up | test db | functions new|serve | gen types
// --workdir (or --project) is the folder holding supabase/ (default: this repository); as the CLI
// works inside it, relative paths given to commands are taken from there. The data lives in
// <workdir>/.supabase-local unless --dir says otherwise.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { dumpDatabase } from './commands/dump.ts';
import { followFunctionLogs, FunctionNameError, functionSlugs, newFunction } from './commands/functions.ts';
import {
  appliedVersions,
  localVersions,
  MigrationHistoryError,
  migrationTable,
  migrationUp,
  newMigration,
} from './commands/migration.ts';
import { OverrideNameError, parseOverrides, statusValues, toDotenv } from './commands/status.ts';
import { stopStack } from './commands/stop.ts';
import { testDb } from './commands/test-db.ts';
import { MigrationError } from './migrate.ts';
import { SUPERUSER } from './postgres.ts';
import { readStatus, type StatusFile } from './status-file.ts';
import { DEFAULT_PORT, isBasePort, PROJECT_DIR } from './defaults.ts';

// The stack itself (every service) and the schema tools load only for the commands that use them:
// the others start in a fraction of the time.
const stackModule = () => import('./stack.ts');

const USAGE = `Usage: npm run stack -- [--workdir <project folder>] <command> [options]

  start                      start the stack in the foreground (Ctrl-C stops it)
  stop                       stop the stack started in another terminal
  status [-o env|json]       URLs and keys; -o env prints the Supabase CLI's variable names
                             (--override-name api.url=NEXT_PUBLIC_SUPABASE_URL renames one)
  db reset                   a new database: migrations, then the seed (also: reset)
  db dump [-f file]          the schema (or --data-only) as pg_dump writes it; -s schema, -x table
  db diff [-f <name>]        supabase/schemas/ against the migrations, as a new migration
  migration new <name>       an empty supabase/migrations/<timestamp>_<name>.sql
  migration list             local and applied migrations
  migration up [--include-all]  apply the migrations the database lacks
  test db [path…]            run pgTAP files (default supabase/tests)
  functions new <name>       supabase/functions/<name>/index.ts
  functions serve            serve functions (start, or follow a running stack's function logs)
  gen types                  TypeScript types of the database

Options: --port <gateway port, default ${DEFAULT_PORT}>  --dir <data dir>  --env-file <functions' env file>
         --no-verify-jwt (functions serve)  --json (status, Tend's field names)`;

class UsageError extends Error {}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function explain(err: unknown): Promise<string> {
  if (err instanceof MigrationError)
    return `Migration failed: ${err.file}${err.line ? ` line ${err.line}` : ''}\n${err.pgMessage}`;
  // Only start and reset can fail on ports or a running stack: the stack module is loaded then.
  const { PortInUseError, StackRunningError } = await stackModule();
  if (
    err instanceof PortInUseError ||
    err instanceof StackRunningError ||
    err instanceof UsageError ||
    err instanceof MigrationHistoryError ||
    err instanceof FunctionNameError ||
    err instanceof OverrideNameError
  )
    return err.message;
  // Taken between the probe and the listen: the same one-line advice.
  const { code, port } = err as NodeJS.ErrnoException & { port?: number };
  if (code === 'EADDRINUSE' && port) return new PortInUseError(port, 'taken while starting').message;
  return err instanceof Error ? err.message : String(err);
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        dir: { type: 'string' },
        workdir: { type: 'string' },
        project: { type: 'string' },
        'env-file': { type: 'string' },
        json: { type: 'boolean', default: false },
        output: { type: 'string', short: 'o' },
        'override-name': { type: 'string', multiple: true },
        file: { type: 'string', short: 'f' },
        'data-only': { type: 'boolean', default: false },
        schema: { type: 'string', short: 's', multiple: true },
        exclude: { type: 'string', short: 'x', multiple: true },
        'keep-comments': { type: 'boolean', default: false },
        'include-all': { type: 'boolean', default: false },
        'no-verify-jwt': { type: 'boolean', default: false },
        local: { type: 'boolean', default: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message}\n\n${USAGE}`);
  }
}

/** -s a,b -s c → [a, b, c], as the CLI's string slices take them. */
const list = (values: string[] | undefined) => values?.flatMap((v) => v.split(',')).filter(Boolean) ?? [];

async function main() {
  const { values, positionals } = parse();
  if (values.help) return console.log(USAGE);
  const [command = 'start', sub, ...rest] = positionals;
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !isBasePort(port)) fail(`--port must be a port number, got "${values.port}"`);
  const workdir = values.workdir ?? values.project;
  const projectDir = workdir ? path.resolve(workdir) : PROJECT_DIR;
  const dir = values.dir ? path.resolve(values.dir) : path.join(projectDir, '.supabase-local');
  /** The stack on `dir`, for commands that work on a running one. */
  const running = (): StatusFile => {
    const s = readStatus(dir);
    if (!s) throw new UsageError(`No stack is running on ${dir}. Start it with: npm run stack -- start`);
    return s;
  };
  const superuser = (s: StatusFile) => s.dbUrl.replace(/\/\/postgres:/, `//${SUPERUSER}:`);

  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'status': {
      const s = readStatus(dir);
      const format = values.json ? 'tend-json' : (values.output ?? 'pretty');
      if (!s)
        fail(format === 'pretty' ? `No stack is running on ${dir}.` : JSON.stringify({ error: 'not running', dir }));
      const { pid: _pid, processes: _p, timings: _t, ...info } = s;
      if (format === 'tend-json') return console.log(JSON.stringify(info, null, 2));
      const cli = statusValues(s, {
        functions: loadConfig(projectDir).edgeRuntime.enabled,
        overrides: parseOverrides(values['override-name']),
      });
      if (format === 'env') return console.log(toDotenv(cli));
      if (format === 'json') return console.log(JSON.stringify(cli, null, 2));
      if (format !== 'pretty') throw new UsageError(`-o must be env, json or pretty, got "${format}"`);
      return console.log(
        Object.entries(cli)
          .map(([k, v]) => `${k.padEnd(16)} ${v}`)
          .join('\n'),
      );
    }
    case 'stop':
      return console.log(
        (await stopStack(dir)) ? `Stopped the local stack on ${dir}.` : `No stack is running on ${dir}.`,
      );
    case 'reset':
    case 'db reset': {
      const { resetStack } = await stackModule();
      const { applied } = await resetStack({ port, dir, projectDir });
      return console.log(`Database reset: ${applied.length} migration(s) applied, seed loaded.`);
    }
    case 'db dump': {
      const s = running();
      console.error('Dumping schemas from local database...');
      const dump = await dumpDatabase(s.dbUrl, {
        dataOnly: values['data-only'],
        schemas: list(values.schema),
        exclude: list(values.exclude),
        keepComments: values['keep-comments'],
      });
      if (!values.file) return process.stdout.write(dump);
      writeFileSync(path.resolve(projectDir, values.file), dump);
      return console.error(`Dumped schema to ${path.resolve(projectDir, values.file)}.`);
    }
    case 'db diff':
    case 'gen types': {
      const { runSchemaCommand } = await import('./schema-diff.ts');
      return console.log(await runSchemaCommand(positionals, { projectDir, file: values.file }));
    }
    case 'migration new': {
      const name = rest[0];
      if (!name) throw new UsageError('Usage: npm run stack -- migration new <name>');
      // As the CLI: what is piped in becomes the migration.
      const piped = process.stdin.isTTY ? '' : readFileSync(0, 'utf8');
      return console.log(
        `Created new migration at ${path.relative(process.cwd(), newMigration(projectDir, name, piped))}`,
      );
    }
    case 'migration list': {
      const s = running();
      return console.log(migrationTable(localVersions(projectDir), await appliedVersions(s.dbUrl)));
    }
    case 'migration up': {
      const s = running();
      await migrationUp(s.dbUrl, projectDir, values['include-all'], (line) => console.error(line));
      return console.log('Local database is up to date.');
    }
    case 'test db': {
      const s = running();
      const result = await testDb({
        dbUrl: s.dbUrl,
        superuserUrl: superuser(s),
        projectDir,
        paths: rest.map((p) => path.resolve(projectDir, p)),
      });
      console.log(result.report);
      return process.exit(result.ok ? 0 : 1);
    }
    case 'functions new': {
      const name = rest[0];
      if (!name) throw new UsageError('Usage: npm run stack -- functions new <name>');
      const { dir: created, configured } = newFunction(projectDir, name);
      if (!configured) console.error(`[functions.${name}] is already declared in supabase/config.toml`);
      return console.log(`Created new Function at ${path.relative(process.cwd(), created)}`);
    }
    case 'functions serve': {
      const s = readStatus(dir);
      if (!s) return start({ port, dir, projectDir, values, functionsOnly: true });
      if (values['no-verify-jwt'] || values['env-file'])
        console.error('The running stack keeps its settings: stop it and run `functions serve` with these flags.');
      printFunctions(s.apiUrl, projectDir);
      console.log('Following the function logs. Press Ctrl-C to stop following (the stack keeps running).');
      const abort = new AbortController();
      process.on('SIGINT', () => abort.abort());
      return followFunctionLogs(dir, (line) => console.log(line), abort.signal);
    }
    case 'start':
      return start({ port, dir, projectDir, values, functionsOnly: false });
    default:
      fail(USAGE);
  }
}

function printFunctions(apiUrl: string, projectDir: string) {
  const slugs = functionSlugs(projectDir);
  console.log(`Serving functions on ${apiUrl}/functions/v1/<function-name>`);
  for (const slug of slugs) console.log(`  - ${slug}: ${apiUrl}/functions/v1/${slug}`);
}

async function start(o: {
  port: number | undefined;
  dir: string;
  projectDir: string;
  values: ReturnType<typeof parse>['values'];
  functionsOnly: boolean;
}) {
  // performance.now() counts from the process's start: Node, tsx and the CLI's own modules so far.
  const t0 = performance.now();
  const { startStack } = await stackModule();
  const timings = { node: Math.round(t0), modules: Math.round(performance.now() - t0) };
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
    port: o.port,
    dir: o.dir,
    projectDir: o.projectDir,
    // As `supabase functions serve --env-file`: relative to the project (the CLI works in --workdir).
    functionsEnvFile: o.values['env-file'] ? path.resolve(o.projectDir, o.values['env-file']) : undefined,
    noVerifyJwt: o.values['no-verify-jwt'],
    timings,
    onCrash: (name, message) => {
      console.error(`\n[stack] ${name} could not be brought back; the stack has stopped.\n${message}`);
      process.exit(1);
    },
  });
  const stack = await starting;
  if (stopping) return;
  if (stack.applied.length)
    console.log(`[stack] applied ${stack.applied.length} migration(s): ${stack.applied.join(', ')}`);
  if (o.functionsOnly) printFunctions(stack.apiUrl, o.projectDir);
  console.log(
    [
      '',
      `Local Supabase is ready in ${(performance.now() / 1000).toFixed(1)} s.`,
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
      `  Project          ${o.projectDir}`,
      `  Data             ${stack.dir}`,
      '',
      'Press Ctrl-C to stop (or run `stop` in another terminal).',
    ].join('\n'),
  );
}

main().catch(async (err) => fail(await explain(err)));
