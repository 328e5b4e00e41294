// Attachments' rules (docs/product.md §5), in one place for the app (web uploads:
// app/lib/helpdesk/attachments.ts re-exports them) and the functions (inbound-email), which can only read
// supabase/functions; their count and size are in limits.ts. The bucket repeats the types and the size
// (supabase/config.toml [storage.buckets.attachments]), and the database holds recorded files to the same
// rules (private.attachment_types in supabase/schemas/40_attachments.sql; db-attachments.test.ts keeps the
// two equal). Plain TypeScript, no Deno or Node API.

export const ATTACHMENTS_BUCKET = 'attachments';

/** The allowed types by extension; a file is what its extension says (the bucket checks the type given). */
export const ATTACHMENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  zip: 'application/zip',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The MIME type a file name stands for, or null when the type is not allowed. */
export function attachmentTypeOf(fileName: string): string | null {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return null;
  return ATTACHMENT_TYPES[fileName.slice(dot + 1).toLowerCase()] ?? null;
}

const STORAGE_NAME_MAX = 100;

/**
 * A name storage-api accepts as the last part of a key (its characters: ASCII letters, digits and
 * `_!-.*'() &$@=;:+,?`): anything else (path separators, control characters, accents, emoji) becomes
 * `_`, and a long name is cut, keeping its extension. The name as given is kept in the row.
 */
export function safeStorageName(fileName: string): string {
  const cleaned = fileName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_!\-.*'() &$@=;:+,?]/g, '_')
    .replace(/\.{2,}/g, '.')
    .trim();
  const dot = cleaned.lastIndexOf('.');
  const ext = dot > 0 && cleaned.length - dot <= 10 ? cleaned.slice(dot) : '';
  const stem = (ext ? cleaned.slice(0, dot) : cleaned).slice(0, STORAGE_NAME_MAX - ext.length).trim();
  const name = `${stem}${ext}`;
  // Nothing left, or only dots ("." and ".." are not names a path may end with).
  return /^\.*$/.test(name) ? 'file' : name;
}

/**
 * The type a download is sent with: the recorded one when it is what the product's rules give the
 * file's name, else bytes of no particular type (a row recorded before the database checked types).
 */
export const downloadType = (fileName: string, mimeType: string) =>
  attachmentTypeOf(fileName) === mimeType ? mimeType : 'application/octet-stream';

/** `Content-Disposition: attachment` with the name as given (RFC 6266: an ASCII fallback and UTF-8). */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
