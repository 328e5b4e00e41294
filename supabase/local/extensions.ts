// The Postgres extensions a project can create here, and what to do about the ones it can't.
// Hosted Supabase lets the non-superuser postgres create the extensions its image ships (supautils'
// privileged extensions); plain Postgres lets it create only "trusted" ones. So the contrib
// extensions hosted offers are marked trusted in the embedded server's control files, as netcron
// does for pg_net and pg_cron. The image's C and Rust extensions (docs/reference/supabase-fidelity.md
// §7.4) can't be loaded by the embedded build, and none ships on npm: a migration that creates one
// fails with its name and what to do instead (`explainMissingExtension`).
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { withClient } from './postgres.ts';

/** Contrib extensions of the embedded build that hosted's postgres may create (the image's list, less admin tools). */
export const CONTRIB = [
  'autoinc',
  'bloom',
  'btree_gin',
  'btree_gist',
  'citext',
  'cube',
  'dblink',
  'dict_int',
  'dict_xsyn',
  'earthdistance',
  'fuzzystrmatch',
  'hstore',
  'insert_username',
  'intagg',
  'intarray',
  'isn',
  'lo',
  'ltree',
  'moddatetime',
  'pg_buffercache',
  'pg_prewarm',
  'pg_stat_statements',
  'pg_trgm',
  'pg_walinspect',
  'pgcrypto',
  'pgrowlocks',
  'pgstattuple',
  'postgres_fdw',
  'refint',
  'seg',
  'sslinfo',
  'tablefunc',
  'tcn',
  'tsm_system_rows',
  'tsm_system_time',
  'unaccent',
  'uuid-ossp',
  'xml2',
];

/**
 * Extensions of hosted's image the local stack has no build of, with what to do instead. `pg_net`
 * and `pg_cron` are served by the stack (netcron/), Vault by the bootstrap (bootstrap/007_vault.sql).
 */
const MISSING: Record<string, string> = {
  http: 'call URLs with pg_net (net.http_get, net.http_post), which the local stack provides',
  vector: 'pgvector is a C extension',
  postgis: 'PostGIS is a C extension',
  postgis_raster: 'PostGIS is a C extension',
  postgis_topology: 'PostGIS is a C extension',
  postgis_sfcgal: 'PostGIS is a C extension',
  postgis_tiger_geocoder: 'PostGIS is a C extension',
  address_standardizer: 'a PostGIS C extension',
  address_standardizer_data_us: 'a PostGIS C extension',
  pgrouting: 'a C extension on top of PostGIS',
  pg_graphql: 'GraphQL (/graphql/v1) is not served locally; query through REST and RPC',
  pg_jsonschema: 'a Rust extension; validate JSON in a check constraint or in the app',
  pgjwt:
    'pure SQL, but no npm package ships it; sign tokens in an Edge Function (hosted PG 17 images no longer install it)',
  pgsodium: 'a C extension (deprecated on hosted); Vault works here without it',
  pg_hashids: 'a C extension',
  pg_repack: 'a C extension',
  pg_stat_monitor: 'a C extension',
  pg_tle: 'a C extension',
  pgaudit: 'a C extension',
  pgmq: 'not shipped for the embedded build',
  pgroonga: 'a C extension',
  pgroonga_database: 'a C extension',
  plpgsql_check: 'a C extension',
  plv8: 'a C extension',
  rum: 'a C extension',
  timescaledb: 'a C extension',
  wrappers: 'a Rust extension (foreign data wrappers)',
  hypopg: 'a C extension',
  index_advisor: 'needs hypopg, a C extension',
  pg_partman: 'not shipped for the embedded build',
  wal2json: 'a C output plugin',
};

/** Names of the extensions `create extension` can make here (for docs and tests). */
export const AVAILABLE_LOCALLY = [...CONTRIB, 'pg_net', 'pg_cron', 'pgtap', 'supabase_vault', 'plpgsql'].sort();

/**
 * What to tell someone whose migration created an extension the stack lacks. Undefined when
 * `message` isn't Postgres's "extension … is not available" error.
 */
