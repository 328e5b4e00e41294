// pg_net and pg_cron as installable extensions of the embedded Postgres: control files and SQL
// scripts written into its extension directory, so `create extension if not exists pg_net` (or
// pg_cron) in a migration works here as it does on hosted. They are marked trusted, which lets the
// non-superuser postgres create them, as Supabase's supautils allows on hosted; their objects are
// owned by the cluster's superuser (supabase_admin), as there.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extensionDir, put } from '../extensions.ts';

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

/** Installs the extensions' files where this server looks for them (its SHAREDIR/extension). */
export async function installExtensions(superuserUrl: string): Promise<void> {
  const dir = await extensionDir(superuserUrl);
  mkdirSync(dir, { recursive: true });
  for (const ext of EXTENSIONS) {
    const control = [...ext.control, `default_version = '${ext.version}'`, 'trusted = true', ''].join('\n');
    put(path.join(dir, `${ext.name}.control`), control);
    put(path.join(dir, `${ext.name}--${ext.version}.sql`), readFileSync(path.join(here, ext.script), 'utf8'));
  }
}
