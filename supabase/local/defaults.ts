// Where the stack looks and listens unless told otherwise (light: the CLI reads these without loading the stack).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This repository: where supabase/ lives when no --workdir is given. */
export const PROJECT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The gateway's port, as `supabase start`'s (db +1, mail +3, SMTP +4). */
export const DEFAULT_PORT = 54321;

/** Whether `n` can be a gateway port: one that leaves room for db and mail (+1, +3). */
export const isBasePort = (n: number): boolean => Number.isInteger(n) && n > 0 && n + 4 <= 65535;

/**
 * What the stack keeps between starts that no data dir owns (the prebuilt CLI, V8's code cache, a
 * bare cluster): node_modules/.cache/supabase-local, or SUPABASE_LOCAL_CACHE (launch.mjs reads the same).
 */
export const cacheDir = (): string =>
  path.resolve(process.env.SUPABASE_LOCAL_CACHE ?? path.join(PROJECT_DIR, 'node_modules', '.cache', 'supabase-local'));
