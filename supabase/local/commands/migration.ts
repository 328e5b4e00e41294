// `migration new|list|up` against the local database, as the Supabase CLI has them
// (internal/migration/{new,list,up}, pkg/migration; docs/reference/supabase-fidelity.md §8.2).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listSqlFiles, withClient } from '../postgres.ts';
import { migrate, MIGRATION_NAME } from '../migrate.ts';

export class MigrationHistoryError extends Error {}

const migrationsDir = (projectDir: string) => path.join(projectDir, 'supabase', 'migrations');

/** UTC YYYYMMDDHHMMSS, the CLI's migration version. */
export const versionAt = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14);

/** `migration new <name>`: an empty file (or `content`, as the CLI takes piped stdin). Returns its path. */
export function newMigration(projectDir: string, name: string, content = '', now = new Date()): string {
  const dir = migrationsDir(projectDir);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${versionAt(now)}_${name}.sql`);
  if (existsSync(file)) throw new MigrationHistoryError(`${file} already exists`);
  writeFileSync(file, content);
  return file;
}

/** Versions of supabase/migrations/*.sql, in order (pkg/migration/list.go ListLocalMigrations). */
export function localVersions(projectDir: string): string[] {
  const out: string[] = [];
  for (const file of listSqlFiles(migrationsDir(projectDir))) {
    const m = MIGRATION_NAME.exec(file);
    // The CLI skips a first <ts>_init.sql older than 20211209000000 (legacy).
    if (m && !(m[2] === 'init' && m[1]! < '20211209000000')) out.push(m[1]!);
  }
  return out;
}

export async function appliedVersions(dbUrl: string): Promise<string[]> {
  return withClient(dbUrl, async (c) => {
    const r = await c.query<{ version: string }>(
      `select version from supabase_migrations.schema_migrations order by version`,
    );
    return r.rows.map((row) => row.version);
  });
}

/** "2024-01-01 00:00:00" for a timestamp version, the version itself otherwise (utils.FormatTimestampVersion). */
export function formatVersion(version: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(version);
  return m ? `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6]}` : version;
}

/** `migration list`: Local | Remote | Time (UTC), one row per version in time order. */
export function migrationTable(local: string[], remote: string[]): string {
  const versions = [...new Set([...local, ...remote])].sort();
  const rows = versions.map((v) => [local.includes(v) ? v : '', remote.includes(v) ? v : '', formatVersion(v)]);
  const head = ['Local', 'Remote', 'Time (UTC)'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `   ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')}`;
  return [line(head), `  ${widths.map((w) => '-'.repeat(w + 2)).join('|')}`, ...rows.map(line)].join('\n');
}

/**
 * The files `migration up` applies (pkg/migration FindPendingMigrations): a version applied but
 * missing locally, or a local one older than the last applied, is refused unless `includeAll`.
 */
export function pendingVersions(local: string[], remote: string[], includeAll: boolean): string[] {
  const missing = remote.filter((v) => !local.includes(v));
  if (missing.length)
    throw new MigrationHistoryError(
      `Remote migration versions not found in local migrations directory.\n\nMake sure your local git repo is up-to-date: ${missing.join(' ')}`,
    );
  const last = remote.at(-1) ?? '';
  const unapplied = local.filter((v) => !remote.includes(v));
  const before = unapplied.filter((v) => v < last);
  if (before.length && !includeAll)
    throw new MigrationHistoryError(
      `Found local migration files to be inserted before the last migration on remote database.\n\nRerun the command with --include-all flag to apply these migrations:\n${before.join('\n')}`,
    );
  return unapplied;
}

/** `migration up`: applies the pending files in order, each with its history row; then PostgREST reloads. */
export async function migrationUp(
  dbUrl: string,
  projectDir: string,
  includeAll: boolean,
  log: (line: string) => void,
): Promise<string[]> {
  pendingVersions(localVersions(projectDir), await appliedVersions(dbUrl), includeAll);
  const { applied } = await migrate(dbUrl, projectDir, (file) => log(`Applying migration ${file}...`));
  if (applied.length) await withClient(dbUrl, (c) => c.query(`notify pgrst, 'reload schema'`));
  return applied;
}
