// /object routes (storage-api src/http/routes/object, src/storage/object.ts, uploader.ts; reference A2).
// Permission is Postgres's: the would-be write runs as the caller and is rolled back (storage-api
// testPermission) before any byte is stored; the row that makes the new bytes visible is written
// as the service role once the file is in place.
import { randomUUID } from 'node:crypto';
import { CommitUnknown } from '../connections.ts';
import type { BucketRow } from './bucket.ts';
import { type Caller, SERVICE } from './caller.ts';
import { type Handler, need, readJson, type StorageContext, type StorageRequest, type Store } from './context.ts';
import type pg from 'pg';
import type { Scope, Tx } from './db.ts';
import type { Written } from './files.ts';
import { errors, sendJson } from './errors.ts';
import { isEmptyFolder, mustBeAllowedMime, mustBeValidBucketName, mustBeValidKey } from './limits.ts';
import { type ObjectMetadata, type ObjectRow, sendInfo, sendObject } from './render.ts';
import { fileUploadFromRequest, parseJson } from './upload.ts';

const ROW = 'id, name, version, bucket_id, metadata, user_metadata, updated_at, created_at';
// storage-api's objectSchema, in its order; string columns that are null serialise as "".
const RETURNED =
  'name, bucket_id, owner, owner_id, version, id, updated_at, created_at, last_accessed_at, metadata, user_metadata';

export function objectJson(o: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const k of RETURNED.split(', ')) out[k] = ['owner', 'owner_id', 'version'].includes(k) ? (o[k] ?? '') : o[k];
  return out;
}

const isUuid = (v: string | undefined) =>
  !!v && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);

interface NewRow {
  bucket: string;
  key: string;
  owner?: string;
  metadata: ObjectMetadata;
  userMetadata?: Record<string, unknown>;
  version: string;
}

/** INSERT (or, with upsert, INSERT … ON CONFLICT DO UPDATE … RETURNING, which needs SELECT and UPDATE too). */
async function writeRow(c: Tx, row: NewRow, upsert: boolean) {
  const values = [
    row.bucket,
    row.key,
    isUuid(row.owner) ? row.owner : null,
    row.owner ?? null,
    row.metadata,
    row.userMetadata ?? null,
    row.version,
  ];
  const insert = `insert into storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
    values ($1, $2, $3, $4, $5, $6, $7)`;
  if (!upsert) {
    try {
      await c.query(insert, values);
    } catch (err) {
      if ((err as pg.DatabaseError).code === '23505') throw errors.keyAlreadyExists();
      throw err;
    }
    return (
      await c.query<{ id: string }>(
        'select id from storage.objects where bucket_id = $1 and name = $2',
        values.slice(0, 2),
      )
    ).rows[0];
  }
  const { rows } = await c.query<{ id: string }>(
    `${insert} on conflict (name, bucket_id) do update set owner = excluded.owner, owner_id = excluded.owner_id,
       metadata = excluded.metadata, user_metadata = excluded.user_metadata, version = excluded.version
     returning *`,
    values,
  );
  return rows[0];
}

/** storage-api canUpload: the insert (or upsert) as the caller, rolled back. */
export function canUpload(ctx: StorageContext, scope: Scope, row: Omit<NewRow, 'version'>, upsert: boolean) {
  return ctx.db.test(scope, (c) => writeRow(c, { ...row, version: '1' }, upsert));
}

/**
 * Stores a new version's file and makes it the object's: the row is written (as the service role)
 * after the file is in place, and the previous version's file is removed after the row commits.
 */
async function completeUpload(ctx: Store, scope: Scope, tmp: string, row: NewRow, upsert: boolean) {
  await ctx.files.commit(tmp, row.bucket, row.key, row.version);
  let previous: string | null = null;
  try {
    const written = await ctx.db.tx({ ...scope, caller: SERVICE }, async (c) => {
      // One writer per key at a time (storage-api waitObjectLock): the version read here is the one replaced.
      await c.query('select pg_advisory_xact_lock(hashtext($1))', [`${row.bucket}/${row.key}`]);
      const current = await c.query<{ version: string | null }>(
        'select version from storage.objects where bucket_id = $1 and name = $2 for update',
        [row.bucket, row.key],
      );
      previous = current.rows[0]?.version ?? null;
      return writeRow(c, row, upsert);
    });
    if (previous && previous !== row.version) await ctx.files.remove(row.bucket, row.key, previous);
    return written;
  } catch (err) {
    if (err instanceof CommitUnknown)
      settleLater(ctx, row.bucket, row.key, row.version, {
        committed: () => (previous ? ctx.files.remove(row.bucket, row.key, previous) : Promise.resolve()),
        not: () => ctx.files.remove(row.bucket, row.key, row.version),
      });
    else await ctx.files.remove(row.bucket, row.key, row.version);
    throw err;
  }
}