export function explainMissingExtension(message: string): string | undefined {
  const name = /extension "([^"]+)" is not available/.exec(message)?.[1];
  if (!name) return undefined;
  const why = MISSING[name];
  const hosted = why ? `Hosted Supabase projects have "${name}" (Database → Extensions); ` : '';
  return (
    `The local stack has no "${name}" extension: ${hosted}the embedded PostgreSQL 17 here loads only its ` +
    `contrib extensions and the SQL ones the stack ships${why ? ` (${why})` : ''}. To run this project ` +
    `locally, create it only where it exists: do $$ begin if exists (select from pg_available_extensions ` +
    `where name = '${name}') then create extension if not exists "${name}" with schema extensions; end if; end $$; ` +
    `Extensions available locally: docs/local-stack.md "Extensions".`
  );
}

/** Writes a file by rename when its content differs (another stack may read it at the same time). */
export function put(file: string, content: string | Buffer) {
  try {
    if (readFileSync(file).equals(Buffer.from(content))) return;
  } catch {
    /* new */
  }
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content, { mode: 0o644 });
  renameSync(tmp, file);
}

/** Where this server looks for extensions (its SHAREDIR/extension); asked once per server (a start asks twice). */
export function extensionDir(superuserUrl: string): Promise<string> {
  let dir = extensionDirs.get(superuserUrl);
  if (!dir) {
    dir = withClient(superuserUrl, async (c) => {
      const r = await c.query(`select setting from pg_config where name = 'SHAREDIR'`);
      return path.join(r.rows[0].setting as string, 'extension');
    });
    extensionDirs.set(superuserUrl, dir);
    dir.catch(() => extensionDirs.delete(superuserUrl));
  }
  return dir;
}
const extensionDirs = new Map<string, Promise<string>>();

/**
 * Makes the embedded server offer what hosted's postgres can create: contrib extensions marked
 * trusted, and `supabase_vault` as an extension of no objects (hosted dumps create it; the Vault
 * itself is the bootstrap's).
 */
export async function provideExtensions(superuserUrl: string): Promise<void> {
  const dir = await extensionDir(superuserUrl);
  const present = new Set(readdirSync(dir));
  for (const name of CONTRIB) {
    const file = path.join(dir, `${name}.control`);
    if (!present.has(`${name}.control`)) continue;
    const control = readFileSync(file, 'utf8');
    if (!/^\s*trusted\s*=\s*true/m.test(control)) put(file, `${control.trimEnd()}\ntrusted = true\n`);
  }
  put(
    path.join(dir, 'supabase_vault.control'),
    "comment = 'Supabase Vault (the local stack provides its objects)'\ndefault_version = '0.3.1'\nrelocatable = false\nschema = vault\ntrusted = true\n",
  );
  put(
    path.join(dir, 'supabase_vault--0.3.1.sql'),
    "-- The vault schema and its objects come from the local stack's bootstrap.\n",
  );
  // Once per Postgres install: unpacking pgTAP costs ~10 ms, and a stack's start is counted.
  if (!present.has('pgtap.control')) for (const [name, body] of pgtapFiles()) put(path.join(dir, name), body);
}

/**
 * pgTAP's control file and its install script, from the npm package PGlite ships it in (a tarball
 * of plain SQL: pgTAP has no C part, so the embedded server loads it as any Postgres does). Its
 * control says `superuser = false`: postgres may create it, as on hosted.
 */
export function pgtapFiles(): Map<string, Buffer> {
  const tarball = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite-pgtap')),
    'pgtap.tar.gz',
  );
  const files = new Map<string, Buffer>();
  for (const [name, body] of untar(gunzipSync(readFileSync(tarball)))) {
    const file = /^share\/postgresql\/extension\/(pgtap(?:--[\d.]+)?\.(?:sql|control))$/.exec(name)?.[1];
    if (file) files.set(file, body);
  }
  return files;
}

/** The regular files of a ustar archive (POSIX.1-1988: 512-byte headers, octal sizes, name prefix). */
function untar(archive: Buffer): [string, Buffer][] {
  const entries: [string, Buffer][] = [];
  for (let at = 0; at + 512 <= archive.length; ) {
    const header = archive.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, to: number) => header.toString('latin1', from, to).replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 136).trim() || '0', 8);
    const prefix = field(345, 500);
    const name = (prefix ? `${prefix}/` : '') + field(0, 100);
    const type = field(156, 157);
    if (type === '0' || type === '')
      entries.push([name.replace(/^\.\//, ''), archive.subarray(at + 512, at + 512 + size)]);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}
