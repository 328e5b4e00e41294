// npm run bench:seed — seed:bulk (scripts/seed-bulk.ts) timed: BENCH_TICKETS (default 100 000) tickets
// into a fresh stack (a copy of one template, docs/decisions/033-test-database-template.md) per run,
// BENCH_ROUNDS (default 3) rounds. With BENCH_BASELINE=<another checkout> that checkout's seed:bulk runs
// too, into a stack of its own migrations, alternating with this one's in every round (which goes first alternates as well), so drift in the
// machine's load falls on both alike; the table gives each one's medians and the ratio this ÷ baseline
// with its range over the rounds. Wall time and CPU: the CPU of every Postgres process (the seeding
// sessions, the WAL writer, the checkpointer, realtime's decoding) and of the seed's own process.
// Also: the table sizes and row counts after each run, which must agree between the two.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_DIR, startStack, type Stack, type StackOptions } from '@tend/supabase-local';
import { BASELINE, cpuMs, median, range, superuser } from './lib/bench.ts';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const root = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-seed-'));
chmodSync(root, 0o755); // as root, Postgres runs as an unprivileged user that must reach it
const options = (name: string, extra: Partial<StackOptions> = {}): StackOptions => ({
  port: 0,
  dir: path.join(root, name),
  ephemeral: true,
  log: () => undefined,
  ...extra,
});

/**
 * CPU seconds of the children this process has waited for (Linux): the seed's process once it has
 * exited (Postgres, a child too, is only waited for when its stack stops).
 */
function childrenCpu(): number {
  const raw = readFileSync('/proc/self/stat', 'utf8');
  const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100; // cutime cstime, USER_HZ 100
}

interface Seeded {
  wall: number;
  /** CPU seconds of every Postgres process, and of the seed's own process. */
  pgCpu: number;
  nodeCpu: number;
  /** Phases the seed printed ("Rows 7.1 s (CPU 6.9 s)" …), in seconds. */
  phases: Record<string, number>;
  shape: string;
}

/**
 * CPU ms of a Postgres cluster: its processes running now (the postmaster and its descendants) and the
 * ones that have exited (a session's backend when its client disconnects), which the postmaster has reaped.
 */
function clusterCpuMs(postmaster: number): number {
  const raw = readFileSync(`/proc/${postmaster}/stat`, 'utf8');
  const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return cpuMs([postmaster])! + (Number(f[13]) + Number(f[14])) * 10; // + cutime cstime, USER_HZ 100
}

/** Runs `projectDir`'s seed:bulk against `stack` (its output passed through) and times it. */
async function seed(stack: Stack, projectDir: string): Promise<Seeded> {
  const postmaster = await superuser(stack, async (c) =>
    Number((await c.query(`select split_part(pg_read_file('postmaster.pid'), E'\\n', 1) as pid`)).rows[0].pid),
  );
  const pg0 = clusterCpuMs(postmaster);
  const node0 = childrenCpu();
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/seed-bulk.ts',
      '--workspace',
      'acme',
      '--tickets',
      String(TICKETS),
      '--db-url',
      stack.dbUrl,
    ],
    { cwd: projectDir, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d;
    process.stdout.write(d);
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const nodeCpu = childrenCpu() - node0;
  const wall = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`seed:bulk in ${projectDir} failed (${code}):\n${out}`);
  const pgCpu = (clusterCpuMs(postmaster) - pg0) / 1000;
  const phases: Record<string, number> = {};
  for (const [, name, s, cpu] of out.matchAll(
    /(Rows|indexes built|foreign keys checked) ([\d.]+) s(?: \(CPU ([\d.]+) s\))?/g,
  )) {
    phases[name!] = Number(s);
    if (cpu) phases[`${name} CPU`] = Number(cpu);
  }
  const shape = await superuser(stack, async (c) => {
    const { rows } = await c.query(
      `select (select count(*) from tickets) tickets, (select count(*) from messages) messages,
              (select count(*) from messages where kind = 'note') notes,
              (select count(*) from messages where kind = 'note' and body like '%warehouse%') warehouse_notes,
              (select count(*) from ticket_events) events,
              (select string_agg(status || ' ' || n, ', ' order by status) from (select status, count(*) n from tickets group by 1) s) statuses,
              (select count(*) from tickets where search @@ 'espresso'::tsquery) espresso`,
    );
    return JSON.stringify(rows[0]);
  });
  console.log(`\n${shape}`);
  return { wall, pgCpu, nodeCpu, phases, shape };
}

try {
  const versions = [{ name: 'this', dir: PROJECT_DIR, runs: [] as Seeded[] }];
  if (BASELINE) versions.push({ name: 'baseline', dir: BASELINE, runs: [] });
  // Each version seeds its own schema (its migrations: triggers and indexes on the seed's path are its own).
  const templates = new Map<string, string>();
  for (const v of versions) {
    const template = await startStack(options(`template-${v.name}`, { projectDir: v.dir }));
    await template.stop();
    templates.set(v.name, template.dir);
  }
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 ? [...versions].reverse() : versions;
    for (const v of order) {
      const name = `${v.name}-${i}`;
      const stack = await startStack(options(name, { projectDir: v.dir, template: templates.get(v.name)! }));
      try {
        console.log(`\nround ${i + 1}: ${v.name} (load ${os.loadavg()[0].toFixed(1)})`);
        v.runs.push(await seed(stack, v.dir));
      } finally {
        await stack.stop();
        rmSync(path.join(root, name), { recursive: true, force: true });
      }
    }
  }

  const figures: [string, (s: Seeded) => number | undefined][] = [
    ['wall s', (s) => s.wall],
    ['Postgres CPU s', (s) => s.pgCpu],
    ['seed process CPU s', (s) => s.nodeCpu],
    ['rows s', (s) => s.phases.Rows],
    ['rows CPU s (seeding sessions)', (s) => s.phases['Rows CPU']],
    ['indexes s', (s) => s.phases['indexes built']],
    ['foreign keys s', (s) => s.phases['foreign keys checked']],
  ];
  console.log(
    `\nbench:seed — ${TICKETS} tickets, ${ROUNDS} rounds (load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  console.table(
    figures.map(([label, of]) => {
      const row: Record<string, string> = { figure: label };
      for (const v of versions) {
        const xs = v.runs.map(of).filter((x): x is number => x !== undefined);
        row[`${v.name} median`] = xs.length ? median(xs).toFixed(1) : '';
        row[`${v.name} range`] = range(xs, 1);
      }
      if (BASELINE) {
        const ratios = versions[0]!.runs
          .map((r, i) => {
            const a = of(r);
            const b = of(versions[1]!.runs[i]!);
            return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
          })
          .filter((x): x is number => x !== undefined);
        row['this ÷ baseline'] = ratios.length ? median(ratios).toFixed(2) : '';
        row['ratio range'] = range(ratios);
      }
      return row;
    }),
  );
  for (const v of versions) console.log(`${v.name}: ${[...new Set(v.runs.map((r) => r.shape))].join(' | ')}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
