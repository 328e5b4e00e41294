// A Supabase project that is not Tend (tests/fixtures/journal-project), run as its developer would
// run it with the Supabase CLI: `start` with --workdir, an .env from `status -o env`, its own
// supabase-js checks (password sign-up, storage policies with storage.foldername, a thumbnail, a
// realtime publication, a function importing ../_utils/, role settings and grants from its migrations), the everyday commands,
// `db reset` (twice: its roles must not be left behind), then `stop` from another terminal.
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '@tend/supabase-local';
import { freeBasePort, readStatus } from '@tend/supabase-local';
import { ready, run, runToEnd, type CliRun } from '../support/cli.ts';
import { tempProject, type TempProject } from '../../scripts/lib/project.ts';
import { subscribed } from '../support/realtime.ts';
import { memoryStorage, newEmail } from '../support/stack.ts';

let project: TempProject;
let stack: CliRun;
let env: Record<string, string>;
const cli = (...args: string[]) => runToEnd(['--workdir', project.projectDir, ...args]);

/** What a project's .env holds after `supabase status -o env > .env`. */
function parseDotenv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => {
        const [, key, value] = /^([A-Z_]+)="(.*)"$/.exec(line)!;
        return [key!, value!.replace(/\\(.)/g, '$1')];
      }),
  );
}

const client = (): SupabaseClient =>
  createClient(env.API_URL!, env.ANON_KEY!, {
    auth: { persistSession: true, autoRefreshToken: false, storage: memoryStorage() },
  });

async function signUp(username: string) {
  const c = client();
  const { data, error } = await c.auth.signUp({
    email: newEmail(username),
    password: 'journal-pass-1',
    options: { data: { username } },
  });
  if (error) throw error;
  return { c, user: data.user!, session: data.session! };
}

const sql = async (text: string, params: unknown[] = []) => {
  const c = new pg.Client({ connectionString: env.DB_URL!.replace('//postgres:', '//supabase_admin:') });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
};

