// npm run bench:stack — how long `npm run stack -- start` takes to "ready", where that time goes, the
// CPU it costs and the stack's memory. Each start is the real CLI in a fresh process, timed from spawn
// to the ready banner, the way a developer experiences it:
//   first start  a new data dir (the machine's caches warm, as for a second project or a new --dir)
//   cold start   a new data dir and empty caches (the very first start after `npm install`)
//   warm start   the data dir of an earlier start
// Rounds alternate between this checkout and BENCH_BASELINE's (scripts/lib/bench.ts), so both see the
// same load; on the shared machine wall times drift, CPU time (every process of the start, summed)
// much less. BENCH_ROUNDS (default 5) rounds of one cold, one first and BENCH_WARM (default 2) warm starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freeBasePort, PROJECT_DIR } from '@tend/supabase-local';
import { BASELINE, median, range } from './lib/bench.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARM = Number(process.env.BENCH_WARM ?? 2);

interface Build {
  label: string;
  checkout: string;
}

interface Start {
  ms: number;
  /** CPU (ms) of every process of the start, by part. */
  cpu: Record<string, number>;
  /** The stack's own split (stack.json), where the build records one. */
  timings: Record<string, number>;
  child: ChildProcess;
}

/** How a checkout runs its CLI: its package.json's `stack` script, without npm around it. */
function cliArgs(checkout: string): string[] {
  const script: string = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')).scripts.stack;
  return script.split(/\s+/).slice(1);
}

interface Proc {
  ppid: number;
  comm: string;
  /** utime + stime, and the same of the children it has waited for, in ms. */
  own: number;
  reaped: number;
}

function processes(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const raw = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
      // After "pid (comm) ": state ppid … utime stime cutime cstime (fields 14–17); USER_HZ is 100.
      const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), {
        ppid: Number(f[1]),
        comm,
        own: (Number(f[11]) + Number(f[12])) * 10,
        reaped: (Number(f[13]) + Number(f[14])) * 10,
      });
    } catch {
      /* the process ended */
    }
  }
  return out;
}

/**
 * CPU so far of `root` and its descendants, by part: the stack's Node process, the programs it ran
 * and waited for (initdb, cp…), Postgres (the postmaster and its backends, ended ones included),
 * PostgREST, others.
 */
function cpuByPart(root: number): Record<string, number> {
  const procs = processes();
  const part = (pid: number): string => {
    if (pid === root) return 'node';
    const { comm } = procs.get(pid)!;
    if (comm === 'postgres' || comm.startsWith('postgres')) return 'postgres';
    if (comm === 'postgrest') return 'postgrest';
    return 'other';
  };
  const inTree = (pid: number) => {
    for (let p = pid; p > 1; p = procs.get(p)?.ppid ?? 0) if (p === root) return true;
    return false;
  };
  const cpu: Record<string, number> = { node: 0, 'ran and ended': 0, postgres: 0, postgrest: 0, other: 0 };
  for (const [pid, p] of procs) {
    if (!inTree(pid)) continue;
    cpu[part(pid)] += p.own;
    // Whoever reaps a process gets its CPU: the postmaster its backends', Node the programs it waited for.
    cpu[pid === root ? 'ran and ended' : part(pid)] += p.reaped;
  }
  return cpu;
}

function descendants(root: number): number[] {
  const procs = processes();
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, p] of procs) if (p.ppid === out[i]) out.push(pid);
  return out;
}

/** Proportional set size (shared pages split between processes), summed over the tree, in MB. */
function pssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* gone */
    }
  }
  return kb / 1024;
}

/**
 * One start of `build`'s CLI on `dir`. A port probed free can be taken by another process before the
 * stack binds it (other sessions' tests run here too): then `undo` puts things back as they were
 * before this start and it runs again on other ports, at most three times.
 */
