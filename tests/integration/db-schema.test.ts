// The declarative schema: supabase/schemas/ and supabase/migrations/ build the same database, the
// committed types are what `gen types` writes, and `db diff -f` turns a schema edit into a migration.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffSchemas, generateTypes, PROJECT_DIR, STACK_CLI, TYPES_FILE } from '@tend/supabase-local';

function stackCli(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [STACK_CLI, ...args], {
    cwd: PROJECT_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

// Each test builds throw-away databases (two to four): slow on a loaded machine.
describe('declarative schema', { timeout: 180_000 }, () => {
  const temp = mkdtempSync(path.join(os.tmpdir(), 'tend-schema-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('supabase/migrations/ build what supabase/schemas/ describe (no drift)', async () => {
    expect(await diffSchemas(PROJECT_DIR)).toBe('');
  });

  it(`${TYPES_FILE} is what \`npm run stack -- gen types\` writes`, async () => {
    const committed = readFileSync(path.join(PROJECT_DIR, TYPES_FILE), 'utf8');
    expect(await generateTypes(PROJECT_DIR), 'stale types: run `npm run stack -- gen types`').toBe(committed);
  });

  it('`db diff -f <name>` writes a schema edit as a migration, grants included, then finds nothing', async () => {
    const project = path.join(temp, 'project');
    for (const dir of ['schemas', 'migrations'])
      cpSync(path.join(PROJECT_DIR, 'supabase', dir), path.join(project, 'supabase', dir), { recursive: true });
    writeFileSync(
      path.join(project, 'supabase', 'schemas', '80_labels.sql'),
      `create table public.labels (id bigint primary key, name text not null);
       revoke all on public.labels from anon;
       grant select (id, name) on public.labels to anon;
       alter publication supabase_realtime add table public.labels;`,
    );
    const first = await stackCli(['db', 'diff', '-f', 'labels', '--project', project]);
    expect(first.output).toMatch(/Created new migration at supabase\/migrations\/\d{14}_labels\.sql/);
    expect(first.code).toBe(0);
    const file = readdirSync(path.join(project, 'supabase', 'migrations')).find((f) => f.endsWith('_labels.sql'))!;
    const sql = readFileSync(path.join(project, 'supabase', 'migrations', file), 'utf8');
    expect(sql).toContain('create table "public"."labels"');
    expect(sql).toContain('grant select (name) on table public.labels to anon;');
    expect(sql).toContain('alter publication supabase_realtime add table public.labels;');

    const again = await stackCli(['db', 'diff', '--project', project]);
    expect(again.output.trim()).toBe('No schema changes found');
  });

  it('a migration migra writes that does not apply comes back as a draft that says why', async () => {
    const project = path.join(temp, 'draft');
    for (const dir of ['schemas', 'migrations'])
      cpSync(path.join(PROJECT_DIR, 'supabase', dir), path.join(project, 'supabase', dir), { recursive: true });
    // A new return type: migra drops the function, which every policy that calls it depends on.
    const file = path.join(project, 'supabase', 'schemas', '10_workspaces.sql');
    const sql = readFileSync(file, 'utf8');
    const edited = sql.replace(
      'create function private.member_workspaces() returns setof uuid',
      'create function private.member_workspaces() returns table (workspace_id uuid)',
    );
    expect(edited).not.toBe(sql);
    writeFileSync(file, edited);
    const draft = await diffSchemas(project);
    expect(draft).toMatch(
      /^-- db diff: this migration failed on a copy of the migrations' database; edit it before use:\n-- cannot drop function private\.member_workspaces\(\) because other objects depend on it/,
    );
    expect(draft).toContain('drop function if exists "private"."member_workspaces"();');
  });
});
