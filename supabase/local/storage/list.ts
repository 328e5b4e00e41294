// Listing objects (storage-api src/http/routes/object/{searchObjects,listObjectsV2}.ts,
// src/storage/object.ts listObjectsV2, src/storage/database/pg.ts listObjectsV2; tenant migration
// 0050 search_v2 / search_by_timestamp; reference fidelity §5.4). Every query runs as the caller, so
// storage.objects policies decide what is listed.
import { type Handler, need, readJson } from './context.ts';
import type { Tx } from './db.ts';
import { errors, sendJson } from './errors.ts';
import { mustBeValidBucketName } from './limits.ts';

/** POST /object/list/{bucket}: one folder level through storage.search, as the caller. */
export const listObjects: Handler = async (ctx, r) => {
  const bucket = r.params.bucket;
  const body = await readJson(r.req);
  let prefix = need.string(body, 'prefix');
  const limit = need.int(body, 'limit', 1, 100);
  const offset = need.int(body, 'offset', 0, 0);
  const search = need.optString(body, 'search') ?? '';
  const { column, order } = sortBy(body, ['name', 'updated_at', 'created_at', 'last_accessed_at']);
  mustBeValidBucketName(bucket);
  // storage-api searchObjects: a prefix is always a folder.
  if (prefix && !prefix.endsWith('/')) prefix += '/';
  const { rows } = await ctx.db.tx(r.scope(), (c) =>
    c.query('select * from storage.search($1, $2, $3, $4, $5, $6, $7, $8)', [
      prefix,
      bucket,
      limit,
      (prefix + search).split('/').length,
      offset,
      search,
      column,
      order,
    ]),
  );
  sendJson(r.res, 200, rows);
};

type Column = 'name' | 'updated_at' | 'created_at';
type Order = 'asc' | 'desc';

/** `sortBy: {column, order}` as Fastify's schema checks it: column required inside, both enums. */
function sortBy<C extends string>(body: Record<string, unknown>, columns: C[]) {
  const s = (body.sortBy ?? {}) as Record<string, unknown>;
  if (body.sortBy !== undefined && s.column === undefined)
    throw errors.validation("body/sortBy must have required property 'column'");
  return {
    /** As sent: a cursor records only what the client chose. */
    given: { column: s.column as C | undefined, order: s.order as Order | undefined },
    column: need.oneOf(s.column, 'body/sortBy/column', columns, columns[0]!),
    order: need.oneOf(s.order, 'body/sortBy/order', ['asc', 'desc'] as Order[], 'asc'),
  };
}

/** What a list-v2 cursor carries (storage-api CONTINUATION_TOKEN_PART_MAP): `l:`, `o:`, `c:`, `a:` lines, base64. */
interface Cursor {
  startAfter: string;
  order?: string;
  column?: string;
  /** The sort column's value at the last entry, ISO. */
  after?: string;
}
const PARTS = { l: 'startAfter', o: 'order', c: 'column', a: 'after' } as const;

export function encodeCursor(c: Cursor): string {
  const lines = Object.entries(PARTS)
    .filter(([, field]) => c[field])
    .map(([k, field]) => `${k}:${c[field]}`);
  return Buffer.from(lines.join('\n')).toString('base64');
}

export function decodeCursor(token: string): Cursor {
  const out: Cursor = { startAfter: '', order: 'asc' };
  for (const line of Buffer.from(token, 'base64').toString().split('\n')) {
    const m = /^(\S):(.*)/.exec(line);
    if (!m || !(m[1]! in PARTS)) throw errors.invalidParameter('continuation token');
    out[PARTS[m[1] as keyof typeof PARTS]] = m[2]!;
  }
  return out;
}

/** One row of a listing: an object, or a folder (id null). */
interface Entry {
  key?: string;
  name: string;
  id: string | null;
  updated_at: Date | null;
  created_at: Date | null;
  last_accessed_at: Date | null;
  metadata: unknown;
}