/**
 * After CommitUnknown: once the database answers again (tried each second for two minutes), keep
 * the files of the outcome that happened, so no row points at a removed file and no file outlives
 * the row that would have made it visible.
 */
function settleLater(
  ctx: Store,
  bucket: string,
  key: string,
  version: string,
  then: { committed(): Promise<void>; not(): Promise<void> },
) {
  const attempt = async (n: number) => {
    try {
      const rows = await ctx.db.read<{ ours: boolean }>(
        { caller: SERVICE, operation: 'storage.object.settle' },
        'select exists (select 1 from storage.objects where bucket_id = $1 and name = $2 and version = $3) as ours',
        [bucket, key, version],
      );
      await (rows[0]!.ours ? then.committed() : then.not());
    } catch {
      if (n < 120) setTimeout(() => void attempt(n + 1), 1000).unref();
    }
  };
  void attempt(0);
}

export async function findBucket(ctx: Store, scope: Scope, id: string) {
  const rows = await ctx.db.read<Pick<BucketRow, 'id' | 'public' | 'file_size_limit' | 'allowed_mime_types'>>(
    { ...scope, caller: SERVICE },
    'select id, public, file_size_limit, allowed_mime_types from storage.buckets where id = $1',
    [id],
  );
  return rows[0];
}

/** storage-api findObject: the row as `caller` sees it (RLS), NoSuchKey when it can't. */
export async function findObject(ctx: StorageContext, scope: Scope, bucket: string, key: string): Promise<ObjectRow> {
  mustBeValidKey(key);
  const rows = await ctx.db.read<ObjectRow>(
    scope,
    `select ${ROW} from storage.objects where bucket_id = $1 and name = $2`,
    [bucket, key],
  );
  if (!rows[0]) throw errors.noSuchKey();
  return rows[0];
}

/**
 * An upload from the request body, in storage-api's order: bucket (NoSuchBucket), body and limits
 * (EntityTooLarge, InvalidMimeType), key (InvalidKey), permission as `permission`'s caller, bytes.
 */
export async function uploadObject(
  ctx: StorageContext,
  r: StorageRequest,
  opts: { bucket: string; key: string; owner?: string; upsert: boolean; permission: Caller },
) {
  const { bucket, key, owner, upsert } = opts;
  mustBeValidBucketName(bucket);
  const b = await findBucket(ctx, r.scope(), bucket);
  if (!b) throw errors.noSuchBucket();
  const bucketLimit = b.file_size_limit === null ? Number.POSITIVE_INFINITY : Number(b.file_size_limit);
  const maxFileSize = isEmptyFolder(key) ? 0 : Math.min(ctx.globalLimit, bucketLimit);
  const file = await fileUploadFromRequest(r.req, maxFileSize, (mime) => {
    if (!isEmptyFolder(key)) mustBeAllowedMime(mime, b.allowed_mime_types);
  });
  let written: Written;
  try {
    mustBeValidKey(key);
    const meta = { mimetype: file.mimeType, contentLength: file.declaredLength };
    await canUpload(
      ctx,
      r.scope(opts.permission),
      { bucket, key, owner, metadata: meta, userMetadata: file.userMetadata },
      upsert,
    );
    written = await ctx.files.write(file.body, maxFileSize);
  } catch (err) {
    file.abandon();
    throw err;
  }
  const { id } = await saveUpload(ctx, r.scope(), written, { ...file, bucket, key, owner }, upsert);
  return { id, key: `${bucket}/${key}` };
}

/** Makes a written file the object's new version, with the metadata storage-api's file backend records. */
export function saveUpload(
  ctx: Store,
  scope: Scope,
  written: Written,
  o: {
    bucket: string;
    key: string;
    owner?: string;
    mimeType: string;
    cacheControl: string;
    userMetadata?: Record<string, unknown>;
  },
  upsert: boolean,
) {
  const metadata: ObjectMetadata = {
    eTag: written.eTag,
    size: written.size,
    mimetype: o.mimeType,
    cacheControl: o.cacheControl,
    lastModified: new Date().toISOString(),
    contentLength: written.size,
    httpStatusCode: 200,
  };
  const row = {
    bucket: o.bucket,
    key: o.key,
    owner: o.owner,
    metadata,
    userMetadata: { ...o.userMetadata },
    version: randomUUID(),
  };
  return completeUpload(ctx, scope, written.tmp, row, upsert);
}

