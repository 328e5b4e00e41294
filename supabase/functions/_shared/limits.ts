// The limits the app and the edge functions share (docs/product.md §5, §9): sizes, counts, lengths.
// The functions can only read supabase/functions, so the numbers live here; app/lib/constants.ts
// re-exports them, and tests/unit/rules.test.ts holds the database's checks and
// app/lib/constants.ts to them. Plain TypeScript, no Deno or Node API.

export const SUBJECT_MAX_LENGTH = 200;
export const MESSAGE_MAX_LENGTH = 20_000;
export const DISPLAY_NAME_MAX_LENGTH = 60;
/** A file's name as given, kept on its attachments row. */
export const FILE_NAME_MAX_LENGTH = 255;
export const ATTACHMENTS_PER_MESSAGE = 5;
export const ATTACHMENT_MAX_MB = 10;
export const ATTACHMENT_MAX_BYTES = ATTACHMENT_MAX_MB * 1024 * 1024;
