// One migrated, seeded database per project per test run, that every test stack starts from as a
// copy (startStack's `template`; docs/decisions/033-test-database-template.md). The integration
// run's global setup makes the directory the templates live in and removes it after the run; the
// first file that needs a project's template makes it, the others wait for that one.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startStack } from '@tend/supabase-local';
import { waitFor } from '../../scripts/lib/wait.ts';

/** Set by tests/integration/global-setup.ts for the integration run: where this run's templates live. */
export const TEMPLATES_ENV = 'TEND_TEST_TEMPLATES';

/**
 * The data dir of a stopped stack of `projectDir` (migrated and seeded), named `name` within this
 * run; undefined outside a run that provides a templates dir (a stack then starts from initdb).
 */
export async function templateFor(name: string, projectDir?: string): Promise<string | undefined> {
  const root = process.env[TEMPLATES_ENV];
  if (!root) return undefined;
  const dir = path.join(root, name);
  const ready = path.join(dir, 'ready');
  const making = `${dir}.making`;
  for (;;) {
    if (existsSync(ready)) return dir;
    try {
      mkdirSync(making); // atomic: one maker per template
    } catch {
      // Another file is making it: wait until it is ready, or the maker gave up (then try ourselves).
      await waitFor(`the ${name} template`, async () => existsSync(ready) || !existsSync(making), 120_000);
      continue;
    }
    try {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { mode: 0o755 }); // as root, Postgres runs as an unprivileged user that must reach it
      const made = await startStack({ projectDir, port: 0, dir, ephemeral: true, log: () => undefined });
      await made.stop();
      writeFileSync(ready, '');
      return dir;
    } finally {
      rmSync(making, { recursive: true, force: true });
    }
  }
}
