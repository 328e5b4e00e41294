// Temporary project dirs (supabase/config.toml, migrations, seed) for tests that need their own schema.
import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tests', 'fixtures');

export interface TempProject {
  projectDir: string;
  dataDir: string;
  addMigration(name: string, sql: string): void;
  remove(): void;
}

/** Copies tests/fixtures/<fixture> to a temp dir, with a data dir beside it. */
export function tempProject(fixture = 'stack-project'): TempProject {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tend-test-'));
  chmodSync(root, 0o755); // as root, Postgres runs as an unprivileged user that must reach the data dir
  const projectDir = path.join(root, 'project');
  cpSync(path.join(FIXTURES, fixture), projectDir, { recursive: true });
  return {
    projectDir,
    dataDir: path.join(root, 'data'),
    addMigration: (name, sql) => writeFileSync(path.join(projectDir, 'supabase', 'migrations', name), sql),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
