// The local stack, part 1: Postgres, migrations, PostgREST and the gateway, seen from clients.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MigrationError,
  isAlive,
  loadConfig,
  freeBasePort,
  freePort,
  startStack,
  type Stack,
} from '@tend/supabase-local';
import { clusterDir, startPostgrest, ephemeralLow } from '@tend/supabase-local/testing';
import { tempProject, type TempProject } from '../../scripts/lib/project.ts';

/** Pids of processes whose command line mentions `dir` (postgres runs with -D <dir>/db). */
function processesUsing(dir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const ALICE = '11111111-1111-1111-1111-111111111111';

async function userJwt(secret: string, sub: string, email: string) {
  return new SignJWT({ sub, email, role: 'authenticated', aud: 'authenticated' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
}

function client(stack: Stack, key: string, jwt?: string): SupabaseClient {
  return createClient(stack.apiUrl, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: jwt ? { headers: { Authorization: `Bearer ${jwt}` } } : {},
  });
}

describe('local stack', () => {
  let project: TempProject;
  let stack: Stack;

  beforeAll(async () => {
    project = tempProject();
    stack = await startStack({
      port: 0,
      dir: project.dataDir,
      projectDir: project.projectDir,
      ephemeral: true,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await stack?.stop();
    project?.remove();
  });

  it('applies migrations and the seed on first start and records them as the CLI does', async () => {
    expect(stack.created).toBe(true);
    expect(stack.applied).toEqual(['20250101000000_notes.sql', '20250101000100_profiles.sql']);
    const rows = await client(stack, stack.serviceRoleKey).from('notes').select('body').order('id');
    expect(rows.data).toEqual([{ body: 'alice note' }, { body: 'bob note' }]);
  });

  it('gives anon, a signed-in user and service_role different rows under RLS', async () => {
    const anon = await client(stack, stack.anonKey).from('notes').select('body');
    expect(anon.data).toEqual([{ body: 'alice note' }]); // only the public one

    const alice = client(stack, stack.anonKey, await userJwt(stack.jwtSecret, ALICE, 'alice@example.test'));
    await alice.from('notes').insert({ body: 'second alice note' }).throwOnError();
    const mine = await alice.from('notes').select('body, owner_id').order('id');
    expect(mine.data).toEqual([
      { body: 'alice note', owner_id: ALICE },
      { body: 'second alice note', owner_id: ALICE },
    ]);

    const all = await client(stack, stack.serviceRoleKey).from('notes').select('id');
    expect(all.data).toHaveLength(3);
  });

  it('sets auth.uid(), auth.role() and auth.email() from the JWT for SQL functions', async () => {
    const alice = client(stack, stack.anonKey, await userJwt(stack.jwtSecret, ALICE, 'alice@example.test'));
    const { data } = await alice.rpc('whoami');
    expect(data).toEqual({
      uid: ALICE,
      role: 'authenticated',
      email: 'alice@example.test',
      current_user: 'authenticated',
    });
    const anon = await client(stack, stack.anonKey).rpc('whoami');
    expect(anon.data).toMatchObject({ uid: null, role: 'anon', current_user: 'anon' });
  });

  it('returns an RPC result', async () => {
    const { data, error } = await client(stack, stack.anonKey).rpc('add_numbers', { a: 2, b: 40 });
    expect(error).toBeNull();
    expect(data).toBe(42);
  });

  it("passes PostgREST's error JSON and statuses through unchanged", async () => {
    const alice = client(stack, stack.anonKey, await userJwt(stack.jwtSecret, ALICE, 'alice@example.test'));
    const tooLong = await alice.from('notes').insert({ body: 'x'.repeat(101) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.error).toMatchObject({ code: '23514', message: expect.stringContaining('notes_body_check') });
    expect(Object.keys(tooLong.error!).sort()).toEqual(['code', 'details', 'hint', 'message']);

    const forged = await alice
      .from('notes')
      .insert({ body: 'not mine', owner_id: '22222222-2222-2222-2222-222222222222' });
    expect(forged.status).toBe(403);
    expect(forged.error?.code).toBe('42501');

    const anonInsert = await client(stack, stack.anonKey).from('notes').insert({ body: 'anon' });
    expect(anonInsert.status).toBe(401);
    expect(anonInsert.error?.code).toBe('42501');

    const missing = await client(stack, stack.anonKey).from('no_such_table').select();
    expect(missing.status).toBe(404);
    expect(missing.error?.code).toBe('42P01');

    const dup = await client(stack, stack.serviceRoleKey)
      .from('notes')
      .insert({ owner_id: ALICE, body: 'dup', slug: 'public-alice' });
    expect(dup.status).toBe(409);
    expect(dup.error?.code).toBe('23505');
  });

  it('refuses a missing or unknown apikey with 401 like the hosted gateway', async () => {
    const none = await fetch(`${stack.apiUrl}/rest/v1/notes`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ message: 'No API key found in request' });

    const wrong = await fetch(`${stack.apiUrl}/rest/v1/notes`, { headers: { apikey: 'not-a-key' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ message: 'Invalid API key' });
  });

  it('maps the new-style publishable and secret keys to the anon and service_role JWTs', async () => {
    const pub = await fetch(`${stack.apiUrl}/rest/v1/notes?select=body`, { headers: { apikey: stack.publishableKey } });
    expect(await pub.json()).toEqual([{ body: 'alice note' }]);
    const secret = await fetch(`${stack.apiUrl}/rest/v1/notes?select=id`, { headers: { apikey: stack.secretKey } });
    expect((await secret.json()).length).toBeGreaterThanOrEqual(2);
  });

  it('answers CORS preflights with the headers supabase-js sends and exposes content-range', async () => {
    const res = await fetch(`${stack.apiUrl}/rest/v1/notes`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:3000',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'apikey, authorization, x-client-info, content-type, prefer',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const allowed = res.headers.get('access-control-allow-headers')!.split(/,\s*/);
    for (const h of [
      'apikey',
      'authorization',
      'x-client-info',
      'content-type',
      'prefer',
      'range',
      'accept-profile',
      'content-profile',
      'x-upsert',
      'x-supabase-api-version',
    ]) {
      expect(allowed).toContain(h);
    }
    const get = await fetch(`${stack.apiUrl}/rest/v1/notes?select=id`, {
      headers: { apikey: stack.anonKey, Origin: 'http://localhost:3000', Prefer: 'count=exact' },
    });
    expect(get.headers.get('access-control-expose-headers')).toMatch(/content-range/);
    expect(get.headers.get('access-control-expose-headers')).toMatch(/x-supabase-api-version/);
    expect(get.headers.get('content-range')).toMatch(/^0-0\/1$/);
  });

  it('routes /functions/v1 to the functions runtime, which 404s a name the project lacks as hosted does', async () => {
    const res = await fetch(`${stack.apiUrl}/functions/v1/hello`, { headers: { apikey: stack.anonKey } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 'NOT_FOUND', message: 'Requested function was not found' });
  });
});

describe('restarts and failures', () => {
  it('applies only new migrations on a second start of the same data dir, and stops every process; as root, also after the Postgres user got another uid', async () => {
    const project = tempProject();
    try {
      const first = await startStack({
        port: 0,
        dir: project.dataDir,
        projectDir: project.projectDir,
        ephemeral: true,
        log: () => undefined,
      });
      const pids = first.processes().map((p) => p.pid);
      expect(pids.length).toBe(2);
      await first.stop();
      for (const pid of pids) expect(isAlive(pid)).toBe(false);
      // As a rebuilt container that keeps the data dir but makes the user again would leave it.
      if (process.getuid?.() === 0) execFileSync('chown', ['-R', '4242:4242', clusterDir(project.dataDir)]);

      // The pause keeps the migration open while PostgREST, started early on a data dir that is there
      // already, loads its schema cache: once the start is ready, PostgREST must know the new
      // function (an RPC is looked up in the cache; a table is not, in PostgREST 12).
      project.addMigration(
        '20250102000000_tags.sql',
        `create table public.tags (name text primary key);
         create function public.tag_count() returns int language sql as $$ select count(*)::int from public.tags $$;
         select pg_sleep(1.5);`,
      );
      const second = await startStack({
        port: 0,
        dir: project.dataDir,
        projectDir: project.projectDir,
        ephemeral: true,
        log: () => undefined,
      });
      try {
        expect(second.created).toBe(false);
        expect(second.applied).toEqual(['20250102000000_tags.sql']);
        const rows = await client(second, second.serviceRoleKey).from('notes').select('id');
        expect(rows.data).toHaveLength(2); // the seed did not run again
        const tags = await client(second, second.serviceRoleKey).from('tags').select();
        expect(tags.error).toBeNull();
        const count = await client(second, second.serviceRoleKey).rpc('tag_count');
        expect(count.error).toBeNull();
        expect(count.data).toBe(0);
      } finally {
        await second.stop();
      }
    } finally {
      project.remove();
    }
  });

  it("starts a new data dir as a copy of a stopped stack's database (template): seeded, only newer migrations run, the template unchanged; refuses one still running", async () => {
    const project = tempProject();
    const options = (dir: string, template?: string) => ({
      port: 0,
      dir,
      projectDir: project.projectDir,
      template,
      ephemeral: true,
      log: () => undefined,
    });
    const copyDir = (n: number) => `${project.dataDir}-copy-${n}`; // beside it, removed with the project
    try {
      const original = await startStack(options(project.dataDir));
      const refused = await startStack(options(copyDir(1), project.dataDir)).then(
        () => null,
        (e: Error) => e,
      );
      expect(refused?.message).toMatch(/is in use: stop its stack/);
      expect(processesUsing(copyDir(1))).toEqual([]);
      await original.stop();

      // The pause keeps the migration open while PostgREST, started early on a data dir that is there
      // already, loads its schema cache: once the start is ready, PostgREST must know the new
      // function (an RPC is looked up in the cache; a table is not, in PostgREST 12).
      project.addMigration(
        '20250102000000_tags.sql',
        `create table public.tags (name text primary key);
         create function public.tag_count() returns int language sql as $$ select count(*)::int from public.tags $$;
         select pg_sleep(1.5);`,
      );
      for (const n of [1, 2]) {
        const copy = await startStack(options(copyDir(n), project.dataDir));
        try {
          expect(copy.created).toBe(true);
          expect(copy.applied).toEqual(['20250102000000_tags.sql']); // the template has the first two
          const service = client(copy, copy.serviceRoleKey);
          // The seed's two notes, once: the first copy's note went into its own database only.
          expect((await service.from('notes').select('body').order('id')).data).toEqual([
            { body: 'alice note' },
            { body: 'bob note' },
          ]);
          await service
            .from('notes')
            .insert({ owner_id: ALICE, body: `copy ${n} note` })
            .throwOnError();
          expect((await service.from('tags').select()).error).toBeNull();
        } finally {
          await copy.stop();
        }
      }
    } finally {
      project.remove();
    }
  });

  it('picks other ports when one it probed is taken before it listens (port 0), and reports the first setup', async () => {
    const project = tempProject();
    // Another process can listen on a probed port before we do; make the first server listen meet that.
    const listen = http.Server.prototype.listen;
    let refused = 0;
    http.Server.prototype.listen = function (this: http.Server, ...args: unknown[]) {
      if (refused++ > 0) return listen.apply(this, args as Parameters<typeof listen>);
      process.nextTick(() =>
        this.emit(
          'error',
          Object.assign(new Error('listen EADDRINUSE: address already in use'), { code: 'EADDRINUSE' }),
        ),
      );
      return this;
    } as typeof listen;
    try {
      const stack = await startStack({
        port: 0,
        dir: project.dataDir,
        projectDir: project.projectDir,
        ephemeral: true,
        log: () => undefined,
      });
      http.Server.prototype.listen = listen;
      try {
        expect(refused).toBeGreaterThan(1);
        expect(stack.created).toBe(true);
        expect(stack.applied.length).toBeGreaterThan(0);
        const rows = await client(stack, stack.serviceRoleKey).from('notes').select('id');
        expect(rows.data).toHaveLength(2); // seeded once, on the first attempt
        // One Postgres on the data dir: the first attempt's was stopped.
        expect(processesUsing(project.dataDir)).toEqual(
          stack
            .processes()
            .filter((p) => p.name === 'postgres')
            .map((p) => p.pid),
        );
      } finally {
        await stack.stop();
      }
    } finally {
      http.Server.prototype.listen = listen;
      project.remove();
    }
  });

  it('picks ports below the range outgoing connections take theirs from, so none can take one before we listen', async () => {
    const low = ephemeralLow();
    expect(low).toBeGreaterThan(20_004);
    const picked = await Promise.all(Array.from({ length: 20 }, () => freeBasePort()));
    for (const base of picked) expect(base + 4).toBeLessThan(low);
    expect(new Set(picked).size).toBeGreaterThan(1);
  });

  it('reports a PostgREST that cannot bind its port as EADDRINUSE, so the stack picks other ports', async () => {
    const project = tempProject();
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const err = await startPostgrest({
        dbUrl: 'postgres://authenticator@127.0.0.1:1/postgres',
        port: (busy.address() as net.AddressInfo).port,
        adminPort: await freePort(),
        jwtSecret: 'x'.repeat(40),
        jwks: JSON.stringify({ keys: [] }),
        config: loadConfig(project.projectDir),
        dataDir: project.dataDir,
      }).then(
        () => null,
        (e: NodeJS.ErrnoException) => e,
      );
      expect(err?.code).toBe('EADDRINUSE');
      expect(err?.message).toMatch(/Address (already )?in use/);
    } finally {
      busy.close();
      project.remove();
    }
  });

  it('fails start-up on a broken migration with its file name and line, and leaves nothing running', async () => {
    const project = tempProject();
    project.addMigration(
      '20250103000000_broken.sql',
      'create table public.ok (id int);\n\nselect * from nowhere_at_all;\n',
    );
    try {
      const err = await startStack({
        port: 0,
        dir: project.dataDir,
        projectDir: project.projectDir,
        ephemeral: true,
        log: () => undefined,
      }).then(
        () => null,
        (e) => e,
      );
      expect(err).toBeInstanceOf(MigrationError);
      expect(err.file).toBe('supabase/migrations/20250103000000_broken.sql');
      expect(err.line).toBe(3);
      expect(err.pgMessage).toMatch(/nowhere_at_all/);
      expect(processesUsing(project.dataDir)).toEqual([]);
    } finally {
      project.remove();
    }
  });
});
