// Names, sizes and MIME types as storage-api checks them (src/storage/limits.ts, uploader.ts, storage.ts).
import { errors } from './errors.ts';

// storage-api: S3-safe characters only (so non-ASCII names are InvalidKey).
const VALID_KEY = /^[A-Za-z0-9_/!.*'() &$=@;:+,?-]+$/;
const VALID_BUCKET = /^[A-Za-z0-9_!.*'() &$=@;:+,?-]{1,100}$/;

export function mustBeValidKey(key: string | undefined): asserts key is string {
  if (!key || !VALID_KEY.test(key)) throw errors.invalidKey(key ?? '');
}

export function mustBeValidBucketName(name: string | undefined): asserts name is string {
  if (!name || !VALID_BUCKET.test(name)) throw errors.invalidBucketName();
}

/** Placeholder objects the dashboard creates for empty folders: no MIME check, 0 bytes. */
export const isEmptyFolder = (key: string) => key.endsWith('.emptyFolderPlaceholder');

/** storage-api parseFileSizeToBytes: "20MB", "1.5GB", "30KB", "3B" (decimal units). */
export function parseFileSize(value: string): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)(gb|mb|kb|b)$/i.exec(value);
  if (!m) throw errors.invalidFileSizeLimit();
  const n = Number(Number.parseFloat(m[1]).toPrecision(3));
  const unit = { gb: 1e9, mb: 1e6, kb: 1e3, b: 1 }[m[2].toLowerCase() as 'gb' | 'mb' | 'kb' | 'b'];
  return n * unit;
}

/** Entries of a bucket's allowed_mime_types: `type/subtype` (optionally `; charset=…`) or ending in `*`. */
export function mustBeValidMimeList(types: string[]) {
  for (const t of types) {
    if (t.length > 1000 || !/^([a-zA-Z0-9\-+.]+)\/([a-zA-Z0-9\-+.]+)(;\s*charset=[a-zA-Z0-9-]+)?$|\*$/.test(t))
      throw errors.invalidMimeType(t);
  }
}

/**
 * storage-api validateMimeType: same type and either the same subtype or `*`. The subtype is
 * compared as sent, so `text/plain;charset=UTF-8` does not match an allowed `text/plain`.
 */
export function mustBeAllowedMime(mime: string, allowed: string[] | null | undefined) {
  if (!allowed?.length) return;
  const [type, subtype] = mime.split('/');
  if (subtype === undefined) throw errors.invalidMimeType(mime);
  for (const entry of allowed) {
    const [t, s] = entry.split('/');
    if (t === type && (s === '*' || s === subtype)) return;
  }
  throw errors.invalidMimeType(mime);
}
