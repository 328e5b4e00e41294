// Attachments' rules the browser needs too (docs/product.md §5): the types by file extension, the
// file input's `accept`, a storage-safe name, sizes as people read them. The rules themselves are
// shared with the edge functions (inbound-email stores mailed files by them).
import { ATTACHMENT_TYPES } from '../../../supabase/functions/_shared/attachment-rules.ts';

export {
  ATTACHMENT_TYPES,
  ATTACHMENTS_BUCKET,
  attachmentDisposition,
  attachmentTypeOf,
  downloadType,
  safeStorageName,
} from '../../../supabase/functions/_shared/attachment-rules.ts';
export { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE } from '../../../supabase/functions/_shared/limits.ts';
/** 2.4 MB, 312 KB, 12 bytes. */
export { formatSize } from '../../../supabase/functions/_shared/email-files.ts';
/** The file input's name on every composer. */
export const FILES_FIELD = 'files';

/** The file input's `accept`: the extensions. */
export const ATTACHMENT_ACCEPT = Object.keys(ATTACHMENT_TYPES)
  .map((ext) => `.${ext}`)
  .join(',');

/** Images show as thumbnails; every file downloads (attachments.server.ts sendFile). */
export const isImageType = (mimeType: string) => /^image\/(png|jpeg|gif|webp)$/.test(mimeType);

/** What a file's row gives a page. */
export interface AttachmentView {
  id: string;
  file_name: string;
  size: number;
  mime_type: string;
}
