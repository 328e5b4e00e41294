// Storage's files: streamed both ways (the stack runs in this process, so its memory is this
// process's), limits enforced while streaming, nothing visible of an upload that did not finish,
// and every file still there after a restart.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_DIR, type Stack, startStack } from '@tend/supabase-local';
import { tempProject, type TempProject } from '../../scripts/lib/project.ts';
import { clientFor } from '../support/stack.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const MB = 1024 * 1024;
const run = promisify(execFile);

/** `size` deterministic pseudo-random bytes, produced as they are read (never held whole). */
function generated(size: number) {
  const md5 = createHash('md5');
  let sent = 0;
  let x = 12345;
  const stream = new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, size - sent));
      for (let i = 0; i < chunk.length; i += 4) {
        x = (x * 1103515245 + 12345) >>> 0;
        chunk.writeUInt32LE(x, i);
      }
      md5.update(chunk);
      sent += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, digest: () => md5.digest('hex') };
}

/** Samples this process's resident memory until stopped; returns the peak growth over the start. */
function watchRss() {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage.rss()) - start;
  };
}

// The client of the memory test: supabase-js uploading a generated stream, or downloading one.
const CLIENT = `
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createClient } from '@supabase/supabase-js';
const [mode, bucket, key, size] = process.argv.slice(1);
const storage = createClient(process.env.API_URL, process.env.KEY).storage.from(bucket);
const md5 = createHash('md5');
if (mode === 'upload') {
  let sent = 0, x = 12345;
  const body = new Readable({ read() {
    if (sent >= +size) return void this.push(null);
    const chunk = Buffer.allocUnsafe(Math.min(65536, size - sent));
    for (let i = 0; i < chunk.length; i += 4) { x = (x * 1103515245 + 12345) >>> 0; chunk.writeUInt32LE(x, i); }
    md5.update(chunk); sent += chunk.length; this.push(chunk);
  } });
  const { data, error } = await storage.upload(key, body, { contentType: 'application/octet-stream' });
  console.log(JSON.stringify({ error: error?.message ?? null, path: data?.path, md5: md5.digest('hex') }));
} else {
  const { data, error } = await storage.download(key).asStream();
  let n = 0;
  if (data) for await (const chunk of data) { md5.update(chunk); n += chunk.length; }
  console.log(JSON.stringify({ error: error?.message ?? null, size: n, md5: md5.digest('hex') }));
}`;

