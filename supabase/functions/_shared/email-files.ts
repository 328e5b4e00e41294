// Which of a reply's files go with its email and which as links (docs/decisions/047-emails-that-carry-the-conversation.md).
// Plain TypeScript: notify decides with it, the unit tests check it.

/** The most a reply's email carries as attachments, all files together. */
export const EMAIL_FILES_MAX_MB = 10;
export const EMAIL_FILES_MAX_BYTES = EMAIL_FILES_MAX_MB * 1024 * 1024;
/** How long the link of a file that didn't fit works, without signing in. */
export const FILE_LINK_DAYS = 7;

export interface EmailFileRow {
  id: string;
  file_name: string;
  size: number;
}

/**
 * The files that go with the email, smallest first while the total fits (the most files attached; the
 * rows of one message have no order of their own), and the rest as links; each list by name.
 */
export function splitFiles<F extends EmailFileRow>(files: F[], max = EMAIL_FILES_MAX_BYTES) {
  const attached: F[] = [];
  const linked: F[] = [];
  let total = 0;
  const bySize = [...files].sort((a, b) => a.size - b.size || a.file_name.localeCompare(b.file_name));
  for (const f of bySize) {
    if (total + f.size <= max) {
      attached.push(f);
      total += f.size;
    } else linked.push(f);
  }
  const byName = (a: F, b: F) => a.file_name.localeCompare(b.file_name);
  return { attached: attached.sort(byName), linked: linked.sort(byName) };
}

/** 2.4 MB, 312 KB, 12 bytes. */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
