// A full disk during an upload (issue 25 item 1): the stack's files live on a 1 MiB tmpfs (mounted by
// this test, which needs root, as CI runs; without root it can't make a disk full and says so). The
// upload that runs out of space gets storage-api's own answer for a file backend failure (a 500
// InternalError with Node's ENOSPC message); it leaves no partial file, no row, and an object it
// would have replaced untouched; once there is room again, uploads work.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';

const stack = stackFixture({ fixture: 'storage-project' });
let disk = '';
let mounted = false;

beforeAll(() => {
  const data = stack.project.dataDir;
  disk = path.join(path.dirname(data), 'small-disk');
  mkdirSync(disk);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk], { stdio: 'ignore' });
    mounted = true;
  } catch {
    return;
  }
  // Objects and unfinished uploads on the small disk (one file system, so the final rename works).
  for (const dir of ['storage', 'storage-uploads']) {
    cpSync(path.join(data, dir), path.join(disk, dir), { recursive: true });
    rmSync(path.join(data, dir), { recursive: true, force: true });
    symlinkSync(path.join(disk, dir), path.join(data, dir));
  }
});
afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', disk]);
});

const upload = async (key: string, bytes: number, upsert = false) => {
  const res = await fetch(`${stack.apiUrl}/storage/v1/object/archive/${key}`, {
    method: 'POST',
    headers: {
      apikey: stack.serviceRoleKey,
      authorization: `Bearer ${stack.serviceRoleKey}`,
      'content-type': 'application/octet-stream',
      'x-upsert': String(upsert),
    },
    body: Buffer.alloc(bytes, key.length),
  });
  return { status: res.status, body: await res.json() };
};
const download = async (key: string) => {
  const res = await fetch(`${stack.apiUrl}/storage/v1/object/archive/${key}`, {
    headers: { apikey: stack.serviceRoleKey, authorization: `Bearer ${stack.serviceRoleKey}` },
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
};
const rows = async (key: string) =>
  (await stack.sql(`select 1 from storage.objects where bucket_id = 'archive' and name = $1`, [key])).rowCount;

describe('a full disk', () => {
  it('answers an upload it cuts short with a 500 in storage-api’s shape, and keeps nothing of it', async () => {
    if (!mounted) return expect(process.getuid?.(), 'only root can mount the small disk').not.toBe(0);
    expect((await upload('small.bin', 10_000)).status).toBe(200);

    const full = await upload('big.bin', 2 * 1024 * 1024);
    expect(full).toEqual({
      status: 500,
      body: {
        statusCode: '500',
        code: 'InternalError',
        error: 'Error',
        message: 'ENOSPC: no space left on device, write',
      },
    });
    expect(readdirSync(path.join(disk, 'storage-uploads'))).toEqual([]); // no partial file
    expect(await rows('big.bin')).toBe(0); // no row
    expect((await download('big.bin')).status).toBe(400); // storage-api's NoSuchKey

    // Replacing an object with one that doesn't fit leaves the old one whole.
    expect((await upload('small.bin', 2 * 1024 * 1024, true)).status).toBe(500);
    const kept = await download('small.bin');
    expect(kept.status).toBe(200);
    expect(kept.bytes.equals(Buffer.alloc(10_000, 'small.bin'.length))).toBe(true);

    // With room again, the next upload works.
    const next = await upload('next.bin', 100_000);
    expect(next.status).toBe(200);
    expect((await download('next.bin')).bytes.length).toBe(100_000);
  });
});
