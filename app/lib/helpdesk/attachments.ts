// Attachments' rules the browser needs too (docs/product.md §5): the types by file extension, the
// file input's `accept`, a storage-safe name, sizes as people read them. The rules themselves are
// shared with the edge functions (inbound-email stores mailed files by them).
import { ATTACHMENT_TYPES, attachmentTypeOf } from '../../../supabase/functions/_shared/attachment-rules.ts';

export {
  ATTACHMENT_TYPES,
  ATTACHMENTS_BUCKET,
  attachmentTypeOf,
  safeStorageName,
} from '../../../supabase/functions/_shared/attachment-rules.ts';
export { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE } from '../../../supabase/functions/_shared/limits.ts';
/** The file input's name on every composer. */
export const FILES_FIELD = 'files';

/** The file input's `accept`: the extensions. */
export const ATTACHMENT_ACCEPT = Object.keys(ATTACHMENT_TYPES)
  .map((ext) => `.${ext}`)
  .join(',');

/** Images show as thumbnails; every file downloads (attachments.server.ts sendFile). */
export const isImageType = (mimeType: string) => /^image\/(png|jpeg|gif|webp)$/.test(mimeType);

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
