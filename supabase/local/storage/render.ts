// Serving an object's bytes and info as storage-api's renderers do (src/storage/renderer/*,
// backend/file.ts getObject; reference A2.2): conditional GETs, ranges, download names.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { errors, sendError, sendJson } from './errors.ts';
import type { FileStore } from './files.ts';

export interface ObjectMetadata {
  eTag?: string;
  size?: number;
  mimetype?: string;
  cacheControl?: string;
  lastModified?: string;
  contentLength?: number;
  httpStatusCode?: number;
}

export interface ObjectRow {
  id: string;
  name: string;
  bucket_id: string;
  version: string | null;
  metadata: ObjectMetadata | null;
  user_metadata: Record<string, unknown> | null;
  updated_at: Date;
  created_at: Date;
}

/** storage-api parseRangeHeader: `bytes=a-b`, `bytes=a-`, `bytes=-n`; anything else is a 416. */
export function parseRange(header: string, size: number): { start: number; end: number } {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header);
  if (!m || size <= 0 || (!m[1] && !m[2])) throw errors.invalidRange();
  if (!m[1]) {
    const suffix = Number(m[2]);
    if (!Number.isSafeInteger(suffix) || suffix <= 0) throw errors.invalidRange();
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] ? Number(m[2]) : size - 1;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start || start >= size)
    throw errors.invalidRange();
  return { start, end: Math.min(end, size - 1) };
}

/** storage-api handleDownload: `?download` asks the browser to save the file, under a name if one is given. */
export function contentDisposition(download: string | null): Record<string, string> {
  if (download === null) return {};
  if (download === '') return { 'content-disposition': 'attachment;' };
  const name = encodeURIComponent(download);
  return { 'content-disposition': `attachment; filename=${name}; filename*=UTF-8''${name}` };
}

export interface RenderOptions {
  download: string | null;
  /** Signed URLs send the token's expiry as Expires instead of Cache-Control. */
  expires?: string;
}

export async function sendObject(
  files: FileStore,
  req: IncomingMessage,
  res: ServerResponse,
  row: ObjectRow,
  opts: RenderOptions,
): Promise<void> {
  const st = row.version ? await files.stat(row.bucket_id, row.name, row.version) : undefined;
  if (!st) return sendError(res, errors.fileMissing(), { 'cache-control': 'no-store' });
  const md = row.metadata ?? {};
  const eTag = md.eTag ?? '';
  const ifNoneMatch = req.headers['if-none-match'];
  const ifModifiedSince = req.headers['if-modified-since'];
  if (
    (ifNoneMatch && ifNoneMatch === eTag) ||
    (ifModifiedSince && st.mtime.getTime() <= new Date(ifModifiedSince).getTime() + 999)
  ) {
    res.writeHead(304);
    return void res.end();
  }
  const range = req.headers.range ? parseRange(req.headers.range, st.size) : undefined;
  const length = range ? range.end - range.start + 1 : st.size;
  const mime = md.mimetype ?? 'application/octet-stream';
  res.writeHead(range ? 206 : 200, {
    'accept-ranges': 'bytes',
    // storage-api never serves HTML as HTML from the API's origin.
    'content-type': mime.includes('text/html') ? 'text/plain' : mime,
    etag: eTag,
    'x-robots-tag': 'none',
    'last-modified': st.mtime.toUTCString(),
    'content-length': String(length),
    ...(opts.expires ? { expires: opts.expires } : { 'cache-control': md.cacheControl ?? 'no-cache' }),
    ...(range ? { 'content-range': `bytes ${range.start}-${range.end}/${st.size}` } : {}),
    ...contentDisposition(opts.download),
  });
  if (req.method === 'HEAD') return void res.end();
  // A client that goes away mid-download ends the pipeline with an error; nothing to answer then.
  await pipeline(files.read(row.bucket_id, row.name, row.version!, range), res).catch(() => undefined);
}

/** GET /object/info/…: the object's row and stored metadata (storage-api InfoRenderer). */
export function sendInfo(res: ServerResponse, row: ObjectRow) {
  const md = row.metadata ?? {};
  const headers: Record<string, string> = {};
  if (md.eTag) headers.etag = md.eTag;
  if (md.cacheControl) headers['cache-control'] = md.cacheControl;
  if (md.lastModified) headers['last-modified'] = new Date(md.lastModified).toUTCString();
  sendJson(
    res,
    200,
    {
      id: row.id,
      name: row.name,
      version: row.version,
      bucket_id: row.bucket_id,
      size: md.size ?? null,
      content_type: md.mimetype ?? null,
      cache_control: md.cacheControl ?? null,
      etag: md.eTag ?? null,
      metadata: row.user_metadata,
      last_modified: row.updated_at,
      created_at: row.created_at,
    },
    headers,
  );
}
