// npm run bench:storage — Storage throughput and memory against an ephemeral local stack.
// 1. A 10 MB file uploaded and downloaded through the gateway vs the same bytes written (flushed)
//    and read on the same disk: MB/s, medians and spread over rounds, and their ratio.
// 2. The Node services' resident memory (this process: gateway, auth, storage) while 5 uploads of
//    10 MB run at once: growth of the peak over the level before, per round.
// The client runs in a child process, so its buffers and CPU are not counted as the stack's. A bare
// Node HTTP server that only pipes the bytes to and from a file is measured beside them: the most
// any Node service can do on this machine, to read the ratios against.
import { execFile } from 'node:child_process';
import { chmodSync, createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { PROJECT_DIR, startStack } from '@tend/supabase-local';

const MB = 1024 * 1024;
const SIZE = 10 * MB;
const ROUNDS = 7;
const CONCURRENT = 5;
const run = promisify(execFile);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

// One round of the client: disk write and read, then upload and download through the gateway, or
// `concurrent` uploads at once. Prints the times in ms as JSON.
const CLIENT = `
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
const [mode, size, n, file] = process.argv.slice(1);
const { API_URL: api, KEY: key, BARE_URL: bare } = process.env;
const body = randomBytes(+size);
const agent = new http.Agent({ keepAlive: true });
// node:http rather than fetch: undici's fetch spends more CPU per byte than the services measured here.
const send = (url, { method = 'GET', headers = {}, data } = {}) =>
  new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      let got = 0;
      const chunks = [];
      res.on('data', (c) => { got += c.length; if (res.statusCode >= 400) chunks.push(c); });
      res.on('end', () => resolve({ status: res.statusCode, got, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
const headers = { apikey: key, 'content-type': 'application/octet-stream', 'x-upsert': 'true' };
const upload = async (name) => {
  const res = await send(api + '/storage/v1/object/bench/' + name, { method: 'POST', headers, data: body });
  if (res.status >= 400) throw new Error('upload: ' + res.status + ' ' + res.text);
};
const download = async (url, headers) => {
  const res = await send(url, { headers });
  if (res.got !== +size) throw new Error('download: ' + res.status + ', ' + res.got + ' bytes');
};
const time = async (fn) => { const t = performance.now(); await fn(); return performance.now() - t; };
if (mode === 'throughput') {
  // Warm both paths first: a cold client (JIT, first connection) measures the client, not the service.
  for (let i = 0; i < 3; i++) {
    await upload('warm.bin');
    await send(bare, { method: 'POST', data: body });
  }
  const diskWrite = await time(() => writeFile(file, body, { flush: true }));
  const diskRead = await time(() => readFile(file));
  await rm(file);
  const up = await time(() => upload('ten.bin'));
  const down = await time(() => download(api + '/storage/v1/object/bench/ten.bin', { apikey: key }));
  const bareUp = await time(() => send(bare, { method: 'POST', data: body }));
  const bareDown = await time(() => download(bare));
  console.log(JSON.stringify({ diskWrite, diskRead, up, down, bareUp, bareDown }));
} else {
  const all = await time(() => Promise.all(Array.from({ length: +n }, (_, i) => upload('concurrent-' + i + '.bin'))));
  console.log(JSON.stringify({ all }));
}`;

async function main() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-storage-'));
  chmodSync(root, 0o755);
  const stack = await startStack({
    port: 0,
    dir: root,
    ephemeral: true,
    log: () => undefined,
    configure: (c) => {
      c.storage.fileSizeLimit = 100 * MB;
    },
  });
  const bareFile = path.join(root, 'bare.bin');
  const bare = http.createServer(async (req, res) => {
    if (req.method === 'POST') await pipeline(req, createWriteStream(bareFile, { flush: true }));
    else return void pipeline(createReadStream(bareFile), res).catch(() => undefined);
    res.end('{}');
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', () => resolve()));
  const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;
  const client = async (args: string[]) => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CLIENT, ...args], {
      cwd: PROJECT_DIR,
      env: { ...process.env, API_URL: stack.apiUrl, KEY: stack.serviceRoleKey, BARE_URL: bareUrl },
      timeout: 300_000,
      maxBuffer: 1024 * 1024,
    });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  };
  try {
    const created = await fetch(`${stack.apiUrl}/storage/v1/bucket`, {
      method: 'POST',
      headers: { apikey: stack.serviceRoleKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    if (!created.ok) throw new Error(`create bucket: ${created.status} ${await created.text()}`);
    const diskFile = path.join(root, 'disk-baseline.bin');
    await client(['throughput', String(SIZE), '1', diskFile]); // warm-up
    await client(['concurrent', String(SIZE), String(CONCURRENT), '']);

    const mbps = (ms: number) => SIZE / MB / (ms / 1000);
    const t = {
      diskWrite: [] as number[],
      diskRead: [] as number[],
      up: [] as number[],
      down: [] as number[],
      bareUp: [] as number[],
      bareDown: [] as number[],
    };
    const growth: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const r = await client(['throughput', String(SIZE), '1', diskFile]);
      for (const k of Object.keys(t) as (keyof typeof t)[]) t[k].push(mbps(r[k]));

      const before = process.memoryUsage.rss();
      let peak = before;
      const timer = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
      await client(['concurrent', String(SIZE), String(CONCURRENT), '']);
      clearInterval(timer);
      growth.push((Math.max(peak, process.memoryUsage.rss()) - before) / MB);
    }

    console.log(`\nbench:storage — ${SIZE / MB} MB file, ${ROUNDS} rounds (MB/s: median, min–max)`);
    console.table([
      { what: 'upload through the gateway', 'MB/s': median(t.up).toFixed(0), spread: spread(t.up) },
      { what: 'write + flush to disk', 'MB/s': median(t.diskWrite).toFixed(0), spread: spread(t.diskWrite) },
      { what: 'download through the gateway', 'MB/s': median(t.down).toFixed(0), spread: spread(t.down) },
      { what: 'read from disk', 'MB/s': median(t.diskRead).toFixed(0), spread: spread(t.diskRead) },
      { what: 'bare Node HTTP → file', 'MB/s': median(t.bareUp).toFixed(0), spread: spread(t.bareUp) },
      { what: 'bare Node HTTP ← file', 'MB/s': median(t.bareDown).toFixed(0), spread: spread(t.bareDown) },
    ]);
    const upRatio = median(t.up.map((v, i) => v / t.diskWrite[i]!));
    const downRatio = median(t.down.map((v, i) => v / t.diskRead[i]!));
    console.log(`upload / disk write:   ${(upRatio * 100).toFixed(0)} % (median of per-round ratios; target ≥ 50 %)`);
    console.log(`download / disk read:  ${(downRatio * 100).toFixed(0)} % (median of per-round ratios; target ≥ 50 %)`);
    const ratio = (a: number[], b: number[]) => (median(a.map((v, i) => v / b[i]!)) * 100).toFixed(0);
    console.log(
      `upload / bare HTTP:    ${ratio(t.up, t.bareUp)} %   download / bare HTTP: ${ratio(t.down, t.bareDown)} %`,
    );
    console.log(
      `memory growth, ${CONCURRENT} × ${SIZE / MB} MB uploads at once: median ${median(growth).toFixed(1)} MB, ` +
        `min–max ${Math.min(...growth).toFixed(1)}–${Math.max(...growth).toFixed(1)} MB (target < 30 MB)`,
    );
  } finally {
    bare.close();
    await stack.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