async function start(build: Build, dir: string, env: Record<string, string>, undo = () => {}): Promise<Start> {
  for (let attempt = 1; ; attempt++) {
    const port = await freeBasePort();
    const t0 = performance.now();
    const child = spawn(process.execPath, [...cliArgs(build.checkout), 'start', '--dir', dir, '--port', String(port)], {
      cwd: build.checkout,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    const ready = await new Promise<boolean>((resolve) => {
      child.stdout!.on('data', (c) => {
        out += c;
        if (out.includes('is ready')) resolve(true);
      });
      child.stderr!.on('data', (c) => (out += c));
      child.on('exit', () => resolve(false));
    });
    if (!ready) {
      if (/already in use/.test(out) && attempt < 3) {
        undo();
        continue;
      }
      throw new Error(`${build.label}: the stack exited:\n${out}`);
    }
    const ms = performance.now() - t0;
    const cpu = cpuByPart(child.pid!);
    const timings = JSON.parse(readFileSync(path.join(dir, 'stack.json'), 'utf8')).timings ?? {};
    return { ms, cpu, timings, child };
  }
}

async function stop(child: ChildProcess) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

interface Results {
  cold: Start[];
  first: Start[];
  warm: Start[];
  pss: number[];
}

const total = (s: Start) => Object.values(s.cpu).reduce((a, b) => a + b, 0);

/** A line per start on stderr, so a long run shows where it is (and what it had, if it stops). */
const progress = (round: number, build: Build, kind: string, s: Start) =>
  console.error(
    `round ${round + 1}, ${build.label}, ${kind}: ${(s.ms / 1000).toFixed(2)} s, CPU ${(total(s) / 1000).toFixed(2)} s, load ${os.loadavg()[0].toFixed(1)}`,
  );

async function main() {
  const builds: Build[] = [{ label: 'this checkout', checkout: PROJECT_DIR }];
  if (BASELINE) builds.push({ label: 'baseline', checkout: BASELINE });
  const root = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-stack-'));
  chmodSync(root, 0o755); // Postgres runs as an unprivileged user when we are root
  const results = new Map<Build, Results>(builds.map((b) => [b, { cold: [], first: [], warm: [], pss: [] }]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which build goes first, so neither always meets the machine in the same state.
      for (const build of round % 2 ? [...builds].reverse() : builds) {
        const r = results.get(build)!;
        const dir = (name: string) => path.join(root, `${round}-${builds.indexOf(build)}-${name}`);
        // Empty caches: a fresh directory for what the stack caches (the prebuilt CLI, V8's code cache),
        // and tsx's transform cache off (the baseline's).
        const cache = dir('cache');
        mkdirSync(cache);
        chmodSync(cache, 0o755);
        const cold = await start(build, dir('cold'), { SUPABASE_LOCAL_CACHE: cache, TSX_DISABLE_CACHE: '1' }, () => {
          for (const d of [dir('cold'), cache]) rmSync(d, { recursive: true, force: true });
          mkdirSync(cache);
          chmodSync(cache, 0o755);
        });
        progress(round, build, 'cold', cold);
        r.cold.push(cold);
        await stop(cold.child);
        rmSync(dir('cold'), { recursive: true, force: true });
        rmSync(cache, { recursive: true, force: true });

        const first = await start(build, dir('data'), {}, () => rmSync(dir('data'), { recursive: true, force: true }));
        progress(round, build, 'first', first);
        r.first.push(first);
        await stop(first.child);
        for (let i = 0; i < WARM; i++) {
          const warm = await start(build, dir('data'), {});
          progress(round, build, 'warm', warm);
          r.warm.push(warm);
          if (i === WARM - 1) {
            await new Promise((resolve) => setTimeout(resolve, 1000)); // let start-up garbage settle
            r.pss.push(pssMb(descendants(warm.child.pid!)));
          }
          await stop(warm.child);
        }
        rmSync(dir('data'), { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  report(builds, results);
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function report(builds: Build[], results: Map<Build, Results>) {
  console.log(`bench:stack — \`npm run stack -- start\` to "ready", ${ROUNDS} rounds (cold, first, ${WARM} warm each)`);
  const kinds = ['cold', 'first', 'warm'] as const;
  const targets = { cold: undefined, first: 3000, warm: 1200 };
  const rows: Record<string, Record<string, string>> = {};
  for (const build of builds) {
    const r = results.get(build)!;
    for (const kind of kinds) {
      const runs = r[kind];
      const target = targets[kind];
      rows[`${build.label}: ${kind}`] = {
        median: s(median(runs.map((x) => x.ms))),
        runs: `${range(runs.map((x) => x.ms / 1000))} s`,
        'CPU median': s(median(runs.map(total))),
        'CPU range': `${range(runs.map((x) => total(x) / 1000))} s`,
        target: target ? `≤ ${s(target)}` : '',
      };
    }
    rows[`${build.label}: memory`] = {
      median: `${median(r.pss).toFixed(0)} MB PSS`,
      runs: `${range(r.pss, 0)} MB`,
      'CPU median': '',
      'CPU range': '',
      target: '≤ 250 MB',
    };
  }
  console.table(rows);

  if (builds.length === 2) {
    const [mine, base] = builds.map((b) => results.get(b)!);
    const ratios: Record<string, Record<string, string>> = {};
    for (const kind of kinds) {
      // Each round's pair (this / baseline), started back to back.
      const wall = mine[kind].map((x, i) => x.ms / base[kind][i].ms);
      const cpu = mine[kind].map((x, i) => total(x) / total(base[kind][i]));
      ratios[kind] = {
        'wall, medians': (median(mine[kind].map((x) => x.ms)) / median(base[kind].map((x) => x.ms))).toFixed(2),
        'wall, each pair': range(wall),
        'CPU, medians': (median(mine[kind].map(total)) / median(base[kind].map(total))).toFixed(2),
        'CPU, each pair': range(cpu),
      };
    }
    console.log('\nthis checkout / baseline');
    console.table(ratios);
  }

  for (const kind of kinds) {
    const split: Record<string, Record<string, number | string>> = {};
    for (const build of builds) {
      const runs = results.get(build)![kind];
      const phases = [...new Set(runs.flatMap((x) => Object.keys(x.timings)))];
      for (const phase of phases)
        (split[phase] ??= {})[`${build.label} ms`] = median(runs.map((x) => x.timings[phase] ?? 0));
      for (const p of Object.keys(runs[0].cpu))
        (split[`CPU: ${p}`] ??= {})[`${build.label} ms`] = median(runs.map((x) => x.cpu[p]));
    }
    console.log(`\n${kind} start, per phase (wall ms, medians; the stack's own record) and CPU per process`);
    console.table(split);
  }
  if (BASELINE) console.log(`baseline: ${BASELINE}, started in the same rounds`);
  console.log('The machine is shared: wall times drift with its load; CPU time drifts far less.');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