const FOLDER = { id: null, updated_at: null, created_at: null, last_accessed_at: null, metadata: null };
const BATCH = 200;

/** The folder right under `prefix` that `name` sits in ("a/b/" for "a/b/c.txt" under "a/"), if any. */
function folderOf(name: string, prefix: string): string | null {
  const slash = name.indexOf('/', prefix.length);
  return slash < 0 ? null : name.slice(0, slash + 1);
}

/**
 * Delimited, by name (list_objects_with_delimiter): objects and folders ("a/b/", with the slash)
 * under `prefix` in byte order, each folder once, after the cursor's entry (after a folder, past
 * everything in it).
 */
async function byName(c: Tx, bucket: string, prefix: string, max: number, order: Order, start: string) {
  const asc = order === 'asc';
  // Valid keys are ASCII below DEL, so "<folder>/\x7f" sorts after everything in the folder.
  const past = (folder: string) => (asc ? `${folder}\x7f` : folder);
  let bound: string | null = start ? (start.endsWith('/') ? past(start) : start) : null;
  const out: Entry[] = [];
  for (;;) {
    const { rows } = await c.query<Entry>(
      `select name, id, updated_at, created_at, last_accessed_at, metadata from storage.objects
        where bucket_id = $1 and starts_with(name, $2) and ($3::text is null or name collate "C" ${asc ? '>' : '<'} $3)
        order by name collate "C" ${order} limit ${BATCH}`,
      [bucket, prefix, bound],
    );
    let jumped = false;
    for (const row of rows) {
      if (out.length === max) return out;
      const folder = folderOf(row.name, prefix);
      if (!folder) {
        out.push(row);
        bound = row.name;
        continue;
      }
      out.push({ name: folder, ...FOLDER });
      bound = past(folder);
      jumped = true;
      break; // the rest of this batch may be inside the folder
    }
    if (out.length === max || (!jumped && rows.length < BATCH)) return out;
  }
}

/**
 * Delimited, by a timestamp (search_by_timestamp): folders, named without their slash, carry their oldest object's created_at
 * as both timestamps; entries ordered by the column at millisecond precision, then by name.
 */
async function byTimestamp(
  c: Tx,
  bucket: string,
  prefix: string,
  max: number,
  order: Order,
  column: Column,
  from: Cursor,
) {
  const { rows } = await c.query<Entry>(
    `with listed as (
       select o.*, case when strpos(substr(o.name, length($2) + 1), '/') > 0
                        then left(o.name, length($2) + strpos(substr(o.name, length($2) + 1), '/') - 1) end as folder
         from storage.objects o where o.bucket_id = $1 and starts_with(o.name, $2)
     ), entries as (
       select folder as name, null::uuid as id, min(created_at) as updated_at, min(created_at) as created_at,
              null::timestamptz as last_accessed_at, null::jsonb as metadata
         from listed where folder is not null group by folder
       union all
       select name, id, updated_at, created_at, last_accessed_at, metadata from listed where folder is null
     )
     select * from entries
      where $3 = '' or (date_trunc('milliseconds', ${column}), name collate "C") ${order === 'asc' ? '>' : '<'}
                       (coalesce(nullif($4, '')::timestamptz, 'epoch'), $3)
      order by coalesce(date_trunc('milliseconds', ${column}), 'epoch') ${order}, name collate "C" ${order}
      limit $5`,
    [bucket, prefix, from.startAfter, from.after ?? '', max],
  );
  return rows;
}