async function inChild(mode: 'upload' | 'download', bucket: string, key: string, size: number) {
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', CLIENT, mode, bucket, key, String(size)],
    {
      cwd: PROJECT_DIR,
      env: { ...process.env, API_URL: stack.apiUrl, KEY: stack.serviceRoleKey },
      timeout: 120_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
}

let project: TempProject;
let stack: Stack;
let service: SupabaseClient;
const start = () =>
  startStack({ port: 0, dir: project.dataDir, projectDir: project.projectDir, ephemeral: true, log: () => undefined });
const uploadsDir = () => path.join(project.dataDir, 'storage-uploads');

beforeAll(async () => {
  project = tempProject('storage-project');
  cpSync(path.join(PROJECT_DIR, 'supabase', 'templates'), path.join(project.projectDir, 'supabase', 'templates'), {
    recursive: true,
  });
  stack = await start();
  service = clientFor(stack, { key: stack.serviceRoleKey });
});
afterAll(async () => {
  await stack?.stop();
  project?.remove();
});

describe('streaming', () => {
  it('uploads and downloads 200 MB to a bucket without a limit, holding far less than the file', async () => {
    // supabase-js runs in a child process: undici leaves its own copies of a request body for the
    // GC, which would hide the stack's memory if the client shared this process with it.
    // A first, small upload warms the stack up (sockets, buffers, compiled code), so what follows
    // measures what the size of the file costs.
    expect(await inChild('upload', 'archive', 'big/warm-up.bin', 5 * MB)).toMatchObject({ error: null });
    const grown = watchRss();
    const up = await inChild('upload', 'archive', 'big/large.bin', 200 * MB);
    const uploadGrowth = grown();
    expect(up).toMatchObject({ error: null, path: 'big/large.bin' });
    const info = await service.storage.from('archive').info('big/large.bin');
    expect(info.data).toMatchObject({ size: 200 * MB, etag: `"${up.md5}"` });

    const downGrown = watchRss();
    const down = await inChild('download', 'archive', 'big/large.bin', 0);
    const downloadGrowth = downGrown();
    expect(down).toEqual({ error: null, size: 200 * MB, md5: up.md5 });
    // Holding the file would take 200 MB. Streaming takes a few buffers, plus the garbage V8 lets
    // pile up before it collects (it waits for tens of MB of released Buffers, ~50 MB seen under
    // load): a file four times that size tells the two apart without depending on the GC's timing.
    expect(uploadGrowth).toBeLessThan(100 * MB);
    expect(downloadGrowth).toBeLessThan(100 * MB);
  });

  it('stops a streamed upload at the bucket limit, answers 413 and keeps nothing', async () => {
    const file = generated(3 * MB); // a stream: no Content-Length, so the limit is met while reading
    const up = await service.storage
      .from('documents')
      .upload('someone/too-big.txt', file.stream, { contentType: 'text/plain' });
    expect(up.error).toMatchObject({
      status: 400,
      statusCode: '413',
      message: 'The object exceeded the maximum allowed size',
    });
    expect((await service.storage.from('documents').exists('someone/too-big.txt')).data).toBe(false);
    expect(readdirSync(uploadsDir())).toEqual([]);
    expect(existsSync(path.join(project.dataDir, 'storage', 'documents', 'someone'))).toBe(false);
  });

  it('leaves nothing visible of an upload the client abandons halfway', async () => {
    const url = new URL(`${stack.apiUrl}/storage/v1/object/archive/partial/half.bin`);
    const req = http.request(url, {
      method: 'POST',
      headers: { apikey: stack.serviceRoleKey, 'content-type': 'application/octet-stream', 'content-length': 4 * MB },
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(MB, 1));
    await waitFor('the upload to start writing', () => readdirSync(uploadsDir()).length > 0);
    req.destroy();
    await waitFor('the partial file to be removed', () => readdirSync(uploadsDir()).length === 0);
    expect((await service.storage.from('archive').exists('partial/half.bin')).data).toBe(false);
    expect(existsSync(path.join(project.dataDir, 'storage', 'archive', 'partial'))).toBe(false);
    // The stack still serves.
    expect((await service.storage.from('archive').upload('partial/whole.txt', 'ok')).error).toBeNull();
  });
});

describe('restart', () => {
  it('keeps every file and its metadata', async () => {
    const docs = service.storage.from('documents');
    const kept = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    expect(
      (await docs.upload('keeper/one.pdf', kept, { contentType: 'application/pdf', cacheControl: '120' })).error,
    ).toBeNull();
    expect((await docs.upload('keeper/two.txt', 'two', { contentType: 'text/plain' })).error).toBeNull();
    const before = (await docs.list('keeper')).data;

    await stack.stop();
    stack = await start();
    service = clientFor(stack, { key: stack.serviceRoleKey });
    const after = service.storage.from('documents');
    expect((await after.list('keeper')).data).toEqual(before);
    const one = await after.download('keeper/one.pdf');
    expect(Buffer.from(await one.data!.arrayBuffer()).equals(kept)).toBe(true);
    expect((await after.info('keeper/one.pdf')).data).toMatchObject({
      contentType: 'application/pdf',
      cacheControl: 'max-age=120',
    });
    expect(await (await after.download('keeper/two.txt')).data?.text()).toBe('two');
    const big = await service.storage.from('archive').info('big/large.bin');
    expect(big.data?.size).toBe(200 * MB);
  });
});
