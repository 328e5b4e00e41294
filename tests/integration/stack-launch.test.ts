// The CLI's prebuilt bundle (supabase/local/launch.mjs): made on the first run, reused while the
// sources are unchanged, remade when one changes, and tsx when it can't be stored. The bundle
// starting a whole stack is stack-cli.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_DIR, STACK_CLI } from '@tend/supabase-local';

const cache = mkdtempSync(path.join(os.tmpdir(), 'tend-launch-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [STACK_CLI, ...args], {
    cwd: PROJECT_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SUPABASE_LOCAL_CACHE: cache, ...env },
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

/** The bundle's identity: a rebuild writes a new file (renamed into place). */
const bundle = () => statSync(path.join(cache, 'cli', 'cli.js')).ino;

describe('the CLI, prebuilt', () => {
  it('builds on the first run, reuses the build, and builds again when a source changes', async () => {
    const first = await cli(['--help']);
    expect(first.code).toBe(0);
    expect(first.out).toContain('Usage: npm run stack');
    expect(first.out).not.toContain('through tsx');
    const built = bundle();

    expect((await cli(['--help'])).code).toBe(0);
    expect(bundle()).toBe(built);

    // An edit: the same content with a new modification time is enough to count as one.
    // Its time is put back after, so other builds of the CLI (npm run stack's) stay current.
    const source = path.join(PROJECT_DIR, 'supabase', 'local', 'defaults.ts');
    const { atime, mtime } = statSync(source);
    utimesSync(source, atime, new Date());
    try {
      const after = await cli(['status', '--dir', path.join(cache, 'no-stack')]);
      expect(after.out).toContain('No stack is running');
      expect(bundle()).not.toBe(built);
    } finally {
      utimesSync(source, atime, mtime);
    }
  });

  it('several CLIs started at once on an empty cache each run whole', async () => {
    const empty = path.join(cache, 'at-once');
    const runs = await Promise.all(
      [1, 2, 3, 4].map(() => cli(['status', '--dir', path.join(cache, 'no-stack')], { SUPABASE_LOCAL_CACHE: empty })),
    );
    for (const r of runs) expect(r.out.trim()).toBe(`No stack is running on ${path.join(cache, 'no-stack')}.`);
  });

  it('runs through tsx, and says so, where the build can not be stored', async () => {
    const r = await cli(['--help'], { SUPABASE_LOCAL_CACHE: path.join(cache, 'cli', 'cli.js', 'below-a-file') });
    expect(r.code).toBe(0);
    expect(r.out).toContain('could not prebuild the CLI');
    expect(r.out).toContain('Usage: npm run stack');
  });
});