describe('a Supabase project that is not Tend, with --workdir', () => {
  beforeAll(async () => {
    project = tempProject('journal-project');
    // No --dir: the data goes where a project's would, <workdir>/.supabase-local.
    for (let attempt = 1; ; attempt++) {
      const port = await freeBasePort();
      stack = run(['--workdir', project.projectDir, 'start', '--port', String(port)]);
      if ((await ready(stack)) === 'ready') break;
      if (!/^Port \d+ /m.test(stack.output()) || attempt === 3)
        throw new Error(`stack CLI exited before it was ready:\n${stack.output()}`);
    }
    const status = await cli('status', '-o', 'env');
    expect(status.code).toBe(0);
    writeFileSync(path.join(project.projectDir, '.env'), status.stdout);
    env = parseDotenv(readFileSync(path.join(project.projectDir, '.env'), 'utf8'));
  }, 120_000);
  afterAll(async () => {
    if (stack?.child.exitCode === null) {
      stack.child.kill('SIGTERM');
      await stack.exit;
    }
    project?.remove();
  });

  it("starts it, keeping its data in the project, and prints the CLI's variables for .env", () => {
    expect(existsSync(path.join(project.projectDir, '.supabase-local', 'stack.json'))).toBe(true);
    expect(Object.keys(env).sort()).toEqual([
      'ANON_KEY',
      'API_URL',
      'DB_URL',
      'FUNCTIONS_URL',
      'INBUCKET_URL',
      'JWT_SECRET',
      'MAILPIT_URL',
      'PUBLISHABLE_KEY',
      'REST_URL',
      'SECRET_KEY',
      'SERVICE_ROLE_KEY',
    ]);
    expect(env.REST_URL).toBe(`${env.API_URL}/rest/v1`);
    // The unsupported [studio] is named at start, never dropped silently.
    expect(stack.output()).toMatch(/\[config\] studio\.enabled/);
  });

  it('signs up with a password, makes the profile, and keeps entries private under RLS', async () => {
    const { c, user } = await signUp('ada');
    expect((await c.from('profiles').select('username').single()).data).toEqual({ username: 'ada' });
    expect((await c.from('entries').insert({ title: 'Day one' })).error).toBeNull();
    const mine = await c.from('entries').select('title, user_id');
    expect(mine.data).toEqual([{ title: 'Day one', user_id: user.id }]);
    // The seeded user signs in with the bcrypt password the seed stored.
    const seeded = client();
    const signIn = await seeded.auth.signInWithPassword({ email: 'seeded@journal.test', password: 'journal-pass' });
    expect(signIn.error).toBeNull();
    expect((await seeded.from('entries').select('title')).data).toEqual([{ title: 'A seeded entry' }]);
  });

  it('stores photos only in the own folder (storage.foldername policies)', async () => {
    const { c, user } = await signUp('grace');
    const photo = new Blob([Buffer.from('not really a jpeg')], { type: 'image/jpeg' });
    const own = await c.storage.from('photos').upload(`${user.id}/cat.jpg`, photo);
    expect(own.error).toBeNull();
    const other = await c.storage.from('photos').upload(`someone-else/cat.jpg`, photo);
    expect(other.error?.message).toMatch(/row-level security/);
    const listed = await c.storage.from('photos').list(user.id);
    expect(listed.data?.map((f) => f.name)).toEqual(['cat.jpg']);
  });

  it('shows a photo as a thumbnail through a signed URL ([storage.image_transformation] enabled)', async () => {
    const { c, user } = await signUp('ada_lovelace');
    const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#c84' } })
      .jpeg()
      .toBuffer();
    expect(
      (await c.storage.from('photos').upload(`${user.id}/beach.jpg`, jpeg, { contentType: 'image/jpeg' })).error,
    ).toBeNull();
    const { data, error } = await c.storage
      .from('photos')
      .createSignedUrl(`${user.id}/beach.jpg`, 60, { transform: { width: 160, height: 160, resize: 'contain' } });
    expect(error).toBeNull();
    const thumb = Buffer.from(await (await fetch(data!.signedUrl)).arrayBuffer());
    expect(await sharp(thumb).metadata()).toMatchObject({ width: 160, height: 120, format: 'jpeg' });
  });

  it('sends its entries live through the supabase_realtime publication', async () => {
    const { c } = await signUp('linus');
    const seen: string[] = [];
    const systems: { message?: string }[] = [];
    const channel = c
      .channel('entries')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'entries' }, (p) =>
        seen.push((p.new as { title: string }).title),
      )
      .on('system', {}, (p) => systems.push(p));
    await subscribed(channel);
    try {
      // As an app must: changes count from "Subscribed to PostgreSQL" on, as with hosted Realtime.
      await expect.poll(() => systems[0]?.message, { timeout: 15_000 }).toBe('Subscribed to PostgreSQL');
      expect((await c.from('entries').insert({ title: 'Live' })).error).toBeNull();
      await expect.poll(() => seen, { timeout: 15_000 }).toEqual(['Live']);
    } finally {
      await c.removeAllChannels();
    }
  });

  it('runs its function, which asks the database as the caller', async () => {
    const { c } = await signUp('margaret');
    await c.from('entries').insert([{ title: 'One' }, { title: 'Two' }]);
    const { data, error } = await c.functions.invoke('entry-count');
    expect(error).toBeNull();
    expect(data).toEqual({ count: 2 });
  });

  it("applies its role settings and grants as postgres, as hosted's roles allow", async () => {
    // alter role authenticator set pgrst.db_plan_enabled: PostgREST answers EXPLAIN plans.
    const plan = await fetch(`${env.REST_URL}/entries?select=id`, {
      headers: { apikey: env.ANON_KEY!, accept: 'application/vnd.pgrst.plan+json' },
    });
    expect(plan.status).toBe(200);
    expect((await plan.json())[0]).toHaveProperty('Plan');
    // A moderator (grant moderator to authenticator; grant authenticated to moderator) reads every entry.
    const { c, user } = await signUp('mod');
    const admin = createClient(env.API_URL!, env.SERVICE_ROLE_KEY!, { auth: { persistSession: false } });
    expect((await admin.auth.admin.updateUserById(user.id, { role: 'moderator' })).error).toBeNull();
    await c.auth.refreshSession();
    const all = await c.from('entries').select('title');
    expect(all.error).toBeNull();
    expect(all.data!.map((e) => e.title)).toContain('A seeded entry');
    // The security definer function owned by postgres, executable by authenticated (and so moderator), not anon.
    expect((await c.rpc('my_entry_count')).data).toBe(0);
    expect((await client().rpc('my_entry_count')).error?.code).toBe('42501');
    const roles = await sql(
      `select g.rolname, m.admin_option from pg_auth_members m join pg_roles g on g.oid = m.roleid
       where m.member = 'postgres'::regrole and g.rolname in ('anon', 'authenticated', 'service_role', 'authenticator')
       order by 1`,
    );
    expect(roles).toEqual(
      ['anon', 'authenticated', 'authenticator', 'service_role'].map((rolname) => ({ rolname, admin_option: true })),
    );
  });

  it('migration new, list and up', async () => {
    const created = await runToEnd(['--workdir', project.projectDir, 'migration', 'new', 'tags'], {
      input: 'create table public.tags (name text primary key);\n',
    });
    expect(created.code).toBe(0);
    const file = /Created new migration at (.+)/.exec(created.output)![1]!.trim();
    expect(path.basename(file)).toMatch(/^\d{14}_tags\.sql$/);
    const version = path.basename(file).slice(0, 14);

    const before = await cli('migration', 'list');
    expect(before.stdout).toMatch(new RegExp(`${version} \\|\\s+\\|`));
    const up = await cli('migration', 'up');
    expect(up.code).toBe(0);
    expect(up.output).toContain(`Applying migration ${path.basename(file)}...`);
    expect(up.output).toContain('Local database is up to date.');
    const after = await cli('migration', 'list');
    expect(after.stdout).toMatch(new RegExp(`${version} \\| ${version} \\|`));
    await expect
      .poll(async () => (await fetch(`${env.REST_URL}/tags`, { headers: { apikey: env.ANON_KEY! } })).status)
      .toBe(200);
  });

  it('db dump: the schema as re-runnable SQL without the platform, and the data as INSERTs', async () => {
    const schema = await cli('db', 'dump');
    expect(schema.code).toBe(0);
    expect(schema.stdout).toContain('CREATE TABLE IF NOT EXISTS "public"."entries"');
    expect(schema.stdout).toContain('CREATE OR REPLACE FUNCTION "private"."entry_count"');
    expect(schema.stdout).toContain('CREATE POLICY "Users read their own entries." ON "public"."entries"');
    expect(schema.stdout).not.toMatch(/CREATE TABLE[^\n]*"auth"\./);
    expect(schema.stdout).not.toMatch(/^--/m);

    const data = await cli('db', 'dump', '--data-only', '-f', 'data.sql');
    expect(data.code).toBe(0);
    const dumped = readFileSync(path.join(project.projectDir, 'data.sql'), 'utf8');
    expect(dumped.startsWith('SET session_replication_role = replica;')).toBe(true);
    expect(dumped).toMatch(/INSERT INTO "public"\."entries" \("id", "user_id", "title"/);
    expect(dumped).toContain('INSERT INTO "auth"."users"');
    expect(dumped).not.toContain('"supabase_migrations"');
  });

  it('test db: runs the TAP of supabase/tests as pg_prove reads it, exit status and all', async () => {
    const tests = path.join(project.projectDir, 'supabase', 'tests');
    mkdirSync(path.join(tests, 'rls'), { recursive: true });
    writeFileSync(
      path.join(tests, 'entries.test.sql'),
      "\\set QUIET 1\nbegin;\nselect plan(2);\nselect has_table('public', 'entries', 'entries is a table');\nselect ok(exists (select from public.entries), 'has entries');\nselect * from finish();\nrollback;\n",
    );
    const passing = await cli('test', 'db');
    expect(passing.stdout).toMatch(/supabase\/tests\/entries\.test\.sql \.+ ok/);
    expect(passing.stdout).toContain('Result: PASS');
    expect(passing.code).toBe(0);

    writeFileSync(
      path.join(tests, 'rls', 'anon.test.sql'),
      "begin;\nselect plan(2);\nselect pass('first');\nselect is((select count(*) from public.entries), 0::bigint, 'anon reads nothing');\nselect * from finish();\nrollback;\n",
    );
    const failing = await cli('test', 'db');
    expect(failing.stdout).toContain('not ok 2 - anon reads nothing');
    // pgTAP's own diagnostics for the failed assertion (is(): have and want).
    expect(failing.stdout).toMatch(/#\s+have: [1-9]/);
    expect(failing.stdout).toContain('Failed 1/2 subtests');
    expect(failing.stdout).toContain('Result: FAIL');
    expect(failing.code).toBe(1);
    // The run created pgTAP and dropped it after: the project's database is as it was.
    expect(await sql(`select count(*)::int as n from pg_extension where extname = 'pgtap'`)).toEqual([{ n: 0 }]);
  });

  it('functions new: a function the running stack serves at once', async () => {
    const created = await cli('functions', 'new', 'hello-world');
    expect(created.code).toBe(0);
    expect(created.output).toContain('Created new Function at');
    expect(readFileSync(path.join(project.projectDir, 'supabase', 'config.toml'), 'utf8')).toContain(
      '[functions.hello-world]',
    );
    const { c } = await signUp('fn');
    const { data, error } = await c.functions.invoke('hello-world', { body: { name: 'Journal' } });
    expect(error).toBeNull();
    expect(data).toEqual({ message: 'Hello Journal!' });
    expect((await cli('functions', 'new', '1bad')).output).toContain('Invalid Function name');
  });

  it('db reset: back to the migrations and the seed, twice (the roles its migrations make go too)', async () => {
    for (let round = 1; round <= 2; round++) {
      const reset = await cli('db', 'reset');
      expect(reset.output).toMatch(/3 migration\(s\) applied, seed loaded/);
      expect(reset.code).toBe(0);
    }
    const seeded = client();
    await seeded.auth.signInWithPassword({ email: 'seeded@journal.test', password: 'journal-pass' });
    await expect
      .poll(async () => (await seeded.from('entries').select('title')).data, { timeout: 15_000 })
      .toEqual([{ title: 'A seeded entry' }]);
    expect(await sql(`select count(*)::int as n from auth.users`)).toEqual([{ n: 1 }]);
  });

  it('stop: ends the stack started in another terminal, children included', async () => {
    const dataDir = path.join(project.projectDir, '.supabase-local');
    const pids = readStatus(dataDir)!.processes.map((p) => p.pid);
    expect(pids.length).toBeGreaterThan(0);
    const stopped = await cli('stop');
    expect(stopped.code).toBe(0);
    expect(stopped.output).toContain('Stopped the local stack');
    expect(await stack.exit).toBe(0);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(readdirSync(dataDir)).not.toContain('stack.json');
    expect((await cli('stop')).output).toContain('No stack is running');
  });
});
