// Why a file was not taken, as lists of files say it (docs/product.md §5): the composer's list of chosen
// files (app/components/attachments-enhance.ts) and a mailed message's files (inbound-email). A module of
// its own, so only what shows these loads them. Plain TypeScript, no Deno or Node API.
import { ATTACHMENT_MAX_MB, ATTACHMENTS_PER_MESSAGE } from './limits.ts';

export const FILE_REFUSALS = {
  type: 'file type not accepted',
  size: `over ${ATTACHMENT_MAX_MB} MB`,
  count: `more than ${ATTACHMENTS_PER_MESSAGE} files`,
  unreadable: 'unreadable',
} as const;

export type FileRefusal = keyof typeof FILE_REFUSALS;
