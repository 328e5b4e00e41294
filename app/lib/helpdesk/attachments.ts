// Attachments' rules the browser needs too (docs/product.md §5): the types by file extension, the
// file input's `accept`, a storage-safe name, sizes as people read them. The bucket repeats the
// types and the size (supabase/config.toml [storage.buckets.attachments]).
import { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE } from '../constants.ts';

export const ATTACHMENTS_BUCKET = 'attachments';
/** The file input's name on every composer. */
export const FILES_FIELD = 'files';
export { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE };

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

/** The file input's `accept`: the extensions. */
export const ATTACHMENT_ACCEPT = Object.keys(ATTACHMENT_TYPES)
  .map((ext) => `.${ext}`)
  .join(',');

/** The MIME type a file name stands for, or null when the type is not allowed. */
export function attachmentTypeOf(fileName: string): string | null {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return null;
  return ATTACHMENT_TYPES[fileName.slice(dot + 1).toLowerCase()] ?? null;
}

/** Images show as thumbnails (and open inline); everything else downloads. */
export const isImageType = (mimeType: string) => /^image\/(png|jpeg|gif|webp)$/.test(mimeType);

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

/** 2.4 MB, 312 KB, 12 bytes. */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** What a file's row gives a page. */
export interface AttachmentView {
  id: string;
  file_name: string;
  size: number;
  mime_type: string;
}
