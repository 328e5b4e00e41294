// What a fresh machine meets when several stacks start at the same moment (parallel test files,
// CI): the Postgres OS user and the shared copy of the binaries are set up once, by whichever
// gets there first, and the others use them.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installCopy, runAsUser } from '@tend/supabase-local/testing';
import { PROJECT_DIR } from '@tend/supabase-local';
import { waitFor } from '../../scripts/lib/wait.ts';

const MODULE = path.join(PROJECT_DIR, 'supabase', 'local', 'postgres.ts');
const root = mkdtempSync(path.join(os.tmpdir(), 'tend-pg-install-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * `count` processes that each call `call` (an expression over `m`, the module) at the same instant:
 * once every one has loaded the module and said so, all are told to go at once.
 */
async function atOnce(count: number, call: string): Promise<{ code: number | null; out: string }[]> {
  const script = `const m = await import(${JSON.stringify(MODULE)}); console.log('loaded'); process.stdin.once('data', () => console.log(JSON.stringify(${call} ?? null)));`;
  const runs = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: PROJECT_DIR,
    });
    const run = { child, out: '', code: undefined as number | null | undefined };
    child.stdout.on('data', (c) => (run.out += c));
    child.stderr.on('data', (c) => (run.out += c));
    const exited = new Promise<{ code: number | null; out: string }>((resolve) =>
      child.on('exit', (code) => resolve({ code: (run.code = code), out: run.out })),
    );
    return Object.assign(run, { exited });
  });
  await waitFor('every process to load the module', () => {
    const early = runs.find((r) => r.code !== undefined);
    if (early) throw new Error(`a process exited before the start (${early.code}):\n${early.out}`);
    return runs.every((r) => r.out.includes('loaded\n'));
  });
  for (const { child } of runs) child.stdin.end('go\n');
  return Promise.all(runs.map((r) => r.exited));
}

function fakeBinaries(): string {
  const source = path.join(root, `native-${randomUUID()}`);
  mkdirSync(path.join(source, 'bin'), { recursive: true });
  mkdirSync(path.join(source, 'lib'));
  writeFileSync(path.join(source, 'bin', 'postgres'), '#!/bin/sh\necho postgres\n', { mode: 0o700 });
  for (let i = 0; i < 200; i++)
    writeFileSync(path.join(source, 'lib', `part-${i}.so`), 'x'.repeat(10_000), { mode: 0o600 });
  symlinkSync('part-0.so', path.join(source, 'lib', 'libpq.so'));
  return source;
}

describe('setting up Postgres on a fresh machine', () => {
  it('copies the binaries once when four stacks start at the same instant, readable by all and with no half-copies left', async () => {
    const source = fakeBinaries();
    const target = path.join(root, 'shared');
    const results = await atOnce(4, `m.installCopy(${JSON.stringify(source)}, ${JSON.stringify(target)})`);
    for (const r of results) expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(target, 'bin', 'postgres'), 'utf8')).toContain('echo postgres');
    expect(readdirSync(path.join(target, 'lib'))).toHaveLength(201);
    expect(statSync(path.join(target, 'lib', 'part-7.so')).mode & 0o004).toBe(0o004);
    expect(readFileSync(path.join(target, 'lib', 'libpq.so'), 'utf8')).toHaveLength(10_000);
    expect(readdirSync(root).filter((f) => f.startsWith('shared'))).toEqual(['shared']);
  });

  it('replaces a copy an older, interrupted run left without its binary', () => {
    const source = fakeBinaries();
    const target = path.join(root, 'interrupted');
    mkdirSync(path.join(target, 'lib'), { recursive: true });
    installCopy(source, target);
    expect(existsSync(path.join(target, 'bin', 'postgres'))).toBe(true);
    expect(readdirSync(root).filter((f) => f.startsWith('interrupted'))).toEqual(['interrupted']);
  });

  it('adds the OS user Postgres runs as once when four stacks start at the same instant (as root; otherwise none is needed)', async () => {
    if (process.getuid?.() !== 0) {
      expect(runAsUser()).toBeUndefined();
      return;
    }
    const name = `tend-t${randomUUID().slice(0, 8)}`;
    try {
      const results = await atOnce(4, `m.runAsUser(${JSON.stringify(name)})`);
      for (const r of results) expect(r.code, r.out).toBe(0);
      const ids = results.map((r) => JSON.parse(r.out.trim().split('\n').at(-1)!));
      expect(new Set(ids.map((u) => u.uid)).size, JSON.stringify(ids)).toBe(1);
      expect(ids[0].uid).toBeGreaterThan(0);
      expect(Number(spawnSync('id', ['-u', name], { encoding: 'utf8' }).stdout)).toBe(ids[0].uid);
    } finally {
      spawnSync('userdel', [name]);
    }
  }, 30_000);
});
