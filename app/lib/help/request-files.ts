// A new request's files kept without JavaScript (docs/product.md#the-help-center-public), across the suggestions step
// and a post refused for another file or a field: the first "Submit request" uploads them (under the ticket
// id create_ticket will take, in the uploader's own prefix: docs/decisions/036-files-the-database-checks.md);
// the page then carries that ticket id in the form's address and the files in a hidden field, so the
// next submit records them without choosing them again. Whatever a client changes here, create_ticket
// records only objects under the caller's own prefix and that ticket (private.attach_files), and checks
// them again.
import { ATTACHMENTS_PER_MESSAGE, safeStorageName } from '../helpdesk/attachments.ts';
import { UUID_RE } from '../helpdesk/ticket-terms.ts';

/** The form address's parameter: the ticket id the kept files are under. */
export const KEPT_TICKET_PARAM = 'ticket';
/** The hidden field: the kept files, as create_ticket's p_attachments (JSON). */
export const KEPT_FILES_FIELD = 'kept_files';
/** Sent by a page running JavaScript, whose file input keeps its files after a refused post. */
export const SCRIPTED_FIELD = 'scripted';

export interface KeptFile {
  id: string;
  file_name: string;
  storage_name: string;
}

/** The kept files a form sent: [] when none, null when the field is not a list of files (tampered). */
export function parseKeptFiles(raw: FormDataEntryValue | null): KeptFile[] | null {
  if (raw === null || raw === '') return [];
  let list: unknown;
  try {
    list = JSON.parse(String(raw));
  } catch {
    return null;
  }
  if (!Array.isArray(list) || list.length > ATTACHMENTS_PER_MESSAGE) return null;
  const files: KeptFile[] = [];
  for (const f of list as Partial<KeptFile>[]) {
    const ok =
      typeof f?.id === 'string' &&
      UUID_RE.test(f.id) &&
      typeof f.file_name === 'string' &&
      f.file_name.length > 0 &&
      f.file_name.length <= 255 &&
      typeof f.storage_name === 'string' &&
      f.storage_name === safeStorageName(f.storage_name);
    if (!ok) return null;
    files.push({ id: f.id!, file_name: f.file_name!, storage_name: f.storage_name! });
  }
  return files;
}

/** The ticket id the form's address names, if it is one. */
export function keptTicketId(url: URL): string | null {
  const id = url.searchParams.get(KEPT_TICKET_PARAM);
  return id && UUID_RE.test(id) ? id : null;
}
