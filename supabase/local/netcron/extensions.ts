// pg_net and pg_cron as installable extensions of the embedded Postgres: control files and SQL
// scripts written into its extension directory, so `create extension if not exists pg_net` (or
// pg_cron) in a migration works here as it does on hosted. They are marked trusted, which lets the
// non-superuser postgres create them, as Supabase's supautils allows on hosted; their objects are
// owned by the cluster's superuser (supabase_admin), as there.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withClient } from '../postgres.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

const EXTENSIONS = [
  {
    name: 'pg_net',
    version: '0.20.0',
    script: 'pg_net.sql',
    control: ["comment = 'Async HTTP'", 'relocatable = false'],
  },
  {
    name: 'pg_cron',
    version: '1.6',
    script: 'pg_cron.sql',
    control: ["comment = 'Job scheduler for PostgreSQL'", 'relocatable = false', 'schema = pg_catalog'],
  },
];

/** Writes a file only when its content differs, by rename (another stack may read it at the same time). */
function put(file: string, content: string) {
  try {
    if (readFileSync(file, 'utf8') === content) return;
  } catch {
    /* new */
  }
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content, { mode: 0o644 });
  renameSync(tmp, file);
}

/** Installs the extensions' files where this server looks for them (its SHAREDIR/extension). */
export async function installExtensions(superuserUrl: string): Promise<void> {
  const share = await withClient(superuserUrl, async (c) => {
    const r = await c.query(`select setting from pg_config where name = 'SHAREDIR'`);
    return r.rows[0].setting as string;
  });
  const dir = path.join(share, 'extension');
  mkdirSync(dir, { recursive: true });
  for (const ext of EXTENSIONS) {
    const control = [...ext.control, `default_version = '${ext.version}'`, 'trusted = true', ''].join('\n');
    put(path.join(dir, `${ext.name}.control`), control);
    put(path.join(dir, `${ext.name}--${ext.version}.sql`), readFileSync(path.join(here, ext.script), 'utf8'));
  }
}
