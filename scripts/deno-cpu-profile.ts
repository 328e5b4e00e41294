// A CPU profile of a function's Deno worker, over its inspector: start the stack (or a bench) with
// FUNCTIONS_DENO_FLAGS=--inspect=127.0.0.1:9230, then
//   node --import tsx scripts/deno-cpu-profile.ts [seconds=60] [out=/tmp/deno.cpuprofile] [port=9230]
// waits for the worker's inspector (a worker starts on its function's first request), samples its CPU for the
// given seconds (less than the worker's half wall-clock limit, 200 s, when it is retired), writes the profile
// (Chrome DevTools opens it) and prints the functions with the most self time, the files with the most, and the
// functions' own code with the most time with what it calls (line numbers are of the code Deno ran, transpiled).
import { writeFileSync } from 'node:fs';
import WebSocket from 'ws';

const seconds = Number(process.argv[2] ?? 60);
const out = process.argv[3] ?? '/tmp/deno.cpuprofile';
const port = Number(process.argv[4] ?? 9230);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

async function target(): Promise<string> {
  for (;;) {
    try {
      const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
        webSocketDebuggerUrl: string;
      }[];
      if (list[0]) return list[0].webSocketDebuggerUrl;
    } catch {
      // Not listening yet: the worker starts on its function's first request.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const ws = new WebSocket(await target());
await new Promise((r, j) => {
  ws.once('open', r);
  ws.once('error', j);
});
// The worker retired or the stack stopped before the profile was taken: say so rather than end silently.
ws.once('close', () => {
  if (pending.size) {
    console.error('the worker went away before the profile was taken: profile fewer seconds');
    process.exit(1);
  }
});
let seq = 0;
const pending = new Map<number, (result: unknown) => void>();
ws.on('message', (data) => {
  const m = JSON.parse(String(data)) as { id?: number; result?: unknown };
  if (m.id !== undefined) pending.get(m.id)?.(m.result);
});
const send = (method: string, params: object = {}) =>
  new Promise<unknown>((r) => {
    const id = ++seq;
    pending.set(id, (result) => {
      pending.delete(id);
      r(result);
    });
    ws.send(JSON.stringify({ id, method, params }));
  });

await send('Profiler.enable');
await send('Profiler.setSamplingInterval', { interval: 200 });
await send('Profiler.start');
console.log(`profiling for ${seconds} s`);
await new Promise((r) => setTimeout(r, seconds * 1000));
const { profile } = (await send('Profiler.stop')) as { profile: Profile };
ws.close();
writeFileSync(out, JSON.stringify(profile));

// Self time per node from the samples' time deltas, then summed by function and by file.
const self = new Map<number, number>();
for (const [i, id] of profile.samples.entries())
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const n of profile.nodes) {
  const ms = self.get(n.id) ?? 0;
  const file = n.callFrame.url.replace(/^.*\/(node_modules|npm|deps|functions)\//, '$1/') || '(native)';
  const fn = `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  byFile.set(file, (byFile.get(file) ?? 0) + ms);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...byFunction.entries()].filter(([k]) => /^\((idle|program|garbage collector)\)/.test(k));
console.log(
  `sampled ${(total / 1000).toFixed(1)} s; ${idle.map(([k, v]) => `${k.split(' ')[0]} ${v.toFixed(0)} ms`).join(', ')}; written to ${out}`,
);
// Time with callees, of each frame of the functions' own code (a frame counted once a sample).
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const inclusive = new Map<string, number>();
for (const n of profile.nodes) {
  const ms = self.get(n.id) ?? 0;
  if (!ms || n.callFrame.functionName === '(idle)') continue;
  const seen = new Set<string>();
  for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
    const f = byId.get(id)!.callFrame;
    if (!/\/functions\//.test(f.url)) continue;
    const k = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/functions\//, 'functions/')}:${f.lineNumber + 1}`;
    if (!seen.has(k)) inclusive.set(k, (inclusive.get(k) ?? 0) + ms);
    seen.add(k);
  }
}
const top = (m: Map<string, number>, n: number) =>
  [...m.entries()]
    .filter(([k]) => !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => ({ ms: v.toFixed(1), what: k }));
console.table(top(byFunction, 40));
console.table(top(byFile, 25));
console.table(top(inclusive, 30));
