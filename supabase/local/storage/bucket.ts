// /bucket routes (storage-api src/http/routes/bucket, src/storage/storage.ts; reference A1). Reads and
// writes run as the caller, so storage.buckets policies decide; lookups that storage-api makes as
// the superuser run as the service role.
import { SERVICE } from './caller.ts';
import { type Handler, need, readJson, type StorageContext, type Store, toNumber } from './context.ts';
import { isStorageError, type Scope } from './db.ts';
import { errors, sendJson } from './errors.ts';
import { mustBeValidBucketName, mustBeValidMimeList, parseFileSize } from './limits.ts';

export interface BucketRow {
  id: string;
  name: string;
  owner: string | null;
  public: boolean | null;
  type?: string;
  file_size_limit: string | number | null;
  allowed_mime_types: string[] | null;
  created_at: Date;
  updated_at: Date;
}

/** A bucket as storage-api's bucketSchema serialises it (a null owner becomes ""). */
const bucketJson = (b: BucketRow) => ({
  id: b.id,
  name: b.name,
  owner: b.owner ?? '',
  public: b.public ?? false,
  ...(b.type === undefined ? {} : { type: b.type }),
  file_size_limit: toNumber(b.file_size_limit),
  allowed_mime_types: b.allowed_mime_types,
  created_at: b.created_at,
  updated_at: b.updated_at,
});

/** A file_size_limit from a request: bytes or "20MB"; never above the project's limit. */
function sizeLimit(ctx: StorageContext, v: unknown): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  const bytes =
    typeof v === 'string'
      ? parseFileSize(v)
      : typeof v === 'number' && Number.isInteger(v) && v >= 0
        ? v
        : (() => {
            throw errors.validation('body/file_size_limit must match a schema in anyOf');
          })();
  if (bytes > ctx.globalLimit) throw errors.entityTooLarge();
  return bytes;
}

function mimeList(v: unknown): string[] | null | undefined {
  if (v === undefined || v === null) return v;
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string'))
    throw errors.validation('body/allowed_mime_types must be array');
  const types = (v as string[]).filter(Boolean);
  mustBeValidMimeList(types);
  return types;
}

export const listBuckets: Handler = async (ctx, r) => {
  const q = r.url.searchParams;
  const values: unknown[] = [];
  let where = '';
  const search = q.get('search');
  if (search) {
    values.push(`%${search.replace(/[\\%_]/g, '\\$&')}%`);
    where = `where name ilike $${values.length}`;
  }
  const column = need.oneOf(
    q.get('sortColumn'),
    'querystring/sortColumn',
    ['id', 'name', 'created_at', 'updated_at'],
    'name',
  );
  const order = need.oneOf(q.get('sortOrder'), 'querystring/sortOrder', ['asc', 'desc'], 'asc');
  let page = '';
  for (const key of ['limit', 'offset'] as const) {
    const raw = q.get(key);
    if (raw === null) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < (key === 'limit' ? 1 : 0))
      throw errors.validation(`querystring/${key} must be >= ${key === 'limit' ? 1 : 0}`);
    values.push(n);
    page += ` ${key} $${values.length}`;
  }
  // storage-api orders only when asked; without sortColumn the order is Postgres's, so by name here.
  const rows = await ctx.db.tx(r.scope(), async (c) =>
    c.query<BucketRow>(
      `select id, name, owner, public, type, file_size_limit, allowed_mime_types, created_at, updated_at
         from storage.buckets ${where} order by ${column} ${order}${page}`,
      values,
    ),
  );
  sendJson(r.res, 200, rows.rows.map(bucketJson));
};

export const getBucket: Handler = async (ctx, r) => {
  const id = r.params.bucket;
  const { rows } = await ctx.db.tx(r.scope(), (c) =>
    c.query<BucketRow>(
      `select id, name, owner, public, file_size_limit, allowed_mime_types, created_at, updated_at
         from storage.buckets where id = $1`,
      [id],
    ),
  );
  if (!rows[0]) throw errors.noSuchBucket();
  sendJson(r.res, 200, bucketJson(rows[0]));
};

export interface BucketSettings {
  public?: boolean;
  fileSizeLimit?: number | null;
  allowedMimeTypes?: string[] | null;
}