/** Not delimited: every key under the prefix, by the sort column (name ignored) then name. */
async function flat(c: Tx, bucket: string, prefix: string, max: number, order: Order, column: Column, from?: Cursor) {
  const op = order === 'asc' ? '>' : '<';
  const byTime = column !== 'name';
  const values: unknown[] = [bucket, prefix, max];
  let seek = '';
  if (from && byTime && from.after) {
    values.push(from.after, from.startAfter);
    seek = `and (date_trunc('milliseconds', ${column}), name collate "C") ${op} (coalesce(nullif($4, '')::timestamptz, 'epoch'), $5)`;
  } else if (from) {
    values.push(from.startAfter);
    seek = `and name collate "C" ${op} $4`;
  }
  const { rows } = await c.query<Entry>(
    `select id, name, metadata, updated_at, created_at, last_accessed_at from storage.objects
      where bucket_id = $1 and starts_with(name, $2) ${seek}
      order by ${byTime ? `${column} ${order}, ` : ''}name collate "C" ${order} limit $3`,
    values,
  );
  return rows;
}

/**
 * POST /object/list-v2/{bucket}: a page of keys under a prefix, folders collapsed with
 * with_delimiter (entries with their `key` under the prefix, folders' names ending in "/"),
 * sorted by name, created_at or updated_at either way; a cursor continues where a page ended.
 */
export const listObjectsV2: Handler = async (ctx, r) => {
  const bucket = r.params.bucket;
  const body = await readJson(r.req);
  const prefix = need.optString(body, 'prefix') ?? '';
  const limit = Math.min(need.int(body, 'limit', 1, 1000), 1000);
  if (body.with_delimiter !== undefined && typeof body.with_delimiter !== 'boolean')
    throw errors.validation('body/with_delimiter must be boolean');
  const delimited = body.with_delimiter === true;
  const sort = sortBy(body, ['name', 'updated_at', 'created_at'] as Column[]);
  const token = need.optString(body, 'cursor');
  const cursor = token ? decodeCursor(token) : undefined;
  mustBeValidBucketName(bucket);
  // A cursor's order and column win over sortBy (storage-api listObjectsV2).
  const order: Order = (cursor?.order ?? sort.order) === 'desc' ? 'desc' : 'asc';
  const column = (cursor?.column ?? sort.given.column) as Column | undefined;
  const sortColumn: Column = column === 'created_at' || column === 'updated_at' ? column : 'name';
  const max = limit + 1; // one more says whether there is a next page

  const rows = await ctx.db.tx(r.scope(), (c) => {
    if (!delimited) return flat(c, bucket, prefix, max, order, sortColumn, cursor);
    if (sortColumn === 'name') return byName(c, bucket, prefix, max, order, cursor?.startAfter ?? '');
    return byTimestamp(c, bucket, prefix, max, order, sortColumn, cursor ?? { startAfter: '' });
  });

  const hasNext = rows.length > limit;
  const page = rows.slice(0, limit);
  // search_v2's `key`: the entry's path segment at the prefix's depth. storage-api then rebuilds
  // each entry whose name goes on past the prefix's level as a bare `{id: null, name}` folder (the
  // by-name listing's "a/b/"); the by-timestamp listing's folders ("a/b") keep their row and key.
  const level = prefix ? prefix.split('/').length : 1;
  const folders: Partial<Entry>[] = [];
  const objects: Entry[] = [];
  for (const row of page) {
    if (delimited && row.name.slice(prefix.length).includes('/')) folders.push({ id: null, name: row.name });
    else if (row.id === null) folders.push({ key: row.name.split('/')[level - 1], ...row, name: `${row.name}/` });
    else objects.push(delimited ? { key: row.name.split('/')[level - 1], ...row } : row);
  }
  const last = page.at(-1);
  const at = last && sortColumn !== 'name' ? last[sortColumn] : null;
  const next =
    hasNext && last
      ? {
          nextCursor: encodeCursor({
            startAfter: last.name,
            order: cursor?.order ?? sort.given.order,
            column,
            after: at ? new Date(at).toISOString() : undefined,
          }),
          nextCursorKey: last.name,
        }
      : {};
  sendJson(r.res, 200, { hasNext, ...next, folders, objects });
};