/** POST /object/{bucket}/{key} (x-upsert: true to overwrite) and PUT (always an upsert at storage-api HEAD). */
export const putObject: Handler = async (ctx, r) => {
  const upsert = r.req.method === 'PUT' || r.req.headers['x-upsert'] === 'true';
  const { bucket, '*': key } = r.params;
  const out = await uploadObject(ctx, r, { bucket, key, owner: r.caller.owner, upsert, permission: r.caller });
  sendJson(r.res, 200, { Id: out.id, Key: out.key });
};

/**
 * GET/HEAD /object/{bucket}/{key} and /object/authenticated/…, GET /object/info/…: a private
 * bucket's object is read as the caller (RLS), a public bucket's as the service role; without a
 * valid JWT only public buckets exist.
 */
async function readableObject(ctx: StorageContext, r: StorageRequest, publicOnly: boolean) {
  const { bucket, '*': key } = r.params;
  mustBeValidBucketName(bucket);
  const b = await findBucket(ctx, r.scope(), bucket);
  if (!b || ((publicOnly || !r.caller.authenticated) && !b.public)) throw errors.noSuchBucket();
  return findObject(ctx, r.scope(b.public ? SERVICE : r.caller), bucket, key);
}

export const getObject: Handler = async (ctx, r) => {
  const row = await readableObject(ctx, r, false);
  await sendObject(ctx.files, r.req, r.res, row, { download: r.url.searchParams.get('download') });
};

export const getPublicObject: Handler = async (ctx, r) => {
  const row = await readableObject(ctx, r, true);
  await sendObject(ctx.files, r.req, r.res, row, { download: r.url.searchParams.get('download') });
};

export const getObjectInfo: Handler = async (ctx, r) => sendInfo(r.res, await readableObject(ctx, r, false));
export const getPublicObjectInfo: Handler = async (ctx, r) => sendInfo(r.res, await readableObject(ctx, r, true));

function moveCopyBody(body: Record<string, unknown>) {
  const bucketId = need.string(body, 'bucketId');
  const sourceKey = need.string(body, 'sourceKey');
  const destinationKey = need.string(body, 'destinationKey');
  const destinationBucket = need.optString(body, 'destinationBucket') || bucketId;
  mustBeValidBucketName(bucketId);
  mustBeValidKey(destinationKey);
  return { bucketId, sourceKey, destinationKey, destinationBucket };
}

/** POST /object/move: SELECT and UPDATE of the source row as the caller decide (the UPDATE's WITH CHECK sees the new name). */
export const moveObject: Handler = async (ctx, r) => {
  const { bucketId, sourceKey, destinationKey, destinationBucket } = moveCopyBody(await readJson(r.req));
  const owner = r.caller.owner;
  const version = randomUUID();
  await ctx.db.test(r.scope(), async (c) => {
    const found = await c.query('select id from storage.objects where bucket_id = $1 and name = $2', [
      bucketId,
      sourceKey,
    ]);
    if (!found.rowCount) throw errors.noSuchKey();
    const moved = await c.query(
      `update storage.objects set name = $3, bucket_id = $4, version = $5, owner = $6, owner_id = $7
        where bucket_id = $1 and name = $2 returning id`,
      [bucketId, sourceKey, destinationKey, destinationBucket, version, isUuid(owner) ? owner : null, owner ?? null],
    );
    if (!moved.rowCount) throw errors.noSuchKey();
  });
  const source = await findObject(ctx, r.scope(SERVICE), bucketId, sourceKey);
  if (bucketId === destinationBucket && sourceKey === destinationKey) {
    return sendJson(r.res, 200, { message: 'Successfully moved' });
  }
  const tmp = await ctx.files.copyToTmp(bucketId, sourceKey, source.version!);
  await ctx.files.commit(tmp, destinationBucket, destinationKey, version);
  try {
    await ctx.db.tx(r.scope(SERVICE), (c) =>
      c.query(
        `update storage.objects set name = $3, bucket_id = $4, version = $5, owner = $6, owner_id = $7,
           metadata = metadata || jsonb_build_object('lastModified', $8::text)
          where bucket_id = $1 and name = $2`,
        [
          bucketId,
          sourceKey,
          destinationKey,
          destinationBucket,
          version,
          isUuid(owner) ? owner : null,
          owner ?? null,
          new Date().toISOString(),
        ],
      ),
    );
  } catch (err) {
    if (err instanceof CommitUnknown)
      settleLater(ctx, destinationBucket, destinationKey, version, {
        committed: () => ctx.files.remove(bucketId, sourceKey, source.version),
        not: () => ctx.files.remove(destinationBucket, destinationKey, version),
      });
    else await ctx.files.remove(destinationBucket, destinationKey, version);
    throw err;
  }
  await ctx.files.remove(bucketId, sourceKey, source.version);
  sendJson(r.res, 200, { message: 'Successfully moved' });
};

