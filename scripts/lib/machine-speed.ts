// The machine's speed at the time of a run: the CPU one fixed piece of work takes in this process and in a
// Postgres backend, median of 5. This 2-core machine's speed drifts between hours by up to 2× (the same 1 M seed
// took 75 s of rows CPU at one hour and 148 s at another, docs/benchmarks.md), in CPU time as much as in
// wall time, so absolute figures of runs at different hours compare only beside this line: a run whose
// probes read higher ran on a slower machine. Ratios within one run need none of it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { median } from './bench.ts';

const ROUNDS = 5;
const DOC = JSON.stringify(
  Array.from({ length: 2000 }, (_, i) => ({
    id: i,
    subject: `ticket ${i}`,
    tags: ['billing', 'vip'],
    body: 'x'.repeat(200),
  })),
);

/** JSON read and written, a hash and an integer loop: the kinds of work the app and the bench do. */
function nodeWork() {
  let sum = 0;
  for (let k = 0; k < 10; k++) {
    sum += JSON.stringify(JSON.parse(DOC)).length;
    sum += createHash('sha256').update(DOC).digest()[0]!;
    for (let i = 0; i < 2_000_000; i++) sum += i % 7;
  }
  return sum;
}

function nodeProbeMs() {
  nodeWork(); // compiled before it is timed
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.cpuUsage();
    nodeWork();
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

/** user + system ms of one process (Linux; 10 ms ticks). */
function processCpuMs(pid: number) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

async function postgresProbeMs(client: pg.Client) {
  const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid as number;
  const work = 'select sum(hashtext(i::text)) from generate_series(1, 300000) i';
  await client.query(work);
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const before = processCpuMs(pid);
    await client.query(work);
    times.push(processCpuMs(pid) - before);
  }
  return median(times);
}

/** One line for a benchmark's output: both probes' CPU ms (lower: a faster machine at that moment). */
export async function machineSpeed(client: pg.Client): Promise<string> {
  if (process.platform !== 'linux') return 'machine speed: not measured (Linux only)';
  const node = nodeProbeMs();
  const postgres = await postgresProbeMs(client);
  return `machine speed (CPU ms of a fixed work, median of ${ROUNDS}; lower is faster): Node ${node.toFixed(0)}, Postgres ${postgres.toFixed(0)}`;
}
