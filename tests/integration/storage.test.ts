// The local Storage service through the gateway with supabase-js, as an app uses it: buckets,
// objects, limits and errors in storage-api's shapes (docs/reference/storage-functions.md A0–A4), with
// the fixture project's policies deciding per role (anon, two users, service role).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { clientFor, signInWithCode } from '../support/stack.ts';

const stack = stackFixture({ fixture: 'storage-project' });
let service: SupabaseClient;
let anon: SupabaseClient;
let alice: { c: SupabaseClient; id: string; token: string };
let bob: { c: SupabaseClient; id: string; token: string };

/** A storage request as a client sends it (the anon key unless told otherwise), its JSON and headers. */
async function api(pathAndQuery: string, init: RequestInit & { key?: string | null; token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.key !== null) headers.set('apikey', init.key ?? stack.anonKey);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  const res = await fetch(`${stack.apiUrl}/storage/v1${pathAndQuery}`, { ...init, headers });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const bytes = (n: number, seed = 1) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
};
const md5 = (b: Buffer | Uint8Array) => createHash('md5').update(b).digest('hex');

async function signIn() {
  const { c, session } = await signInWithCode(stack);
  return { c, id: session.user.id, token: session.access_token };
}

beforeAll(async () => {
  service = clientFor(stack, { key: stack.serviceRoleKey });
  anon = clientFor(stack);
  alice = await signIn();
  bob = await signIn();
});

describe('buckets', () => {
  it('creates the config.toml buckets at start, with their settings, and seeds objects_path', async () => {
    const { data, error } = await service.storage.listBuckets();
    expect(error).toBeNull();
    const byId = Object.fromEntries((data ?? []).map((b) => [b.id, b]));
    expect(Object.keys(byId.documents)).toEqual([
      'id',
      'name',
      'owner',
      'public',
      'type',
      'file_size_limit',
      'allowed_mime_types',
      'created_at',
      'updated_at',
    ]);
    expect(byId.documents).toMatchObject({
      name: 'documents',
      owner: '',
      public: false,
      type: 'STANDARD',
      file_size_limit: 1024 * 1024,
      allowed_mime_types: ['text/plain', 'image/*', 'application/pdf'],
    });
    expect(byId.avatars).toMatchObject({ public: true, file_size_limit: null });
    expect(byId.archive).toMatchObject({ public: false, file_size_limit: null, allowed_mime_types: null });
    const seeded = await service.storage.from('avatars').list('defaults');
    expect(seeded.data?.map((o) => [o.name, o.metadata?.mimetype])).toEqual([
      ['circle.svg', 'image/svg+xml'],
      ['robot.png', 'image/png'],
    ]);
  });

  it('creates, reads, updates, empties and deletes a bucket', async () => {
    const created = await service.storage.createBucket('scratch', {
      public: true,
      fileSizeLimit: '2MB',
      allowedMimeTypes: ['image/*'],
    });
    expect(created).toEqual({ data: { name: 'scratch' }, error: null });
    const got = await service.storage.getBucket('scratch');
    expect(got.data).toMatchObject({
      id: 'scratch',
      public: true,
      file_size_limit: 2_000_000,
      allowed_mime_types: ['image/*'],
    });
    expect(got.data).not.toHaveProperty('type');

    const updated = await service.storage.updateBucket('scratch', { public: false, fileSizeLimit: 1000 });
    expect(updated).toEqual({ data: { message: 'Successfully updated' }, error: null });
    expect((await service.storage.getBucket('scratch')).data).toMatchObject({
      public: false,
      file_size_limit: 1000,
      allowed_mime_types: ['image/*'],
    });

    await service.storage.from('scratch').upload('a/one.png', bytes(10), { contentType: 'image/png' });
    const notEmpty = await service.storage.deleteBucket('scratch');
    expect(notEmpty.error).toMatchObject({
      status: 400,
      statusCode: '409',
      message: 'The bucket you tried to delete is not empty',
    });

    const emptied = await service.storage.emptyBucket('scratch');
    expect(emptied.data).toEqual({ message: 'Empty bucket has been queued. Completion may take up to an hour.' });
    expect((await service.storage.from('scratch').list('a')).data).toEqual([]);
    expect(existsSync(path.join(stack.dir, 'storage', 'scratch', 'a'))).toBe(false);

    expect(await service.storage.deleteBucket('scratch')).toEqual({
      data: { message: 'Successfully deleted' },
      error: null,
    });
    const gone = await api('/bucket/scratch', { key: stack.serviceRoleKey });
    expect(gone).toMatchObject({
      status: 400,
      json: { statusCode: '404', code: 'NoSuchBucket', error: 'Bucket not found', message: 'Bucket not found' },
    });
  });

  it("answers bucket errors in storage-api's shape", async () => {
    const asService = { key: stack.serviceRoleKey, method: 'POST', headers: { 'content-type': 'application/json' } };
    const duplicate = await api('/bucket', { ...asService, body: JSON.stringify({ name: 'documents' }) });
    expect(duplicate).toMatchObject({
      status: 400,
      json: {
        statusCode: '409',
        code: 'BucketAlreadyExists',
        error: 'Duplicate',
        message: 'The resource already exists',
      },
    });
    const badName = await api('/bucket', { ...asService, body: JSON.stringify({ name: 'no/slashes' }) });
    expect(badName.json).toEqual({
      statusCode: '400',
      code: 'InvalidBucketName',
      error: 'Invalid Input',
      message: 'Bucket name invalid',
    });
    const tooBig = await service.storage.createBucket('huge', { public: false, fileSizeLimit: '1GB' });
    expect(tooBig.error).toMatchObject({
      status: 400,
      statusCode: '413',
      message: 'The object exceeded the maximum allowed size',
    });
    const badMime = await service.storage.createBucket('odd', { public: false, allowedMimeTypes: ['not a type'] });
    expect(badMime.error).toMatchObject({ statusCode: '415', message: 'mime type not a type is not supported' });
    const noName = await api('/bucket', { ...asService, body: '{}' });
    expect(noName.json).toMatchObject({
      statusCode: '400',
      code: 'InvalidRequest',
      message: "body must have required property 'name'",
    });

    // Emptying is for the service role only (storage-api HEAD), with a real 403.
    const emptyAsUser = await alice.c.storage.emptyBucket('documents');
    expect(emptyAsUser.error).toMatchObject({ status: 403, statusCode: '403', message: 'Access denied: Invalid role' });
    // No INSERT policy on storage.buckets: RLS refuses users and anon.
    const asUser = await alice.c.storage.createBucket('mine');
    expect(asUser.error).toMatchObject({ statusCode: '403', message: 'new row violates row-level security policy' });
    expect((await anon.storage.createBucket('mine')).error?.statusCode).toBe('403');
  });

  it('lists and reads buckets through the storage.buckets policies', async () => {
    expect((await anon.storage.listBuckets()).data).toEqual([]);
    expect((await anon.storage.getBucket('documents')).error).toMatchObject({
      statusCode: '404',
      message: 'Bucket not found',
    });
    const seen = await alice.c.storage.listBuckets({ sortColumn: 'name', sortOrder: 'desc' });
    expect(seen.data?.map((b) => b.id)).toEqual(['documents', 'avatars', 'archive']);
    expect((await alice.c.storage.listBuckets({ search: 'doc' })).data?.map((b) => b.id)).toEqual(['documents']);
    const updateAsUser = await alice.c.storage.updateBucket('documents', { public: true });
    expect(updateAsUser.error).toMatchObject({ statusCode: '404', message: 'Bucket not found' });
  });
});