/** POST /object/copy: SELECT of the source and INSERT (x-upsert: upsert) of the copy, as the caller. */
export const copyObject: Handler = async (ctx, r) => {
  const body = await readJson(r.req);
  const { bucketId, sourceKey, destinationKey, destinationBucket } = moveCopyBody(body);
  const upsert = r.req.headers['x-upsert'] === 'true';
  const source = await findObject(ctx, r.scope(), bucketId, sourceKey);
  const overrides = (body.metadata ?? {}) as { cacheControl?: string; mimetype?: string };
  const metadata: ObjectMetadata = { ...source.metadata };
  if (body.copyMetadata === false) {
    if (overrides.cacheControl !== undefined) metadata.cacheControl = overrides.cacheControl;
    if (overrides.mimetype !== undefined) metadata.mimetype = overrides.mimetype;
  }
  const xMetadata = r.req.headers['x-metadata'];
  const userMetadata =
    body.copyMetadata === false
      ? parseJson(typeof xMetadata === 'string' ? Buffer.from(xMetadata, 'base64').toString() : undefined)
      : (source.user_metadata ?? undefined);
  const owner = r.caller.owner;
  const target = { bucket: destinationBucket, key: destinationKey, owner, metadata, userMetadata };
  await canUpload(ctx, r.scope(), target, upsert);
  const tmp = await ctx.files.copyToTmp(bucketId, sourceKey, source.version!);
  const row = { ...target, metadata: { ...metadata, lastModified: new Date().toISOString() }, version: randomUUID() };
  await completeUpload(ctx, r.scope(), tmp, row, upsert);
  const copy = await ctx.db.tx(r.scope(SERVICE), (c) =>
    c.query(`select ${RETURNED} from storage.objects where bucket_id = $1 and name = $2`, [
      destinationBucket,
      destinationKey,
    ]),
  );
  sendJson(r.res, 200, {
    Id: copy.rows[0].id,
    Key: `${destinationBucket}/${destinationKey}`,
    ...objectJson(copy.rows[0]),
  });
};

/** DELETE /object/{bucket} {prefixes}: the rows the caller may delete (RLS DELETE + SELECT) go, silently skipping the rest. */
export const removeObjects: Handler = async (ctx, r) => {
  const bucket = r.params.bucket;
  const body = await readJson(r.req);
  const prefixes = body.prefixes;
  if (prefixes === undefined) throw errors.validation("body must have required property 'prefixes'");
  if (!Array.isArray(prefixes) || prefixes.some((p) => typeof p !== 'string'))
    throw errors.validation('body/prefixes must be array');
  if (!prefixes.length) throw errors.validation('body/prefixes must NOT have fewer than 1 items');
  mustBeValidBucketName(bucket);
  const { rows } = await ctx.db.tx(r.scope(), (c) =>
    c.query(`delete from storage.objects where bucket_id = $1 and name = any($2) returning ${RETURNED}`, [
      bucket,
      prefixes,
    ]),
  );
  for (const o of rows) await ctx.files.remove(bucket, o.name, o.version);
  sendJson(r.res, 200, rows.map(objectJson));
};

/** DELETE /object/{bucket}/{key}: NoSuchKey when there is no such object, AccessDenied when RLS keeps it. */
export const removeObject: Handler = async (ctx, r) => {
  const { bucket, '*': key } = r.params;
  mustBeValidBucketName(bucket);
  const row = await findObject(ctx, r.scope(SERVICE), bucket, key);
  const deleted = await ctx.db.tx(r.scope(), (c) =>
    c.query('delete from storage.objects where bucket_id = $1 and name = $2 returning version', [bucket, key]),
  );
  if (!deleted.rowCount) throw errors.accessDenied();
  await ctx.files.remove(bucket, key, row.version);
  sendJson(r.res, 200, { message: 'Successfully deleted' });
};
