// A Postgres crash under load (issue 25 item 1): kill -9 of the postmaster while 8 clients upload
// 150 KB files, others read and write through PostgREST, call Auth, listen on realtime, and pg_net
// and pg_cron work. The stack process lives on; a request caught by the crash fails in its service's
// own shape; the next ones work once the supervisor has Postgres back; every acknowledged upload is
// readable with its row and nothing half-written is visible; realtime subscribers hear changes again.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createClient } from '@supabase/supabase-js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeBasePort, PROJECT_DIR, readStatus, STACK_CLI, type StackInfo } from '@tend/supabase-local';
import { tempProject } from '../../scripts/lib/project.ts';
import { waitForMail } from '../../scripts/lib/mail.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

// The stack in a process of its own, as `npm run dev` and `npm run stack -- start` run it (durable
// settings: a commit Postgres acknowledged must outlive its crash), so that an error nobody
// handles ends that process, as it would a developer's.
const project = tempProject('storage-project');
let child: ChildProcess;
let output = '';
let stack: StackInfo;
let db: pg.Pool;
const lines = () => output.split('\n');

beforeAll(async () => {
  for (let attempt = 1; ; attempt++) {
    const port = await freeBasePort();
    output = '';
    child = spawn(
      process.execPath,
      [STACK_CLI, 'start', '--port', String(port), '--dir', project.dataDir, '--project', project.projectDir],
      { cwd: PROJECT_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    await waitFor('the stack ready or gone', async () => /is ready/.test(output) || child.exitCode !== null, 60_000);
    if (child.exitCode === null) break;
    if (!/^Port \d+ /m.test(output) || attempt === 3) throw new Error(`the stack did not start:\n${output}`);
  }
  stack = readStatus(project.dataDir)!;
  db = new pg.Pool({ connectionString: stack.dbUrl.replace('//postgres:', '//supabase_admin:'), max: 2 });
  db.on('error', () => undefined); // the test's own connections die with Postgres too
}, 90_000);
afterAll(async () => {
  await db?.end();
  child?.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  project.remove();
});

// pg_net's target: counts the requests it gets, by path.
const hits = new Map<string, number>();
const target = http.createServer((req, res) => {
  hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
  res.end('ok');
});

beforeAll(async () => {
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const sql = (text: string) => db.query(text);
  await sql('create table public.entries (id bigint primary key, body text not null)');
  await sql('grant all on public.entries to service_role');
  await sql('alter publication supabase_realtime add table public.entries');
  await sql('create extension if not exists pg_net with schema extensions');
  await sql('create extension if not exists pg_cron with schema pg_catalog');
  await sql('create table public.ticks (id bigint generated always as identity primary key)');
  await sql(`select cron.schedule('tick', '1 seconds', 'insert into public.ticks default values')`);
  await sql(`notify pgrst, 'reload schema'`);
});
afterAll(() => new Promise<void>((r) => target.close(() => r())));

const SIZE = 150 * 1024;
/** An upload's bytes, derived from its key: what was sent can be checked against what is stored. */
const bytesOf = (key: string) => {
  const seed = createHash('sha256').update(key).digest();
  return Buffer.concat(Array.from({ length: SIZE / seed.length }, () => seed));
};

const service = () => createClient(stack.apiUrl, stack.serviceRoleKey, { auth: { persistSession: false } });
const asService = { apikey: '', authorization: '' };
const pidOf = (name: string) => readStatus(project.dataDir)?.processes.find((p) => p.name === name)?.pid;

interface Outcome {
  id: string;
  status: number;
  body: unknown;
}

/** Calls `call(n)` for n = 0, 1, 2… until stopped, keeping what each answered. */
function keepCalling(call: (n: number) => Promise<Outcome>) {
  const outcomes: Outcome[] = [];
  let running = true;
  const done = (async () => {
    for (let n = 0; running; n++) {
      outcomes.push(await call(n).catch((e) => ({ id: String(n), status: 0, body: String(e) })));
      if (outcomes.at(-1)!.status >= 300 || outcomes.at(-1)!.status === 0) await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    outcomes,
    ok: () => outcomes.filter((o) => o.status >= 200 && o.status < 300),
    okSince: (i: number) => outcomes.slice(i).filter((o) => o.status >= 200 && o.status < 300).length,
    stop: async () => {
      running = false;
      await done;
      return outcomes;
    },
  };
}

async function answer(id: string, res: Response): Promise<Outcome> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { id, status: res.status, body };
}

describe('kill -9 of Postgres in the middle of a burst', () => {
  it('fails only the requests it caught, in their services’ shapes, and loses nothing acknowledged', async () => {
    Object.assign(asService, { apikey: stack.serviceRoleKey, authorization: `Bearer ${stack.serviceRoleKey}` });
    const email = `crash.${Date.now()}@example.test`;
    const auth0 = createClient(stack.apiUrl, stack.anonKey, { auth: { persistSession: false } });
    await auth0.auth.signInWithOtp({ email });
    const { code } = await waitForMail(stack.mailUrl, email);
    const { session } = (await auth0.auth.verifyOtp({ email, token: code, type: 'email' })).data;
    if (!session) throw new Error('no session');
    const heard: number[] = [];
    const listener = service()
      .channel('entries')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'entries' }, (p) =>
        heard.push((p.new as { id: number }).id),
      );
    await new Promise<void>((r) => listener.subscribe((s) => s === 'SUBSCRIBED' && r()));
    // A new row each try: one inserted before the subscription reached the database is never heard, and
    // inserting its id again only fails on the key.
    let warmUp = 0;
    await waitFor('the first change heard', async () => {
      await service().from('entries').insert({ id: --warmUp, body: 'warm-up' });
      return heard.some((id) => id < 0);
    });

    const uploaders = Array.from({ length: 8 }, (_, client) =>
      keepCalling(async (n) => {
        const key = `c${client}/f${n}.bin`;
        const res = await fetch(`${stack.apiUrl}/storage/v1/object/archive/${key}`, {
          method: 'POST',
          headers: { ...asService, 'content-type': 'application/octet-stream' },
          body: bytesOf(key),
        });
        return answer(key, res);
      }),
    );
    let nextId = 0;
    const writer = keepCalling(async () => {
      const id = ++nextId;
      const res = await fetch(`${stack.apiUrl}/rest/v1/entries`, {
        method: 'POST',
        headers: { ...asService, 'content-type': 'application/json', prefer: 'return=minimal' },
        body: JSON.stringify({ id, body: `entry ${id}` }),
      });
      return answer(String(id), res);
    });
    const reader = keepCalling(async (n) =>
      answer(String(n), await fetch(`${stack.apiUrl}/rest/v1/entries?select=id&limit=5`, { headers: asService })),
    );
    const auth = keepCalling(async (n) =>
      n % 2
        ? answer(
            'user',
            await fetch(`${stack.apiUrl}/auth/v1/user`, {
              headers: { apikey: stack.anonKey, authorization: `Bearer ${session.access_token}` },
            }),
          )
        : answer(
            'otp',
            await fetch(`${stack.apiUrl}/auth/v1/otp`, {
              method: 'POST',
              headers: { apikey: stack.anonKey, 'content-type': 'application/json' },
              body: JSON.stringify({ email: `crash${n}.${Date.now()}@example.test` }),
            }),
          ),
    );
    const netUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const queued: { id: string; path: string }[] = [];
    const net = keepCalling(async (n) => {
      const { rows } = await db.query('select net.http_get($1) as id', [`${netUrl}/n${n}`]);
      queued.push({ id: String(rows[0].id), path: `/n${n}` });
      return { id: String(n), status: 200, body: null };
    });
    const all = [...uploaders, writer, reader, auth, net];

    await waitFor('16 uploads stored before the crash', async () => uploaders.flatMap((u) => u.ok()).length >= 16);
    const pid = pidOf('postgres')!;
    const marks = all.map((c) => c.outcomes.length);
    const ticksBefore = Number((await db.query('select count(*) from public.ticks')).rows[0].count);
    process.kill(pid, 'SIGKILL');
    await waitFor(
      'Postgres restarted',
      async () => {
        if (child.exitCode !== null) throw new Error(`the stack exited (${child.exitCode}):\n${output.slice(-1500)}`);
        return lines().some((l) => l.startsWith('[supervisor] postgres restarted'));
      },
      30_000,
    );
    // pg_net's queue and responses are unlogged tables, as upstream's: a crash empties them, on hosted
    // too. What is queued from here on is kept.
    const queuedBefore = queued.length;
    // Every kind of call works again: three successes each after the crash.
    await waitFor('every burst answering again', async () => all.every((c, i) => c.okSince(marks[i]!) >= 3), 30_000);
    await Promise.all(all.map((c) => c.stop()));
    // The stack process lived through it.
    expect(child.exitCode, output).toBeNull();
    expect(output).not.toMatch(/Emitted 'error' event|Unhandled|uncaught/i);

    // The crash was felt: some requests failed, each in its service's own shape (a 500, as
    // storage-api and GoTrue answer a database they lost; PostgREST's own answers are its business).
    const failedUploads = uploaders.flatMap((u) => u.outcomes).filter((o) => o.status !== 200);
    for (const o of failedUploads)
      expect(o, o.id).toMatchObject({
        status: 500,
        body: {
          statusCode: '500',
          code: expect.stringMatching(/^(DatabaseError|InternalError)$/),
          error: expect.any(String),
          message: expect.any(String),
        },
      });
    for (const o of auth.outcomes.filter((o) => o.status >= 300))
      expect(o).toMatchObject({ status: 500, body: { code: 500, error_code: 'unexpected_failure' } });
    expect([...failedUploads, ...auth.outcomes.filter((o) => o.status >= 300)].length).toBeGreaterThan(0);

    // Every acknowledged upload is there, whole, with its row.
    const stored = uploaders.flatMap((u) => u.ok()).map((o) => o.id);
    const { rows } = await db.query(`select name from storage.objects where bucket_id = 'archive'`);
    const names = new Set(rows.map((r) => r.name as string));
    for (const key of stored) expect(names.has(key), key).toBe(true);
    // And every object visible (acknowledged or not) is whole: no row without its file, no file cut short.
    for (const name of names) {
      const { data, error } = await service().storage.from('archive').download(name);
      expect(error, name).toBeNull();
      expect(Buffer.from(await data!.arrayBuffer()).equals(bytesOf(name)), name).toBe(true);
    }
    // No temporary file left, and (once unknown commits are settled) one file per row.
    const dataDir = project.dataDir;
    expect(readdirSync(path.join(dataDir, 'storage-uploads'))).toEqual([]);
    const filesOnDisk = () =>
      readdirSync(path.join(dataDir, 'storage', 'archive'), { recursive: true, withFileTypes: true }).filter((f) =>
        f.isFile(),
      ).length;
    await waitFor('one file per object row', async () => filesOnDisk() === names.size);
    expect(existsSync(path.join(dataDir, 'storage', 'archive'))).toBe(true);

    // REST writes acknowledged before, during and after the crash are all there.
    const written = writer.ok().map((o) => Number(o.id));
    const kept = await db.query('select id from public.entries where id = any($1::bigint[])', [written]);
    expect(kept.rowCount).toBe(written.length);

    // Realtime: the subscriber rejoins by itself and hears new changes. A change made before the
    // rejoin completes is not delivered (as on hosted), so each try inserts a new row and waits
    // for any row inserted after the crash to be heard.
    const after: number[] = [];
    let tries = 0;
    await waitFor(
      'a change heard after the crash',
      async () => {
        const id = 1_000_000 + tries++;
        const { error } = await service().from('entries').insert({ id, body: 'after' });
        if (!error) after.push(id);
        return after.some((a) => heard.includes(a));
      },
      30_000,
    );
    await service().removeAllChannels();

    // pg_net: every request queued since Postgres came back is sent and answered.
    const since = queued.slice(queuedBefore);
    expect(since.length).toBeGreaterThanOrEqual(3);
    await waitFor(
      'every request queued since the restart answered',
      async () => {
        const answered = await db.query(
          'select count(*) from net._http_response where id = any($1::bigint[]) and status_code = 200',
          [since.map((q) => q.id)],
        );
        return Number(answered.rows[0].count) === since.length;
      },
      30_000,
    );
    for (const q of since) expect(hits.get(q.path), q.path).toBe(1);
    // pg_cron ticks again, and no run the crash cut short stays "running".
    await waitFor('cron running again', async () => {
      const { rows: t } = await db.query('select count(*) from public.ticks');
      return Number(t[0].count) > ticksBefore + 2;
    });
    await waitFor('no run left running from before the crash', async () => {
      const { rows: r } = await db.query(
        `select count(*) from cron.job_run_details where status = 'running' and start_time < pg_postmaster_start_time()`,
      );
      return Number(r[0].count) === 0;
    });
  }, 120_000);
});
