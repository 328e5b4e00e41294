// The error catalogue (docs/product.md §8): stable codes → the message a user reads and the HTTP
// status. Codes are logged and tested; every user-facing error message comes from here or from
// catalogue.server.ts. This module holds the codes whose messages the browser itself shows: the error
// page's (codeForStatus), the composer's file and length checks, the code step's countdown. Every other
// code is in catalogue.server.ts, so that no page's JavaScript carries messages only the server gives
// (docs/decisions/006-javascript-budget.md).
import { ATTACHMENT_MAX_MB, ATTACHMENTS_PER_MESSAGE, MESSAGE_MAX_LENGTH } from '../constants.ts';

export const browserCatalogue = {
  code_rate_limited: {
    status: 429,
    message: (p: { seconds: number }) => `You can request a new code in ${p.seconds} seconds.`,
  },
  // With the wait when it is known (the invitation limits give it).
  too_many_attempts: {
    status: 429,
    message: (p?: { minutes: number }) =>
      `Too many attempts. Try again in ${p ? `${p.minutes} minute${p.minutes > 1 ? 's' : ''}` : 'a few minutes'}.`,
  },
  session_expired: { status: 401, message: () => 'Your session has ended. Sign in again.' },
  not_found: { status: 404, message: () => "We couldn't find that." },
  forbidden: { status: 403, message: () => "You don't have access to this." },
  attachment_too_large: {
    status: 400,
    message: (p: { fileName: string }) => `"${p.fileName}" is larger than ${ATTACHMENT_MAX_MB} MB.`,
  },
  attachment_type: {
    status: 400,
    message: (p: { fileName: string }) => `"${p.fileName}" isn't a supported file type.`,
  },
  too_many_attachments: {
    status: 400,
    message: () => `Attach at most ${ATTACHMENTS_PER_MESSAGE} files to one message.`,
  },
  // A form sent while the browser can't reach Tend (clientAction, app/components/forms.tsx).
  offline: {
    status: 503,
    message: () => 'No connection: nothing was sent. Your text is kept; send it again.',
  },
  backend_unavailable: {
    status: 503,
    message: () => "Tend can't reach its database right now. Your text is kept; try again.",
  },
  // A message over the limit: refused, never cut (the text is given back; the composer counts).
  message_too_long: {
    status: 400,
    message: () => `Keep the message under ${MESSAGE_MAX_LENGTH.toLocaleString('en')} characters.`,
  },
  bad_request: { status: 400, message: () => "That request wasn't valid. Go back and try again." },
  unexpected: { status: 500, message: () => 'Something went wrong on our side. Try again in a moment.' },
} as const;

export type BrowserErrorCode = keyof typeof browserCatalogue;
type BrowserParams<C extends BrowserErrorCode> = Parameters<(typeof browserCatalogue)[C]['message']>;

export function errorMessage<C extends BrowserErrorCode>(code: C, ...params: BrowserParams<C>): string {
  return (browserCatalogue[code].message as (...p: BrowserParams<C>) => string)(...params);
}

/** The catalogue code for an HTTP status when nothing more specific is known (error pages). */
export function codeForStatus(status: number): BrowserErrorCode {
  if (status === 404 || status === 405) return 'not_found';
  if (status === 403) return 'forbidden';
  if (status === 401) return 'session_expired';
  if (status === 429) return 'too_many_attempts';
  if (status === 503) return 'backend_unavailable';
  if (status >= 400 && status < 500) return 'bad_request';
  return 'unexpected';
}
