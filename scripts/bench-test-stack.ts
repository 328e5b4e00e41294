// npm run bench:test-stack — what a test file waits for before its first test: a stack of Tend's
// project started from nothing (initdb, every migration, the seed) against one started from a
// copy of a template (startStack's `template`, docs/decisions/033-test-database-template.md), in
// alternating rounds; beside them, what `CREATE DATABASE … TEMPLATE` takes in one shared cluster
// (the database alone: no service runs against it). BENCH_ROUNDS (default 5).
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack, type StackOptions } from '@tend/supabase-local';
import { median, range, superuser } from './lib/bench.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/**
 * CPU time (ms) this process and every child it has waited for have used: Postgres, PostgREST and
 * initdb are children the stack reaps, so once a stack has stopped, its whole cost is in here.
 * Less moved by the other work on a shared machine than wall time (Linux; 0 elsewhere).
 */
function cpuSoFar(): number {
  if (process.platform !== 'linux') return 0;
  const raw = readFileSync('/proc/self/stat', 'utf8');
  const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10; // utime stime cutime cstime, USER_HZ 100
}

const root = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-test-stack-'));
chmodSync(root, 0o755); // as root, Postgres runs as an unprivileged user that must reach it
const options = (name: string, extra: Partial<StackOptions> = {}): StackOptions => ({
  port: 0,
  dir: path.join(root, name),
  ephemeral: true,
  log: () => undefined,
  ...extra,
});

/** Wall time to a ready stack, and the CPU of its start and stop. */
async function timeStart(opts: StackOptions): Promise<{ ready: number; cpu: number; stack: Stack }> {
  const cpu0 = cpuSoFar();
  const t0 = performance.now();
  const stack = await startStack(opts);
  const ready = performance.now() - t0;
  await stack.stop();
  return { ready, cpu: cpuSoFar() - cpu0, stack };
}

try {
  const made = await timeStart(options('template'));
  const template = made.stack.dir;
  const fresh = { ready: [] as number[], cpu: [] as number[] };
  const copied = { ready: [] as number[], cpu: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    // Alternating, so drift in the machine's load falls on both alike.
    for (const [into, extra] of [
      [fresh, {}],
      [copied, { template }],
    ] as const) {
      const { ready, cpu } = await timeStart(options(`${into === fresh ? 'fresh' : 'copy'}-${i}`, extra));
      into.ready.push(ready);
      into.cpu.push(cpu);
      rmSync(path.join(root, `${into === fresh ? 'fresh' : 'copy'}-${i}`), { recursive: true, force: true });
    }
  }

  const shared = await startStack(options('shared', { template }));
  const createDb: number[] = [];
  try {
    await superuser(shared, async (c) => {
      // A template database must have no sessions, and the stack's services hold some on
      // `postgres`: set a copy of it aside as the template, as a shared cluster would keep one.
      for (let attempt = 1; ; attempt++) {
        await c.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = 'postgres' and pid <> pg_backend_pid()`,
        );
        try {
          await c.query('create database tend_template template postgres');
          break;
        } catch (err) {
          if (attempt === 20) throw err; // the services' pools reconnect at once; it takes a few tries
        }
      }
      for (let i = 0; i < ROUNDS; i++) {
        const t0 = performance.now();
        // file_copy: the faster of the two strategies here (wal_log writes every page to the WAL).
        await c.query(`create database file_${i} template tend_template strategy file_copy`);
        createDb.push(performance.now() - t0);
      }
    });
  } finally {
    await shared.stop();
  }

  const s = (ms: number) => (ms / 1000).toFixed(2);
  console.log(`bench:test-stack — a stack of Tend's project, ${ROUNDS} rounds (load ${os.loadavg()[0].toFixed(1)})`);
  console.table([
    {
      start: 'initdb + migrations + seed (before)',
      'ready s (median)': s(median(fresh.ready)),
      'ready s (range)': range(fresh.ready.map((ms) => ms / 1000)),
      'CPU s, start+stop (median)': s(median(fresh.cpu)),
    },
    {
      start: 'copy of the template (after)',
      'ready s (median)': s(median(copied.ready)),
      'ready s (range)': range(copied.ready.map((ms) => ms / 1000)),
      'CPU s, start+stop (median)': s(median(copied.cpu)),
    },
    {
      start: 'making the template (once per project per run)',
      'ready s (median)': s(made.ready),
      'ready s (range)': '',
      'CPU s, start+stop (median)': s(made.cpu),
    },
    {
      start: 'CREATE DATABASE … TEMPLATE, database only',
      'ready s (median)': s(median(createDb)),
      'ready s (range)': range(createDb.map((ms) => ms / 1000)),
      'CPU s, start+stop (median)': '(in the shared cluster)',
    },
  ]);
  console.log(
    `ratio before/after: ready ${(median(fresh.ready) / median(copied.ready)).toFixed(2)}×, CPU ${(median(fresh.cpu) / median(copied.cpu)).toFixed(2)}×`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
