// npm run bench:stack — time to "ready" for first and warm starts, and the stack's memory.
// Each start is the real CLI (`npm run stack -- start`) in a fresh process, measured from spawn to
// the ready banner, the way a developer experiences it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freeBasePort, PROJECT_DIR, STACK_CLI as CLI } from '@tend/supabase-local';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function startOnce(dir: string, port: number): Promise<{ ms: number; child: ChildProcess }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'start', '--dir', dir, '--port', String(port)], {
    cwd: PROJECT_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('is ready')) resolve();
    });
    child.stderr!.on('data', (c) => (out += c));
    child.on('exit', (code) => reject(new Error(`stack exited (${code}):\n${out}`)));
  });
  return { ms: performance.now() - t0, child };
}

async function stop(child: ChildProcess) {
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
}

function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      parent.set(Number(p), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

/** Proportional set size (shared pages split between processes), summed over the tree, in MB. */
function memoryMb(pids: number[], field: 'Pss' | 'Rss'): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      kb += Number(m?.[1] ?? 0);
    } catch {
      /* gone */
    }
  }
  return kb / 1024;
}

function postgresPids(dataDir: string): number[] {
  const s = JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8'));
  return s.processes.map((p: { pid: number }) => p.pid);
}

async function main() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-'));
  chmodSync(root, 0o755);
  const first: number[] = [];
  const warm: number[] = [];
  let pss = 0;
  let rss = 0;
  try {
    for (let i = 0; i < 3; i++) {
      const dir = path.join(root, `first-${i}`);
      const { ms, child } = await startOnce(dir, await freeBasePort());
      first.push(ms);
      await stop(child);
      if (i > 0) rmSync(dir, { recursive: true, force: true });
    }
    const warmDir = path.join(root, 'first-0');
    for (let i = 0; i < 5; i++) {
      const { ms, child } = await startOnce(warmDir, await freeBasePort());
      warm.push(ms);
      if (i === 4) {
        await new Promise((r) => setTimeout(r, 1000)); // let start-up garbage settle before reading memory
        const pids = [...new Set([...descendants(child.pid!), ...postgresPids(warmDir).flatMap(descendants)])];
        pss = memoryMb(pids, 'Pss');
        rss = memoryMb(pids, 'Rss');
      }
      await stop(child);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log('bench:stack — time from `npm run stack -- start` to "ready"');
  console.log(
    `  first start (empty data dir)  median ${fmt(median(first))}  runs ${first.map(fmt).join(', ')}  target ≤ 15 s  ratio ${(median(first) / 15000).toFixed(2)}`,
  );
  console.log(
    `  warm start (data dir exists)  median ${fmt(median(warm))}  runs ${warm.map(fmt).join(', ')}  target ≤ 3 s  ratio ${(median(warm) / 3000).toFixed(2)}`,
  );
  console.log(
    `  memory after start            ${pss.toFixed(0)} MB PSS (${rss.toFixed(0)} MB RSS summed)  target ≤ 400 MB  ratio ${(pss / 400).toFixed(2)}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