export async function insertBucket(ctx: Store, scope: Scope, id: string, name: string, settings: BucketSettings) {
  const owner = scope.caller.owner;
  try {
    await ctx.db.tx(scope, (c) =>
      c.query(
        `insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types, type)
         values ($1, $2, case when $3 ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then $3::uuid end,
                 $3, $4, $5, $6, 'STANDARD')`,
        [
          id,
          name,
          owner ?? null,
          settings.public ?? false,
          settings.fileSizeLimit ?? null,
          settings.allowedMimeTypes ?? null,
        ],
      ),
    );
  } catch (err) {
    if (isStorageError(err, 'ResourceAlreadyExists')) throw errors.bucketAlreadyExists();
    throw err;
  }
}

export const createBucket: Handler = async (ctx, r) => {
  const body = await readJson(r.req);
  const name = need.string(body, 'name');
  const id = need.optString(body, 'id') || name;
  if (body.public !== undefined && typeof body.public !== 'boolean')
    throw errors.validation('body/public must be boolean');
  need.oneOf(body.type, 'body/type', ['STANDARD', 'ANALYTICS'], 'STANDARD');
  if (body.type === 'ANALYTICS') throw errors.featureNotEnabled('iceberg_catalog');
  // storage-api: no leading or trailing whitespace, S3-safe characters, 1–100 of them.
  if (name.trim() !== name) throw errors.invalidBucketName();
  mustBeValidBucketName(name);
  mustBeValidBucketName(id);
  await insertBucket(ctx, r.scope(), id, name, {
    public: body.public as boolean | undefined,
    fileSizeLimit: sizeLimit(ctx, body.file_size_limit),
    allowedMimeTypes: mimeList(body.allowed_mime_types),
  });
  sendJson(r.res, 200, { name });
};

export async function updateBucketRow(ctx: Store, scope: Scope, id: string, settings: BucketSettings) {
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const [column, value] of [
    ['public', settings.public],
    ['file_size_limit', settings.fileSizeLimit],
    ['allowed_mime_types', settings.allowedMimeTypes],
  ] as const) {
    if (value === undefined) continue;
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  }
  if (!sets.length) throw errors.noContent();
  values.push(id);
  const result = await ctx.db.tx(scope, (c) =>
    c.query(`update storage.buckets set ${sets.join(', ')} where id = $${values.length}`, values),
  );
  if (!result.rowCount) throw errors.noSuchBucket();
}

export const updateBucket: Handler = async (ctx, r) => {
  const id = r.params.bucket;
  const body = await readJson(r.req);
  if (body.public === undefined && body.file_size_limit === undefined && body.allowed_mime_types === undefined)
    throw errors.validation('body must match a schema in anyOf');
  if (body.public !== undefined && typeof body.public !== 'boolean')
    throw errors.validation('body/public must be boolean');
  mustBeValidBucketName(id);
  await updateBucketRow(ctx, r.scope(), id, {
    public: body.public as boolean | undefined,
    fileSizeLimit: sizeLimit(ctx, body.file_size_limit),
    allowedMimeTypes: mimeList(body.allowed_mime_types),
  });
  sendJson(r.res, 200, { message: 'Successfully updated' });
};

export const deleteBucket: Handler = async (ctx, r) => {
  const id = r.params.bucket;
  await readJson(r.req);
  const service = r.scope(SERVICE);
  const found = await ctx.db.tx(service, (c) =>
    c.query(
      `select (select count(*) from storage.buckets where id = $1)::int as buckets,
              exists (select 1 from storage.objects where bucket_id = $1) as objects`,
      [id],
    ),
  );
  if (!found.rows[0].buckets) throw errors.noSuchBucket();
  if (found.rows[0].objects) throw errors.bucketNotEmpty();
  const deleted = await ctx.db.tx(r.scope(), (c) => c.query('delete from storage.buckets where id = $1', [id]));
  if (!deleted.rowCount) throw errors.noSuchBucket();
  await ctx.files.removeBucket(id);
  sendJson(r.res, 200, { message: 'Successfully deleted' });
};

/** Service role only at storage-api HEAD; deletion is queued there and done at once here. */
export const emptyBucket: Handler = async (ctx, r) => {
  if (r.caller.role !== 'service_role') throw errors.invalidRole('Access denied: Invalid role');
  const id = r.params.bucket;
  await readJson(r.req);
  const removed = await ctx.db.tx(r.scope(), async (c) => {
    if (!(await c.query('select 1 from storage.buckets where id = $1', [id])).rowCount) throw errors.noSuchBucket();
    return (await c.query('delete from storage.objects where bucket_id = $1 returning name, version', [id])).rows;
  });
  for (const o of removed) await ctx.files.remove(id, o.name, o.version);
  sendJson(r.res, 200, { message: 'Empty bucket has been queued. Completion may take up to an hour.' });
};
