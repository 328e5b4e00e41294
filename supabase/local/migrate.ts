// Bootstrap SQL, app migrations and the seed, applied the way the Supabase CLI applies them.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { explainMissingExtension } from './extensions.ts';
import { listSqlFiles, withClient } from './postgres.ts';

const BOOTSTRAP_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bootstrap');
// CLI: only files named <version>_<name>.sql are migrations (pkg/migration/file.go).
export const MIGRATION_NAME = /^([0-9]+)_(.*)\.sql$/;

export class MigrationError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly pgMessage: string,
  ) {
    super(`${file}${line ? `:${line}` : ''}: ${pgMessage}`);
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Runs one SQL file in a transaction; a failure names the file and the line. Its commit doesn't wait
 * for the disk (a first start commits ~30 files, each a flush of the WAL on a durable stack):
 * `durable()` after the last one waits for all of them at once.
 */
async function runFile(c: pg.Client, file: string, sql: string, after?: () => Promise<void>) {
  await c.query('begin');
  try {
    await c.query('set local synchronous_commit = off');
    await c.query(sql);
    await after?.();
    await c.query('commit');
  } catch (err) {
    await c.query('rollback').catch(() => undefined);
    const e = err as pg.DatabaseError;
    const pos = Number(e.position);
    const line = pos > 0 ? sql.slice(0, pos).split('\n').length : undefined;
    const local = explainMissingExtension(e.message ?? '');
    const detail = [e.message, e.detail && `DETAIL: ${e.detail}`, e.where && `CONTEXT: ${e.where}`, local]
      .filter(Boolean)
      .join('\n');
    throw new MigrationError(file, line, detail || String(err));
  }
}

/**
 * Applies bootstrap files whose content changed since they last ran (all of them on a new database);
 * true when one ran.
 */
export async function bootstrap(superuserUrl: string): Promise<boolean> {
  return withClient(superuserUrl, async (c) => {
    const known = new Map<string, string>();
    const has = await c.query(`select to_regclass('supabase_migrations.local_bootstrap') is not null as ok`);
    if (has.rows[0].ok) {
      for (const r of (await c.query('select file, sha256 from supabase_migrations.local_bootstrap')).rows)
        known.set(r.file, r.sha256);
    }
    let ran = false;
    for (const file of listSqlFiles(BOOTSTRAP_DIR)) {
      const sql = readFileSync(path.join(BOOTSTRAP_DIR, file), 'utf8');
      const hash = sha256(sql);
      if (known.get(file) === hash) continue;
      ran = true;
      await runFile(c, `supabase/local/bootstrap/${file}`, sql, async () => {
        if ((await c.query(`select to_regclass('supabase_migrations.local_bootstrap') is not null as ok`)).rows[0].ok) {
          await c.query(
            `insert into supabase_migrations.local_bootstrap (file, sha256) values ($1, $2)
             on conflict (file) do update set sha256 = excluded.sha256, applied_at = now()`,
            [file, hash],
          );
        }
      });
    }
    if (ran) await durable(c);
    return ran;
  });
}

/**
 * Returns once every commit so far is on disk: a transaction with an id commits with a flush of the
 * WAL up to its commit record (synchronous_commit is on for the session), which covers runFile's.
 */
const durable = (c: pg.Client) => c.query('select txid_current()');

/** Splits SQL into statements, as the CLI records them, respecting quotes, dollar quotes and comments. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    const next = sql[i + 1];
    if (ch === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (ch === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === ch && sql[j + 1] !== ch)) j += sql[j] === ch ? 2 : 1;
      i = j + 1;
    } else if (ch === '$') {
      const tag = /^\$[A-Za-z_0-9]*\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const end = sql.indexOf(tag, i + tag.length);
        i = end < 0 ? sql.length : end + tag.length;
      } else i++;
    } else if (ch === ';') {
      const stmt = sql.slice(start, i).trim();
      if (stmt) out.push(stmt);
      start = ++i;
    } else i++;
  }
  const rest = sql.slice(start).trim();
  if (rest && !/^(--[^\n]*\n?|\s)*$/.test(rest)) out.push(rest);
  return out;
}

export interface MigrationResult {
  applied: string[];
}

/** Applies supabase/migrations/*.sql not yet recorded, in name order, each in its own transaction, as postgres. */
export async function migrate(
  postgresUrl: string,
  projectDir: string,
  onApply?: (file: string) => void,
): Promise<MigrationResult> {
  const dir = path.join(projectDir, 'supabase', 'migrations');
  return withClient(postgresUrl, async (c) => {
    const done = new Set(
      (await c.query('select version from supabase_migrations.schema_migrations')).rows.map((r) => r.version as string),
    );
    const applied: string[] = [];
    for (const file of listSqlFiles(dir)) {
      const m = MIGRATION_NAME.exec(file);
      if (!m || done.has(m[1])) continue;
      const sql = readFileSync(path.join(dir, file), 'utf8');
      onApply?.(file);
      await runFile(c, `supabase/migrations/${file}`, sql, async () => {
        await c.query(
          'insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)',
          [m[1], m[2], splitStatements(sql)],
        );
      });
      applied.push(file);
    }
    if (applied.length) await durable(c);
    return { applied };
  });
}

/** supabase/schemas/*.sql in name order, each in its own transaction (a declarative schema's build). */
export async function applySchemas(postgresUrl: string, projectDir: string): Promise<string[]> {
  const dir = path.join(projectDir, 'supabase', 'schemas');
  const files = listSqlFiles(dir);
  await withClient(postgresUrl, async (c) => {
    for (const file of files) await runFile(c, `supabase/schemas/${file}`, readFileSync(path.join(dir, file), 'utf8'));
    await durable(c);
  });
  return files;
}

/** supabase/seed.sql, on a new database and on reset. */
export async function seed(postgresUrl: string, projectDir: string): Promise<boolean> {
  const file = path.join(projectDir, 'supabase', 'seed.sql');
  if (!existsSync(file)) return false;
  const sql = readFileSync(file, 'utf8');
  await withClient(postgresUrl, async (c) => {
    await runFile(c, 'supabase/seed.sql', sql, async () => {
      await c.query(
        `insert into supabase_migrations.seed_files (path, hash) values ('supabase/seed.sql', $1)
         on conflict (path) do update set hash = excluded.hash`,
        [sha256(sql)],
      );
    });
    await durable(c);
  });
  return true;
}

/** Drops and recreates the postgres database (as `supabase db reset` does), for a clean re-apply. */
export async function recreateDatabase(superuserUrl: string): Promise<void> {
  const template = superuserUrl.replace(/\/postgres$/, '/template1');
  await withClient(template, async (c) => {
    // A running stack's realtime reads the database through a logical replication slot, which
    // blocks dropping it even with (force): end the slot's connection (realtime reconnects to the
    // new database by itself), again if it got back in first.
    for (let attempt = 1; ; attempt++) {
      await c.query(
        `select pg_terminate_backend(active_pid) from pg_replication_slots where database = 'postgres' and active_pid is not null`,
      );
      try {
        await c.query('drop database if exists postgres with (force)');
        break;
      } catch (err) {
        if (attempt === 50 || !/replication slot/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await c.query('create database postgres');
    await resetRoles(c);
  });
}

// The roles the image (and so the bootstrap) owns; the CLI's db dump skips the same (pkg/migration/dump.go).
const RESERVED_ROLE =
  /^(pg_|supabase_|cli_login_|pgsodium_)|^(anon|authenticated|authenticator|service_role|postgres|dashboard_user|pgbouncer|pgtle_admin)$/;
// Role settings the bootstrap writes again; a migration may have changed them.
const API_ROLES = ['anon', 'authenticated', 'service_role', 'authenticator', 'postgres'];

/**
 * Roles are the cluster's, not the database's: dropping the database keeps a migration's
 * `create role` and `alter role authenticator set …`, and the next reset would fail on them. The CLI
 * resets with a new cluster (db reset on PG 15+ removes the volume); this comes to the same.
 */
async function resetRoles(c: pg.Client) {
  const { rows } = await c.query<{ rolname: string }>(`select rolname from pg_roles where oid <> 10`);
  for (const { rolname } of rows) {
    if (RESERVED_ROLE.test(rolname)) continue;
    await c.query(`drop role ${escapeIdentifier(rolname)}`).catch((err: Error) => {
      throw new Error(`reset: cannot drop role "${rolname}" (a migration made it): ${err.message}`);
    });
  }
  for (const role of API_ROLES) await c.query(`alter role ${role} reset all`);
}

const escapeIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The Vault secrets a hosted project is told to create for calling its functions from SQL (Supabase
 * docs, "Scheduling Edge Functions"): written at every start, since the gateway's port may change.
 */
export async function seedVault(superuserUrl: string, secrets: Record<string, string>): Promise<void> {
  await withClient(superuserUrl, async (c) => {
    for (const [name, value] of Object.entries(secrets)) {
      const { rowCount } = await c.query(
        'update vault.secrets set secret = $2, updated_at = now() where name = $1 and secret is distinct from $2',
        [name, value],
      );
      if (!rowCount)
        await c.query(
          `insert into vault.secrets (name, secret, description) values ($1, $2, 'Written by the local stack')
           on conflict (name) where name is not null do nothing`,
          [name, value],
        );
    }
  });
}
