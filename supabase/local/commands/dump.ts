// `db dump [--data-only] [-s schema,…] [-x table,…] [--keep-comments] [-f file]`: the local
// database as the Supabase CLI dumps one (pkg/migration/dump.go and scripts/dump_{schema,data}.sh;
// docs/reference/supabase-fidelity.md §8.3): the project's schemas only, statements made re-runnable,
// data as INSERTs with triggers off.
import { pgDump } from '../pg-dump/index.ts';

// Schemas the platform or an extension owns (dump.go InternalSchemas): never in a schema dump.
const INTERNAL_SCHEMAS = [
  'information_schema',
  'pg_*',
  '_analytics',
  '_realtime',
  '_supavisor',
  'auth',
  'etl',
  'extensions',
  'pgbouncer',
  'realtime',
  'storage',
  'supabase_functions',
  'supabase_migrations',
  'cron',
  'dbdev',
  'graphql',
  'graphql_public',
  'net',
  'pgmq',
  'pgsodium',
  'pgsodium_masks',
  'pgtle',
  'repack',
  'tiger',
  'tiger_data',
  'timescaledb_*',
  '_timescaledb_*',
  'topology',
  'vault',
];
// A data dump keeps auth, storage, supabase_functions, cron, net and pgmq (dump.go excludedSchemas).
const KEPT_IN_DATA = new Set(['auth', 'storage', 'supabase_functions', 'cron', 'net', 'pgmq']);
const DATA_EXCLUDED_SCHEMAS = INTERNAL_SCHEMAS.filter((s) => !KEPT_IN_DATA.has(s));
// Migration histories the platform manages.
const DATA_EXCLUDED_TABLES = ['auth.schema_migrations', 'storage.migrations', 'supabase_functions.migrations'];

export interface DumpOptions {
  dataOnly?: boolean;
  schemas?: string[];
  exclude?: string[];
  keepComments?: boolean;
}

const quoteAll = (name: string) => `"${name.replaceAll('.', '"."')}"`;

/**
 * Line edits the CLI makes to a schema dump (dump_schema.sh's sed list): re-runnable CREATEs, and
 * nothing that the platform sets up itself (its publication, event triggers, grants on its schemas).
 */
function editSchemaDump(sql: string, keepComments: boolean): string {
  const platform = INTERNAL_SCHEMAS.join('|').replaceAll('*', '.*');
  const commentOut = [
    /^\\(un)?restrict /,
    /^CREATE PUBLICATION "supabase_realtime/,
    /^CREATE EVENT TRIGGER /,
    /^ {9}WHEN TAG IN /,
    /^ {3}EXECUTE FUNCTION /,
    /^ALTER EVENT TRIGGER /,
    /^ALTER PUBLICATION "supabase_realtime_/,
    /^ALTER FOREIGN DATA WRAPPER (.+) OWNER TO /,
    /^ALTER DEFAULT PRIVILEGES FOR ROLE "supabase_admin"/,
    /^GRANT ALL ON FOREIGN DATA WRAPPER (.+) TO "postgres" WITH GRANT OPTION/,
    new RegExp(`^GRANT (.+) ON (.+) "(${platform})"`),
    new RegExp(`^REVOKE (.+) ON (.+) "(${platform})"`),
    /^COMMENT ON EXTENSION /,
    /^CREATE POLICY "cron_job_/,
    /^ALTER TABLE "cron"/,
    /^SET transaction_timeout = 0;/,
  ];
  const out: string[] = [];
  for (let line of sql.split('\n')) {
    line = line
      .replace(/^CREATE SCHEMA "/, 'CREATE SCHEMA IF NOT EXISTS "')
      .replace(/^CREATE TABLE "/, 'CREATE TABLE IF NOT EXISTS "')
      .replace(/^CREATE SEQUENCE "/, 'CREATE SEQUENCE IF NOT EXISTS "')
      .replace(/^CREATE VIEW "/, 'CREATE OR REPLACE VIEW "')
      .replace(/^CREATE FUNCTION "/, 'CREATE OR REPLACE FUNCTION "')
      .replace(/^CREATE TRIGGER "/, 'CREATE OR REPLACE TRIGGER "')
      .replace(/^(CREATE EXTENSION IF NOT EXISTS "(pg_tle|pgsodium|pgmq)").+/, '$1;');
    if (commentOut.some((re) => re.test(line))) line = `-- ${line}`;
    if (!keepComments && line.startsWith('--')) continue;
    out.push(line);
  }
  return out.join('\n');
}

/** The dump's text, as `supabase db dump --local` writes it. */
export async function dumpDatabase(dbUrl: string, o: DumpOptions = {}): Promise<string> {
  const common = ['--quote-all-identifier', '--role', 'postgres'];
  if (o.dataOnly) {
    const schemas = o.schemas?.length
      ? o.schemas.flatMap((s) => ['--schema', s])
      : [...DATA_EXCLUDED_SCHEMAS.flatMap((s) => ['--exclude-schema', s]), '--schema', '*'];
    const tables = [...DATA_EXCLUDED_TABLES, ...(o.exclude ?? [])].flatMap((t) => ['--exclude-table', quoteAll(t)]);
    const dump = await pgDump(dbUrl, [
      '--data-only',
      ...common,
      ...schemas,
      ...tables,
      '--column-inserts',
      '--rows-per-insert',
      '100000',
    ]);
    // Triggers off while restoring, so the data goes back exactly as it was (dump_data.sh).
    return `SET session_replication_role = replica;\n\n${dump.replace(/^\\(un)?restrict .*$/gm, '-- $&')}\nRESET ALL;\n`;
  }
  const schemas = o.schemas?.length
    ? o.schemas.flatMap((s) => ['--schema', s])
    : INTERNAL_SCHEMAS.flatMap((s) => ['--exclude-schema', s]);
  return editSchemaDump(await pgDump(dbUrl, ['--schema-only', ...common, ...schemas]), Boolean(o.keepComments));
}
