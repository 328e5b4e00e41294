// The stack's supervisor: kill -9 of each child while the stack is in use. It says so in one line,
// restarts the child (1, 2, 5, then every 10 s), is serving again within 15 s, and every write it
// acknowledged is still there.
import { createClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { isAlive, spawnManaged } from '@tend/supabase-local';
import { supervise } from '@tend/supabase-local/testing';
import { clientFor, signInWithCode } from '../support/stack.ts';
import { waitFor } from '../../scripts/lib/wait.ts';
import os from 'node:os';
import path from 'node:path';

const lines: string[] = [];
// Durable settings, as under npm run dev: every write Postgres acknowledged must outlive its crash.
const stack = stackFixture({ fixture: 'functions-project', ephemeral: false, log: (l) => lines.push(l) });

beforeAll(async () => {
  await stack.sql('create table public.entries (id bigint primary key, body text not null)');
  await stack.sql('grant all on public.entries to service_role');
  await stack.sql(`notify pgrst, 'reload schema'`);
});

const service = () => createClient(stack.apiUrl, stack.serviceRoleKey, { auth: { persistSession: false } });
const pidOf = (name: string) => stack.processes().find((p) => p.name === name || p.name.startsWith(`${name} `))?.pid;

/** Writes a row through PostgREST every few ms until stopped; returns the ids it was told were written. */
function keepWriting(from: number) {
  const acknowledged: number[] = [];
  let running = true;
  const done = (async () => {
    const db = service();
    for (let id = from; running; id++) {
      const { error } = await db.from('entries').insert({ id, body: `entry ${id}` });
      if (!error) acknowledged.push(id);
      else await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    acknowledged,
    stop: async () => {
      running = false;
      await done;
      return acknowledged;
    },
  };
}

/** Waits until `ok` holds (an error counts as not yet); fails after 15 s, with what the supervisor said. */
function backWithin15s(ok: () => Promise<boolean>) {
  return waitFor(
    () => `the child back:\n${lines.filter((l) => l.startsWith('[supervisor]')).join('\n')}`,
    () => ok().catch(() => false),
    15_000,
  );
}

const restAnswers = async () => (await service().from('entries').select('id').limit(1)).status === 200;

async function expectAllThere(acknowledged: number[]) {
  const { rows } = await stack.sql('select id from public.entries where id = any($1::bigint[])', [acknowledged]);
  expect(rows.length).toBe(acknowledged.length);
}

describe('a crashed child', () => {
  it('postgrest: restarted after 1 s and serving within 15 s, with one line per crash and restart', async () => {
    const writer = keepWriting(1);
    await expect.poll(() => writer.acknowledged.length).toBeGreaterThan(5);
    const pid = pidOf('postgrest')!;
    process.kill(pid, 'SIGKILL');
    await backWithin15s(async () => pidOf('postgrest') !== pid && (await restAnswers()));
    const acknowledged = await writer.stop();
    await expectAllThere(acknowledged);
    const said = lines.filter((l) => l.startsWith('[supervisor] postgrest'));
    expect(said).toEqual([
      `[supervisor] postgrest (pid ${pid}) exited unexpectedly (SIGKILL); restarting in 1 s`,
      expect.stringMatching(/^\[supervisor\] postgrest restarted \(pid \d+\) in \d+ ms$/),
    ]);
  });

  it('postgres: restarted on its data, writes acknowledged before the crash all there, sign-in works again', async () => {
    const { email } = await signInWithCode(stack);
    const writer = keepWriting(100_000);
    await expect.poll(() => writer.acknowledged.length).toBeGreaterThan(5);
    const pid = pidOf('postgres')!;
    process.kill(pid, 'SIGKILL');
    await backWithin15s(async () => pidOf('postgres') !== pid && (await restAnswers()));
    await expect
      .poll(() => writer.acknowledged.length, { timeout: 15_000 })
      .toBeGreaterThan(writer.acknowledged.length);
    const acknowledged = await writer.stop();
    await expectAllThere(acknowledged);
    expect(lines).toContain(`[supervisor] postgres (pid ${pid}) exited unexpectedly (SIGKILL); restarting in 1 s`);
    expect(lines.some((l) => /^\[supervisor\] postgres restarted \(pid \d+\)/.test(l))).toBe(true);
    expect(isAlive(pid)).toBe(false);
    // Auth's pool reconnects: someone new signs in, and the earlier user is still there.
    expect((await signInWithCode(stack)).session.user.email).toBeTruthy();
    expect((await stack.sql('select 1 from auth.users where email = $1', [email])).rowCount).toBe(1);
  });

  it('backs off along 1, 2, 5, 10 s while a child keeps crashing soon after its restart', async () => {
    const before = lines.length;
    const first = pidOf('postgrest')!;
    process.kill(first, 'SIGKILL');
    await backWithin15s(async () => pidOf('postgrest') !== first && (await restAnswers()));
    const second = pidOf('postgrest')!;
    process.kill(second, 'SIGKILL');
    await backWithin15s(async () => pidOf('postgrest') !== second && (await restAnswers()));
    const delays = lines
      .slice(before)
      .filter((l) => l.includes('exited unexpectedly'))
      .map((l) => Number(/restarting in ([\d.]+) s$/.exec(l)?.[1]));
    expect(delays).toHaveLength(2);
    // The first test's restart was under 30 s ago, so this streak goes on from there.
    const steps = [1, 2, 5, 10];
    expect(delays[1]).toBe(steps[Math.min(steps.indexOf(delays[0]) + 1, 3)]);
    expect(delays[0]).toBeGreaterThan(1);
  });

  it('a function worker (deno): the next call starts another', async () => {
    const call = () => clientFor(stack).functions.invoke('echo', { body: { n: 1 } });
    expect((await call()).error).toBeNull();
    const pid = pidOf('deno')!;
    process.kill(pid, 'SIGKILL');
    await backWithin15s(async () => (await call()).error === null);
    expect(pidOf('deno')).not.toBe(pid);
  });

  it('records the restarted children in the status file, so a later start reaps them', async () => {
    const { readStatus } = await import('@tend/supabase-local');
    const recorded = readStatus(stack.dir)!.processes.map((p) => p.pid);
    expect(recorded).toContain(pidOf('postgres'));
    expect(recorded).toContain(pidOf('postgrest'));
  });
});

describe('supervise', () => {
  it('gives up after the set number of failed restarts, and says why', async () => {
    const logFile = path.join(os.tmpdir(), `tend-supervise-${process.pid}.log`);
    const child = () => spawnManaged('sleeper', process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { logFile });
    const first = child();
    const said: string[] = [];
    let gaveUp = '';
    let attempts = 0;
    const supervised = supervise({
      name: 'sleeper',
      first: { child: first, stop: async () => void first.child.kill() },
      restart: async () => {
        attempts++;
        throw new Error('port taken\nmore detail');
      },
      log: (l) => said.push(l),
      onGiveUp: (m) => (gaveUp = m),
      delays: [10, 20, 50],
      giveUpAfter: 3,
    });
    first.child.kill('SIGKILL');
    await expect.poll(() => gaveUp).toBe('sleeper could not be restarted (3 attempts): port taken');
    expect(attempts).toBe(3);
    expect(said).toEqual([
      `[supervisor] sleeper (pid ${first.child.pid}) exited unexpectedly (SIGKILL); restarting in 0.01 s`,
      '[supervisor] sleeper did not start again: port taken; restarting in 0.02 s',
      '[supervisor] sleeper did not start again: port taken; restarting in 0.05 s',
      '[supervisor] sleeper could not be restarted (3 attempts): port taken',
    ]);
    await supervised.stop();
  });
});
