// [storage.buckets.<name>] from config.toml, applied at every start as `supabase start` and
// `supabase seed buckets` apply them (CLI pkg/storage/batch.go): a bucket is created, or its set
// properties updated; the files under objects_path are uploaded over what is there.
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BucketConfig } from '../config.ts';
import { insertBucket, updateBucketRow } from './bucket.ts';
import { SERVICE } from './caller.ts';
import type { Store } from './context.ts';
import type { Scope } from './db.ts';
import { errors, StorageError } from './errors.ts';
import { isEmptyFolder, mustBeAllowedMime, mustBeValidBucketName, mustBeValidKey } from './limits.ts';
import { saveUpload } from './object.ts';

// The CLI sniffs the type and falls back on the extension (Go's mime.TypeByExtension); by extension here.
const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.zip': 'application/zip',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.mp4': 'video/mp4',
  '.mp3': 'audio/mpeg',
};

export const mimeTypeOf = (file: string) => TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';

async function filesUnder(root: string): Promise<{ file: string; key: string }[]> {
  if (!(await stat(root)).isDirectory()) return [{ file: root, key: path.basename(root) }];
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { file, key: path.relative(root, file).split(path.sep).join('/') };
    });
}

async function uploadFile(ctx: Store, scope: Scope, bucket: string, file: string, key: string) {
  mustBeValidKey(key);
  const { rows } = await ctx.db.tx(scope, (c) => c.query('select * from storage.buckets where id = $1', [bucket]));
  const b = rows[0];
  const mimeType = mimeTypeOf(file);
  if (!isEmptyFolder(key)) mustBeAllowedMime(mimeType, b.allowed_mime_types);
  const limit = Math.min(
    ctx.globalLimit,
    b.file_size_limit === null ? Number.POSITIVE_INFINITY : Number(b.file_size_limit),
  );
  const written = await ctx.files.write(createReadStream(file), isEmptyFolder(key) ? 0 : limit);
  // Unchanged since the last start: keep the stored version rather than write a new one.
  const current = await ctx.db.tx(scope, (c) =>
    c.query("select metadata->>'eTag' as etag from storage.objects where bucket_id = $1 and name = $2", [bucket, key]),
  );
  if (current.rows[0]?.etag === written.eTag) return ctx.files.discard(written.tmp);
  await saveUpload(ctx, scope, written, { bucket, key, mimeType, cacheControl: 'max-age=3600' }, true);
}

export async function seedBuckets(ctx: Store, buckets: Record<string, BucketConfig>) {
  const scope: Scope = { caller: SERVICE, operation: 'storage.bucket.create' };
  for (const [name, b] of Object.entries(buckets)) {
    try {
      mustBeValidBucketName(name);
      if (b.fileSizeLimit > ctx.globalLimit) throw errors.entityTooLarge();
      const settings = {
        public: b.public,
        fileSizeLimit: b.fileSizeLimit > 0 ? b.fileSizeLimit : undefined,
        allowedMimeTypes: b.allowedMimeTypes.length ? b.allowedMimeTypes : undefined,
      };
      const exists = await ctx.db.tx(scope, (c) => c.query('select 1 from storage.buckets where id = $1', [name]));
      if (!exists.rowCount) await insertBucket(ctx, scope, name, name, settings);
      else if (Object.values(settings).some((v) => v !== undefined)) await updateBucketRow(ctx, scope, name, settings);
      if (b.objectsPath) {
        for (const { file, key } of await filesUnder(b.objectsPath)) await uploadFile(ctx, scope, name, file, key);
      }
    } catch (err) {
      const reason = err instanceof StorageError ? `${err.code}: ${err.message}` : (err as Error).message;
      throw new Error(`config.toml [storage.buckets.${name}]: ${reason}`);
    }
  }
}