describe('objects', () => {
  it('uploads a Blob as multipart with cacheControl and metadata, and gives it back', async () => {
    const key = `${alice.id}/notes/hello.txt`;
    const body = new Blob(['hello world'], { type: 'text/plain' });
    const up = await alice.c.storage
      .from('documents')
      .upload(`/${key}`, body, { cacheControl: '60', metadata: { kind: 'note' } });
    expect(up.error).toBeNull();
    expect(up.data).toMatchObject({ path: key, fullPath: `documents/${key}` });
    expect(up.data?.id).toMatch(/^[0-9a-f-]{36}$/);

    const info = await alice.c.storage.from('documents').info(key);
    expect(info.data).toMatchObject({
      id: up.data?.id,
      name: key,
      bucketId: 'documents',
      size: 11,
      contentType: 'text/plain',
      cacheControl: 'max-age=60',
      etag: `"${md5(Buffer.from('hello world'))}"`,
      metadata: { kind: 'note' },
    });
    const down = await alice.c.storage.from('documents').download(key);
    expect(await down.data?.text()).toBe('hello world');
    expect(down.data?.type).toBe('text/plain');

    const raw = await api(`/object/authenticated/documents/${key}`, { token: alice.token });
    expect(raw.status).toBe(200);
    expect(Object.fromEntries(raw.headers)).toMatchObject({
      'accept-ranges': 'bytes',
      'cache-control': 'max-age=60',
      'content-length': '11',
      'content-type': 'text/plain',
      etag: `"${md5(Buffer.from('hello world'))}"`,
      'x-robots-tag': 'none',
    });
    expect(raw.headers.get('last-modified')).toMatch(/GMT$/);
  });

  it('uploads a raw body with its content type, refuses a duplicate, and overwrites with upsert or update()', async () => {
    const key = `${alice.id}/photo.png`;
    const docs = alice.c.storage.from('documents');
    expect((await docs.upload(key, bytes(300, 1), { contentType: 'image/png' })).error).toBeNull();
    const firstVersion = readdirSync(path.join(stack.dir, 'storage', 'documents', alice.id, 'photo.png'));
    expect(firstVersion).toHaveLength(1);

    const dup = await docs.upload(key, bytes(300, 2), { contentType: 'image/png' });
    expect(dup.error).toMatchObject({ status: 400, statusCode: '409', message: 'The resource already exists' });
    const dupRaw = await api(`/object/documents/${key}`, {
      method: 'POST',
      token: alice.token,
      headers: { 'content-type': 'image/png' },
      body: bytes(3),
    });
    expect(dupRaw.json).toEqual({
      statusCode: '409',
      code: 'KeyAlreadyExists',
      error: 'Duplicate',
      message: 'The resource already exists',
    });

    expect((await docs.upload(key, bytes(200, 3), { contentType: 'image/png', upsert: true })).error).toBeNull();
    expect(md5(Buffer.from(await (await docs.download(key)).data!.arrayBuffer()))).toBe(md5(bytes(200, 3)));
    expect((await docs.update(key, bytes(100, 4), { contentType: 'image/png' })).error).toBeNull();
    expect(md5(Buffer.from(await (await docs.download(key)).data!.arrayBuffer()))).toBe(md5(bytes(100, 4)));
    // The replaced versions' files are gone: one version on disk.
    const versions = readdirSync(path.join(stack.dir, 'storage', 'documents', alice.id, 'photo.png'));
    expect(versions).toHaveLength(1);
    expect(versions).not.toEqual(firstVersion);
  });

  it('serves ranges, conditional GETs and download names', async () => {
    const key = `${alice.id}/range.txt`;
    await alice.c.storage.from('documents').upload(key, 'abcdefghij', { contentType: 'text/plain' });
    const part = await api(`/object/documents/${key}`, { token: alice.token, headers: { range: 'bytes=2-4' } });
    expect(part).toMatchObject({ status: 206, text: 'cde' });
    expect(part.headers.get('content-range')).toBe('bytes 2-4/10');
    const bad = await api(`/object/documents/${key}`, { token: alice.token, headers: { range: 'bytes=50-60' } });
    expect(bad).toMatchObject({
      status: 416,
      json: { statusCode: '416', code: 'InvalidRange', message: 'invalid range provided' },
    });
    const etag = part.headers.get('etag')!;
    expect(
      (await api(`/object/documents/${key}`, { token: alice.token, headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
    const named = await api(`/object/documents/${key}?download=my%20file.txt`, { token: alice.token });
    expect(named.headers.get('content-disposition')).toBe(
      "attachment; filename=my%20file.txt; filename*=UTF-8''my%20file.txt",
    );
    const plain = await api(`/object/documents/${key}?download`, { token: alice.token });
    expect(plain.headers.get('content-disposition')).toBe('attachment;');
    const head = await fetch(`${stack.apiUrl}/storage/v1/object/documents/${key}`, {
      method: 'HEAD',
      headers: { apikey: stack.anonKey, authorization: `Bearer ${alice.token}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('10');
  });

  it('says whether an object exists and answers NoSuchKey for one that does not', async () => {
    const docs = alice.c.storage.from('documents');
    await docs.upload(`${alice.id}/exists.txt`, 'x', { contentType: 'text/plain' });
    expect(await docs.exists(`${alice.id}/exists.txt`)).toEqual({ data: true, error: null });
    expect((await docs.exists(`${alice.id}/nope.txt`)).data).toBe(false);
    const missing = await api(`/object/info/documents/${alice.id}/nope.txt`, { token: alice.token });
    expect(missing).toMatchObject({
      status: 400,
      json: { statusCode: '404', code: 'NoSuchKey', error: 'not_found', message: 'Object not found' },
    });
  });

  it('lists one folder level with prefix, search, limit, offset and sortBy', async () => {
    const archive = service.storage.from('archive');
    for (const k of ['list/b.txt', 'list/a.txt', 'list/C.txt', 'list/sub/x.txt', 'list/sub/y.txt', 'list/zed/z.txt'])
      expect((await archive.upload(k, k, { contentType: 'text/plain' })).error).toBeNull();
    const all = await archive.list('list');
    expect(all.data?.map((o) => o.name)).toEqual(['a.txt', 'b.txt', 'C.txt', 'sub', 'zed']);
    const folder = all.data?.find((o) => o.name === 'sub');
    expect(folder).toEqual({
      name: 'sub',
      id: null,
      updated_at: null,
      created_at: null,
      last_accessed_at: null,
      metadata: null,
    });
    expect(all.data?.[0].metadata).toMatchObject({ size: 10, mimetype: 'text/plain', cacheControl: 'max-age=3600' });
    expect((await archive.list('list', { limit: 2, offset: 1 })).data?.map((o) => o.name)).toEqual(['b.txt', 'C.txt']);
    expect((await archive.list('list', { search: 's' })).data?.map((o) => o.name)).toEqual(['sub']);
    expect(
      (await archive.list('list', { sortBy: { column: 'name', order: 'desc' } })).data?.map((o) => o.name),
    ).toEqual(['zed', 'sub', 'C.txt', 'b.txt', 'a.txt']);
    const byDate = await archive.list('list', { sortBy: { column: 'created_at', order: 'asc' } });
    expect(byDate.data?.map((o) => o.name)).toEqual(['sub', 'zed', 'b.txt', 'a.txt', 'C.txt']);
    expect((await archive.list('list/sub')).data?.map((o) => o.name)).toEqual(['x.txt', 'y.txt']);

    const v2 = await archive.listV2({ prefix: 'list/', with_delimiter: true, limit: 3 });
    expect(v2.data).toMatchObject({ hasNext: true, folders: [] });
    expect(v2.data?.objects.map((o) => o.name)).toEqual(['list/C.txt', 'list/a.txt', 'list/b.txt']);
    const next = await archive.listV2({ prefix: 'list/', with_delimiter: true, limit: 3, cursor: v2.data?.nextCursor });
    expect(next.data).toMatchObject({
      hasNext: false,
      folders: [{ name: 'list/sub/' }, { name: 'list/zed/' }],
      objects: [],
    });
  });

  it('lists with list-v2 as storage-api: folders ending in "/", keys under the prefix, every sortBy both ways, cursors', async () => {
    const archive = service.storage.from('archive');
    // Uploaded in this order, so created_at follows it; m.txt is updated last.
    for (const k of ['v2/m.txt', 'v2/docs/one.txt', 'v2/a.txt', 'v2/docs/two.txt', 'v2/z/deep/file.txt'])
      expect((await archive.upload(k, k, { contentType: 'text/plain' })).error).toBeNull();
    expect((await archive.update('v2/m.txt', 'edited', { contentType: 'text/plain' })).error).toBeNull();
    const list = async (options: Parameters<typeof archive.listV2>[0]) => {
      const { data, error } = await archive.listV2(options);
      expect(error).toBeNull();
      return data!;
    };
    const names = (entries: { name: string }[]) => entries.map((e) => e.name);

    const byName = await list({ prefix: 'v2/', with_delimiter: true });
    expect(byName).toEqual({
      hasNext: false,
      folders: [
        { id: null, name: 'v2/docs/' },
        { id: null, name: 'v2/z/' },
      ],
      objects: [
        expect.objectContaining({ key: 'a.txt', name: 'v2/a.txt', id: expect.any(String) }),
        expect.objectContaining({ key: 'm.txt', name: 'v2/m.txt', metadata: expect.objectContaining({ size: 6 }) }),
      ],
    });
    const desc = await list({ prefix: 'v2/', with_delimiter: true, sortBy: { column: 'name', order: 'desc' } });
    expect([names(desc.folders), names(desc.objects)]).toEqual([
      ['v2/z/', 'v2/docs/'],
      ['v2/m.txt', 'v2/a.txt'],
    ]);

    // By created_at a folder counts from its oldest object and keeps its key and dates.
    const first = await list({ prefix: 'v2/', with_delimiter: true, limit: 2, sortBy: { column: 'created_at' } });
    expect(first).toMatchObject({ hasNext: true, nextCursorKey: 'v2/docs', objects: [{ name: 'v2/m.txt' }] });
    expect(first.folders).toEqual([
      {
        key: 'docs',
        name: 'v2/docs/',
        id: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        last_accessed_at: null,
        metadata: null,
      },
    ]);
    const second = await list({ prefix: 'v2/', with_delimiter: true, limit: 2, cursor: first.nextCursor });
    expect([second.hasNext, names(second.objects), names(second.folders)]).toEqual([false, ['v2/a.txt'], ['v2/z/']]);
    const updated = await list({
      prefix: 'v2/',
      with_delimiter: true,
      sortBy: { column: 'updated_at', order: 'desc' },
    });
    expect(names(updated.objects)).toEqual(['v2/m.txt', 'v2/a.txt']);

    // Without the delimiter: every key, no folders, no `key`; the sort column, then the name.
    const flat = await list({ prefix: 'v2/', sortBy: { column: 'created_at', order: 'desc' } });
    expect(flat.folders).toEqual([]);
    expect(names(flat.objects)).toEqual([
      'v2/z/deep/file.txt',
      'v2/docs/two.txt',
      'v2/a.txt',
      'v2/docs/one.txt',
      'v2/m.txt',
    ]);
    expect(flat.objects[0]).not.toHaveProperty('key');
    const page = await list({ prefix: 'v2/', limit: 3 });
    expect(names(page.objects)).toEqual(['v2/a.txt', 'v2/docs/one.txt', 'v2/docs/two.txt']);
    const rest = await list({ prefix: 'v2/', limit: 3, cursor: page.nextCursor });
    expect([rest.hasNext, names(rest.objects)]).toEqual([false, ['v2/m.txt', 'v2/z/deep/file.txt']]);

    const refused = async (body: unknown) =>
      (
        await api('/object/list-v2/archive', {
          method: 'POST',
          token: stack.serviceRoleKey,
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        })
      ).json;
    expect(await refused({ sortBy: { order: 'asc' } })).toEqual({
      statusCode: '400',
      code: 'InvalidRequest',
      error: 'Bad Request',
      message: "body/sortBy must have required property 'column'",
    });
    expect(await refused({ sortBy: { column: 'size' } })).toMatchObject({
      message: 'body/sortBy/column must be equal to one of the allowed values',
    });
    expect(await refused({ cursor: Buffer.from('not a cursor').toString('base64') })).toEqual({
      statusCode: '400',
      code: 'InvalidParameter',
      error: 'InvalidParameter',
      message: 'Invalid Parameter continuation token',
    });
  });

  it('moves, copies and removes objects', async () => {
    const docs = alice.c.storage.from('documents');
    await docs.upload(`${alice.id}/m/a.txt`, 'move me', { contentType: 'text/plain' });
    expect(await docs.move(`${alice.id}/m/a.txt`, `${alice.id}/m/b.txt`)).toEqual({
      data: { message: 'Successfully moved' },
      error: null,
    });
    expect((await docs.exists(`${alice.id}/m/a.txt`)).data).toBe(false);
    expect(await (await docs.download(`${alice.id}/m/b.txt`)).data?.text()).toBe('move me');

    const copied = await docs.copy(`${alice.id}/m/b.txt`, `${alice.id}/m/c.txt`);
    expect(copied).toEqual({ data: { path: `documents/${alice.id}/m/c.txt` }, error: null });
    expect(await (await docs.download(`${alice.id}/m/c.txt`)).data?.text()).toBe('move me');
    const again = await docs.copy(`${alice.id}/m/b.txt`, `${alice.id}/m/c.txt`);
    expect(again.error).toMatchObject({ statusCode: '409', message: 'The resource already exists' });
    const missing = await docs.move(`${alice.id}/m/nothing.txt`, `${alice.id}/m/d.txt`);
    expect(missing.error).toMatchObject({ statusCode: '404', message: 'Object not found' });

    const removed = await docs.remove([`${alice.id}/m/b.txt`, `${alice.id}/m/c.txt`, `${alice.id}/m/never.txt`]);
    expect(removed.error).toBeNull();
    expect(removed.data?.map((o) => o.name).sort()).toEqual([`${alice.id}/m/b.txt`, `${alice.id}/m/c.txt`]);
    expect(Object.keys(removed.data?.[0] ?? {})).toEqual([
      'name',
      'bucket_id',
      'owner',
      'owner_id',
      'version',
      'id',
      'updated_at',
      'created_at',
      'last_accessed_at',
      'metadata',
      'user_metadata',
    ]);
    expect(removed.data?.[0]).toMatchObject({ owner: alice.id, owner_id: alice.id, bucket_id: 'documents' });
    expect((await docs.list(`${alice.id}/m`)).data).toEqual([]);
    expect(existsSync(path.join(stack.dir, 'storage', 'documents', alice.id, 'm'))).toBe(false);
  });

  it('deletes one object by its URL (DELETE /object/{bucket}/{key}), as the caller', async () => {
    const key = `${alice.id}/single.txt`;
    await alice.c.storage.from('documents').upload(key, 'one', { contentType: 'text/plain' });
    const asBob = await api(`/object/documents/${key}`, { method: 'DELETE', token: bob.token });
    expect(asBob.json).toEqual({
      statusCode: '403',
      code: 'AccessDenied',
      error: 'Unauthorized',
      message: 'Access denied',
    });
    const missing = await api(`/object/documents/${alice.id}/none.txt`, { method: 'DELETE', token: alice.token });
    expect(missing.json).toMatchObject({ statusCode: '404', code: 'NoSuchKey' });
    const deleted = await api(`/object/documents/${key}`, { method: 'DELETE', token: alice.token });
    expect(deleted).toMatchObject({ status: 200, json: { message: 'Successfully deleted' } });
    expect((await alice.c.storage.from('documents').exists(key)).data).toBe(false);
  });

  it("refuses what the bucket doesn't allow, bad keys and bad JWTs, in storage-api's shape", async () => {
    const docs = alice.c.storage.from('documents');
    const exe = await docs.upload(`${alice.id}/tool.exe`, bytes(10), { contentType: 'application/x-msdownload' });
    expect(exe.error).toMatchObject({
      status: 400,
      statusCode: '415',
      message: 'mime type application/x-msdownload is not supported',
    });
    const big = await api(`/object/documents/${alice.id}/big.txt`, {
      method: 'POST',
      token: alice.token,
      headers: { 'content-type': 'text/plain' },
      body: bytes(1024 * 1024 + 1),
    });
    expect(big).toMatchObject({
      status: 400,
      json: {
        statusCode: '413',
        code: 'EntityTooLarge',
        error: 'Payload too large',
        message: 'The object exceeded the maximum allowed size',
      },
    });
    const bigBlob = await docs.upload(
      `${alice.id}/big.txt`,
      new Blob([bytes(1024 * 1024 + 1)], { type: 'text/plain' }),
    );
    expect(bigBlob.error).toMatchObject({ statusCode: '413' });
    expect((await docs.exists(`${alice.id}/big.txt`)).data).toBe(false);

    const accents = await docs.upload(`${alice.id}/résumé.txt`, 'x', { contentType: 'text/plain' });
    expect(accents.error).toMatchObject({ statusCode: '400', message: `Invalid key: ${alice.id}/résumé.txt` });
    const noBucket = await service.storage.from('nowhere').upload('a.txt', 'x');
    expect(noBucket.error).toMatchObject({ statusCode: '404', message: 'Bucket not found' });

    const forged = await new SignJWT({ role: 'service_role' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('not-the-secret-not-the-secret-not-the-secret'));
    const badJwt = await api('/bucket', { token: forged });
    expect(badJwt).toMatchObject({
      status: 400,
      json: {
        statusCode: '403',
        code: 'AccessDenied',
        error: 'Unauthorized',
        message: 'signature verification failed',
      },
    });
    const garbage = await api('/object/list/documents', {
      method: 'POST',
      token: 'not-a-jwt',
      headers: { 'content-type': 'application/json' },
      body: '{"prefix":""}',
    });
    expect(garbage.json).toMatchObject({ statusCode: '403', code: 'AccessDenied', message: 'Invalid Compact JWS' });
    const unknown = await api('/nothing/here?x=1');
    expect(unknown).toMatchObject({
      status: 404,
      json: {
        statusCode: '404',
        code: 'InvalidRequest',
        error: 'Not Found',
        message: 'Route GET:/nothing/here?x=1 not found',
      },
    });
  });

  it('serves public buckets to anyone and hides private ones', async () => {
    const publicUrl = service.storage.from('avatars').getPublicUrl('defaults/robot.png').data.publicUrl;
    const res = await fetch(publicUrl); // no apikey, no Authorization: a browser's <img>
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const privateUrl = service.storage.from('documents').getPublicUrl(`${alice.id}/range.txt`).data.publicUrl;
    const hidden = await fetch(privateUrl);
    expect(hidden.status).toBe(400);
    expect(await hidden.json()).toMatchObject({ statusCode: '404', code: 'NoSuchBucket' });
    // A public bucket's objects are readable through the authenticated routes without a policy, too.
    expect((await bob.c.storage.from('avatars').download('defaults/circle.svg')).error).toBeNull();
    expect((await anon.storage.from('avatars').info('defaults/circle.svg')).data).toMatchObject({
      contentType: 'image/svg+xml',
    });
    const publicInfo = await api('/object/info/public/avatars/defaults/circle.svg');
    expect(publicInfo.json).toMatchObject({
      name: 'defaults/circle.svg',
      bucket_id: 'avatars',
      content_type: 'image/svg+xml',
    });
    expect((await api(`/object/info/public/documents/${alice.id}/range.txt`)).json).toMatchObject({
      statusCode: '404',
      code: 'NoSuchBucket',
    });
    const publicHead = await fetch(`${stack.apiUrl}/storage/v1/object/public/avatars/defaults/robot.png`, {
      method: 'HEAD',
    });
    expect(publicHead.status).toBe(200);
    expect(publicHead.headers.get('content-type')).toBe('image/png');
  });
});

describe('policies decide per role', () => {
  it('lets each user read and write only their own folder; the service role reads everything', async () => {
    const mine = `${alice.id}/private.txt`;
    expect(
      (await alice.c.storage.from('documents').upload(mine, 'alice only', { contentType: 'text/plain' })).error,
    ).toBeNull();

    const intoBob = await alice.c.storage
      .from('documents')
      .upload(`${bob.id}/planted.txt`, 'x', { contentType: 'text/plain' });
    expect(intoBob.error).toMatchObject({
      status: 400,
      statusCode: '403',
      message: 'new row violates row-level security policy',
    });
    expect(existsSync(path.join(stack.dir, 'storage', 'documents', bob.id))).toBe(false);

    const bobReads = await bob.c.storage.from('documents').download(mine);
    expect(bobReads.error).toMatchObject({ statusCode: '404', message: 'Object not found' });
    expect((await bob.c.storage.from('documents').list(alice.id)).data).toEqual([]);
    expect((await bob.c.storage.from('documents').remove([mine])).data).toEqual([]);
    const bobMoves = await bob.c.storage.from('documents').move(mine, `${bob.id}/stolen.txt`);
    expect(bobMoves.error).toMatchObject({ statusCode: '404' });
    const anonReads = await anon.storage.from('documents').download(mine);
    expect(anonReads.error).toMatchObject({ statusCode: '404', message: 'Object not found' });

    // Moving out of one's own folder fails the UPDATE policy's WITH CHECK.
    const moveOut = await alice.c.storage.from('documents').move(mine, `${bob.id}/gift.txt`);
    expect(moveOut.error).toMatchObject({ statusCode: '403', message: 'new row violates row-level security policy' });

    expect(await (await service.storage.from('documents').download(mine)).data?.text()).toBe('alice only');
    const everything = await service.storage.from('documents').list(alice.id);
    expect(everything.data?.map((o) => o.name)).toContain('private.txt');
    // The owner is the JWT's sub.
    const row = await stack.sql('select owner, owner_id from storage.objects where bucket_id = $1 and name = $2', [
      'documents',
      mine,
    ]);
    expect(row.rows[0]).toEqual({ owner: alice.id, owner_id: alice.id });
  });

  it('runs policies with storage.extension and refuses anon writes', async () => {
    const avatars = alice.c.storage.from('avatars');
    expect((await avatars.upload(`${alice.id}/me.png`, bytes(20), { contentType: 'image/png' })).error).toBeNull();
    const svgAsPng = await avatars.upload(`${alice.id}/me.gif`, bytes(20), { contentType: 'image/png' });
    expect(svgAsPng.error).toMatchObject({ statusCode: '403' });
    const anonUpload = await anon.storage.from('avatars').upload('anon.png', bytes(20), { contentType: 'image/png' });
    expect(anonUpload.error).toMatchObject({
      statusCode: '403',
      message: 'new row violates row-level security policy',
    });
    const archive = await alice.c.storage.from('archive').upload(`${alice.id}/x.txt`, 'x');
    expect(archive.error).toMatchObject({ statusCode: '403' });
  });
});

describe('signed URLs', () => {
  it('signs a download URL for an object the caller can read, and serves it to anyone until it expires', async () => {
    const key = `${alice.id}/signed.txt`;
    await alice.c.storage.from('documents').upload(key, 'signed bytes', { contentType: 'text/plain' });
    const signed = await alice.c.storage.from('documents').createSignedUrl(key, 60);
    expect(signed.error).toBeNull();
    const url = new URL(signed.data!.signedUrl);
    expect(url.pathname).toBe(`/storage/v1/object/sign/documents/${key}`);
    const claims = decodeJwt(url.searchParams.get('token')!);
    expect(claims).toMatchObject({ url: `documents/${key}`, scope: 'download' });
    expect(claims.exp! - claims.iat!).toBe(60);

    const res = await fetch(signed.data!.signedUrl); // no apikey: a link opened in a browser
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('signed bytes');
    expect(res.headers.get('expires')).toBe(new Date(claims.exp! * 1000).toUTCString());
    expect(res.headers.get('cache-control')).toBeNull();

    const named = await alice.c.storage.from('documents').createSignedUrl(key, 60, { download: 'report.txt' });
    const namedRes = await fetch(named.data!.signedUrl);
    expect(namedRes.headers.get('content-disposition')).toBe(
      "attachment; filename=report.txt; filename*=UTF-8''report.txt",
    );

    const notBobs = await bob.c.storage.from('documents').createSignedUrl(key, 60);
    expect(notBobs.error).toMatchObject({ statusCode: '404', message: 'Object not found' });
    const zero = await alice.c.storage.from('documents').createSignedUrl(key, 0);
    expect(zero.error).toMatchObject({ statusCode: '400', message: 'body/expiresIn must be >= 1' });
  });

  it('signs many at once, with an error for what the caller cannot read', async () => {
    const key = `${alice.id}/many.txt`;
    await alice.c.storage.from('documents').upload(key, 'many', { contentType: 'text/plain' });
    const { data, error } = await alice.c.storage.from('documents').createSignedUrls([key, `${bob.id}/x.txt`], 30);
    expect(error).toBeNull();
    expect(data?.[0]).toMatchObject({ error: null, path: key });
    expect(await (await fetch(data![0].signedUrl!)).text()).toBe('many');
    expect(data?.[1]).toEqual({
      error: 'Either the object does not exist or you do not have access to it',
      path: `${bob.id}/x.txt`,
      signedURL: null,
      signedUrl: null,
    });
  });

  it('refuses expired, tampered, misdirected and wrongly scoped tokens', async () => {
    const key = `${alice.id}/guarded.txt`;
    await alice.c.storage.from('documents').upload(key, 'guarded', { contentType: 'text/plain' });
    const secret = new TextEncoder().encode(stack.jwtSecret);
    const token = (claims: Record<string, unknown>, exp = Math.floor(Date.now() / 1000) + 60) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(exp).sign(secret);
    const get = async (t: string, k = key) => api(`/object/sign/documents/${k}?token=${t}`, { key: null });

    expect((await get(await token({ url: `documents/${key}`, scope: 'download' }))).status).toBe(200);
    const expired = await get(
      await token({ url: `documents/${key}`, scope: 'download' }, Math.floor(Date.now() / 1000) - 10),
    );
    expect(expired.json).toEqual({
      statusCode: '400',
      code: 'InvalidJWT',
      error: 'InvalidJWT',
      message: '"exp" claim timestamp check failed',
    });

    const good = (await alice.c.storage.from('documents').createSignedUrl(key, 60)).data!.signedUrl;
    const original = new URL(good).searchParams.get('token')!;
    const [h, , s] = original.split('.');
    const otherPayload = Buffer.from(
      JSON.stringify({ url: `documents/${bob.id}/x.txt`, scope: 'download', exp: 9999999999 }),
    ).toString('base64url');
    const tampered = await get(`${h}.${otherPayload}.${s}`, `${bob.id}/x.txt`);
    expect(tampered.json).toMatchObject({
      statusCode: '400',
      code: 'InvalidJWT',
      message: 'signature verification failed',
    });

    const elsewhere = await get(original, `${alice.id}/other.txt`);
    expect(elsewhere.json).toEqual({
      statusCode: '400',
      code: 'InvalidSignature',
      error: 'InvalidSignature',
      message: 'Invalid signature',
    });
    const uploadToken = await token({ url: `documents/${key}`, scope: 'upload', upsert: false });
    expect((await get(uploadToken)).json).toMatchObject({
      code: 'InvalidSignature',
      message: 'Token is not scoped for download',
    });
    const noToken = await api(`/object/sign/documents/${key}`, { key: null });
    expect(noToken.json).toMatchObject({
      statusCode: '400',
      message: "querystring must have required property 'token'",
    });
  });

  it('lets the caller hand out an upload URL for a key they may write, used without credentials', async () => {
    const key = `${alice.id}/dropbox/report.pdf`;
    const signed = await alice.c.storage.from('documents').createSignedUploadUrl(key);
    expect(signed.error).toBeNull();
    expect(decodeJwt(signed.data!.token)).toMatchObject({
      url: `documents/${key}`,
      owner: alice.id,
      upsert: false,
      scope: 'upload',
    });
    const up = await anon.storage
      .from('documents')
      .uploadToSignedUrl(key, signed.data!.token, new Blob(['%PDF-1.4'], { type: 'application/pdf' }));
    expect(up).toEqual({ data: { path: key, fullPath: `documents/${key}` }, error: null });
    const row = await stack.sql('select owner_id from storage.objects where bucket_id = $1 and name = $2', [
      'documents',
      key,
    ]);
    expect(row.rows[0].owner_id).toBe(alice.id);
    const reused = await anon.storage
      .from('documents')
      .uploadToSignedUrl(key, signed.data!.token, new Blob(['again'], { type: 'application/pdf' }));
    expect(reused.error).toMatchObject({ statusCode: '409', message: 'The resource already exists' });
    // The token's url is the only key it opens; the bucket's limits still apply.
    const other = await anon.storage
      .from('documents')
      .uploadToSignedUrl(`${alice.id}/other.pdf`, signed.data!.token, new Blob(['x']));
    expect(other.error).toMatchObject({ statusCode: '400', message: 'Invalid signature' });

    const forBob = await alice.c.storage.from('documents').createSignedUploadUrl(`${bob.id}/x.txt`);
    expect(forBob.error).toMatchObject({ statusCode: '403', message: 'new row violates row-level security policy' });
    const asDownload = await api(`/object/sign/documents/${key}?token=${signed.data!.token}`, { key: null });
    expect(asDownload.json).toMatchObject({ code: 'InvalidSignature', message: 'Token is not scoped for download' });
  });
});

describe('image transformations off (config.toml leaves [storage.image_transformation] out, as the CLI template does)', () => {
  it('has no /render routes and signs plain object URLs, ignoring `transform`', async () => {
    const render = await api('/render/image/public/avatars/defaults/circle.svg?width=10');
    expect([render.status, render.json]).toEqual([
      404,
      {
        statusCode: '404',
        code: 'InvalidRequest',
        error: 'Not Found',
        message: 'Route GET:/render/image/public/avatars/defaults/circle.svg?width=10 not found',
      },
    ]);
    const { data, error } = await service.storage
      .from('avatars')
      .createSignedUrl('defaults/circle.svg', 60, { transform: { width: 10 } });
    expect(error).toBeNull();
    const url = new URL(data!.signedUrl);
    expect(url.pathname).toBe('/storage/v1/object/sign/avatars/defaults/circle.svg');
    expect(decodeJwt(url.searchParams.get('token')!)).not.toHaveProperty('transformations');
  });
});

describe('resumable uploads (TUS at /upload/resumable)', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const tus = (url: string, init: RequestInit & { token: string }) =>
    fetch(url, {
      ...init,
      headers: {
        apikey: stack.anonKey,
        authorization: `Bearer ${init.token}`,
        'tus-resumable': '1.0.0',
        ...init.headers,
      },
    });
  const create = (token: string, bucket: string, key: string, length: number, contentType = 'text/plain') =>
    tus(`${stack.apiUrl}/storage/v1/upload/resumable`, {
      method: 'POST',
      token,
      headers: {
        'upload-length': String(length),
        'upload-metadata': `bucketName ${b64(bucket)},objectName ${b64(key)},contentType ${b64(contentType)},cacheControl ${b64('60')},metadata ${b64('{"part":"two"}')}`,
      },
    });

  it('takes a file in parts, resumes from the offset the server reports, and makes it the object', async () => {
    const key = `${alice.id}/resumable/notes.txt`;
    const body = bytes(300_000, 5);
    const created = await create(alice.token, 'documents', key, body.length);
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${stack.apiUrl}/storage/v1/upload/resumable/[0-9a-f-]{36}$`));
    const patch = (offset: number, part: Buffer) =>
      tus(location, {
        method: 'PATCH',
        token: alice.token,
        headers: { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        body: new Uint8Array(part),
      });
    const first = await patch(0, body.subarray(0, 100_000));
    expect(first.status).toBe(204);
    expect(first.headers.get('upload-offset')).toBe('100000');
    const head = await tus(location, { method: 'HEAD', token: alice.token });
    expect(head.headers.get('upload-offset')).toBe('100000');
    expect((await alice.c.storage.from('documents').exists(key)).data).toBe(false); // not visible before it is whole
    expect((await patch(100_000, body.subarray(100_000))).status).toBe(204);

    const down = await alice.c.storage.from('documents').download(key);
    expect(md5(Buffer.from(await down.data!.arrayBuffer()))).toBe(md5(body));
    expect((await alice.c.storage.from('documents').info(key)).data).toMatchObject({
      size: body.length,
      contentType: 'text/plain',
      cacheControl: 'max-age=60',
      metadata: { part: 'two' },
      etag: `"${md5(body)}"`,
    });
  });

  it('refuses with the policies, the bucket limit and its types', async () => {
    const denied = await create(alice.token, 'documents', `${bob.id}/x.txt`, 10);
    expect(denied.status).toBe(403);
    expect(await denied.text()).toBe('new row violates row-level security policy');
    const tooBig = await create(alice.token, 'documents', `${alice.id}/big.txt`, 2 * 1024 * 1024);
    expect(tooBig.status).toBe(413);
    const exe = await create(alice.token, 'documents', `${alice.id}/tool.exe`, 10, 'application/x-msdownload');
    expect(exe.status).toBe(415);
    expect(await exe.text()).toBe('mime type application/x-msdownload is not supported');
    const nowhere = await create(alice.token, 'nowhere', `${alice.id}/x.txt`, 10);
    expect(nowhere.status).toBe(404);
  });
});
