// The error catalogue (docs/product.md §8): stable codes → the message a user reads and the HTTP
// status. Codes are logged and tested; every user-facing error message comes from here.
import {
  ATTACHMENT_MAX_MB,
  ATTACHMENTS_PER_MESSAGE,
  DISPLAY_NAME_MAX_LENGTH,
  EMAIL_LINK_VALID_HOURS,
  MESSAGE_MAX_LENGTH,
  REPORT_MAX_DAYS,
} from '../constants.ts';

const WITH_A_CODE = ' Sign in with a code instead.';

const catalogue = {
  email_invalid: { status: 400, message: () => 'Enter a valid email address.' },
  code_invalid: {
    status: 400,
    message: () => 'That code is wrong or has expired. Check the latest email or send a new code.',
  },
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
  // The address's ceiling of wrong codes (docs/decisions/020-sign-in-limits.md): only a new code works.
  code_used_up: {
    status: 429,
    message: () => 'That code was entered wrong too many times and no longer works. Send a new code.',
  },
  // The one-click link of a notification email (docs/decisions/035-email-sign-in-links.md).
  link_invalid: { status: 400, message: () => "This sign-in link isn't valid. Sign in with a code instead." },
  link_used: { status: 410, message: () => 'This sign-in link was already used. Sign in with a code instead.' },
  link_expired: {
    status: 410,
    message: () =>
      `This sign-in link has expired (it worked for ${EMAIL_LINK_VALID_HOURS} hours). Sign in with a code instead.`,
  },
  session_expired: { status: 401, message: () => 'Your session has ended. Sign in again.' },
  not_found: { status: 404, message: () => "We couldn't find that." },
  forbidden: { status: 403, message: () => "You don't have access to this." },
  invalid_transition: {
    status: 409,
    message: (p: { from: string; to: string }) => `A ticket can't go from ${p.from} to ${p.to}.`,
  },
  ticket_closed: { status: 409, message: () => 'This request is closed. Open a follow-up request.' },
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
  slug_taken: { status: 409, message: () => 'That address is taken.' },
  invitation_invalid: { status: 410, message: () => 'This invitation is no longer valid. Ask an admin for a new one.' },
  already_member: { status: 409, message: () => 'That person is already a member of this workspace.' },
  invitation_email_mismatch: { status: 403, message: () => 'This invitation was sent to another email address.' },
  last_admin: { status: 409, message: () => 'A workspace needs at least one admin.' },
  ticket_changed: {
    status: 409,
    message: () => 'Someone replied while you were writing. Read the new message; your draft is kept.',
  },
  assignee_not_member: { status: 400, message: () => 'Only members of this workspace can be assigned.' },
  // The statement timeout stopped a search (public.inbox, supabase/schemas/50_inbox.sql): the page keeps the query.
  search_timeout: {
    status: 503,
    message: () => 'This search took too long. Narrow it with a view or a filter, or add a word.',
  },
  backend_unavailable: {
    status: 503,
    message: () => "Tend can't reach its database right now. Your text is kept; try again.",
  },
  // Added by the app (not in docs/product.md §8 yet): a field rule and the pages for errors no user can cause.
  // A sidebar change made on an older view of the ticket (the optimistic check): who changed what.
  ticket_field_changed: {
    status: 409,
    message: (p: { who: string; change: string }) => `${p.who} ${p.change} a moment ago. This is how it is now.`,
  },
  // A message over the limit: refused, never cut (the text is given back; the composer counts).
  message_too_long: {
    status: 400,
    message: () => `Keep the message under ${MESSAGE_MAX_LENGTH.toLocaleString('en')} characters.`,
  },
  // Canned replies (/w/:slug/settings/replies).
  title_taken: { status: 409, message: () => 'A canned reply with that title already exists.' },
  placeholder_unknown: {
    status: 400,
    message: (p: { name: string }) => `"{{${p.name}}}" isn't a placeholder. Use one from the list.`,
  },
  // The reports' custom range.
  date_invalid: { status: 400, message: () => 'Enter a date such as 2026-01-31.' },
  date_range_invalid: {
    status: 400,
    message: () => `Choose an end date on or after the start date, at most ${REPORT_MAX_DAYS} days later.`,
  },
  // The help center's editor (/w/:slug/help).
  article_too_long: {
    status: 400,
    // ARTICLE_BODY_MAX_LENGTH (app/lib/help/limits.ts, kept out of every page's bundle; a unit test holds them equal).
    message: () => 'Keep the article under 50,000 characters.',
  },
  article_changed: {
    status: 409,
    message: () => 'Someone saved this article meanwhile. Your text is kept: save to replace theirs.',
  },
  collection_taken: { status: 409, message: () => 'That collection exists already.' },
  display_name_invalid: { status: 400, message: () => `Enter a name of 1 to ${DISPLAY_NAME_MAX_LENGTH} characters.` },
  bad_request: { status: 400, message: () => "That request wasn't valid. Go back and try again." },
  too_large: { status: 413, message: () => 'That was more than a form can send. Shorten it and try again.' },
  unexpected: { status: 500, message: () => 'Something went wrong on our side. Try again in a moment.' },
} as const;

type Catalogue = typeof catalogue;
export type ErrorCode = keyof Catalogue;
export type ErrorParams<C extends ErrorCode> = Parameters<Catalogue[C]['message']>;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(catalogue, value);
}

export function errorMessage<C extends ErrorCode>(code: C, ...params: ErrorParams<C>): string {
  return (catalogue[code].message as (...p: ErrorParams<C>) => string)(...params);
}

export function errorStatus(code: ErrorCode): number {
  return catalogue[code].status;
}

/** The catalogue code for an HTTP status when nothing more specific is known (error pages). */
export function codeForStatus(status: number): ErrorCode {
  if (status === 404 || status === 405) return 'not_found';
  if (status === 403) return 'forbidden';
  if (status === 401) return 'session_expired';
  if (status === 429) return 'too_many_attempts';
  if (status === 503) return 'backend_unavailable';
  if (status >= 400 && status < 500) return 'bad_request';
  return 'unexpected';
}

/** The JSON body of catalogue error responses. */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
}
