// The product's constants and limits (docs/product.md §9 and §5). Everything else imports these;
// no other file repeats the numbers.

// One-time code (docs/product.md §9; supabase/config.toml [auth.email] holds the same values).
export const OTP_LENGTH = 6;
export const OTP_VALID_SECONDS = 10 * 60;
export const RESEND_COOLDOWN_SECONDS = 60;
/** The one-click sign-in link of a notification email works once, for this long (email_sign_in_links.expires_at). */
export const EMAIL_LINK_VALID_HOURS = 24;

// Sizes, counts and lengths shared with the edge functions, which can only read supabase/functions.
export {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENT_MAX_MB,
  ATTACHMENTS_PER_MESSAGE,
  DISPLAY_NAME_MAX_LENGTH,
  FILE_NAME_MAX_LENGTH,
  MESSAGE_MAX_LENGTH,
  SUBJECT_MAX_LENGTH,
} from '../../supabase/functions/_shared/limits.ts';

// Tickets and invitations
export const INVITATION_LIFETIME_DAYS = 7;
/** Days a ticket stays in Trash before it is deleted for good (private.trash_days()). */
export const TRASH_DAYS = 30;
export const INBOX_PAGE_SIZE = 25;
/** Followers a ticket may have besides its requester (supabase/schemas/54_followers.sql). */
export const FOLLOWERS_PER_TICKET = 20;
/** The longest inbox search kept (more is cut). */
export const MAX_QUERY_LENGTH = 200;
/** A company's name (companies.name; empty shows its domain). */
export const COMPANY_NAME_MAX_LENGTH = 80;
/** The most the notifications page lists (newest first). */
export const NOTIFICATIONS_PAGE = 50;

// Reports (/w/:slug/reports): the ranges offered, the one shown first, and the longest (workspace_report's too).
export const REPORT_RANGES_DAYS = [7, 30, 90] as const;
export const REPORT_DEFAULT_DAYS = 30;
export const REPORT_MAX_DAYS = 366;

// Realtime connection
export const REALTIME_TIMEOUT_MS = 10_000;
export const REALTIME_HEARTBEAT_MS = 30_000;
export const REALTIME_BACKOFF_MS = [1_000, 2_000, 5_000, 10_000] as const;

// Field lengths (docs/product.md §5; subject, message and display name above)
export const EMAIL_MAX_LENGTH = 254;
/** The message box counts characters from here on (with JavaScript). */
export const MESSAGE_COUNTER_FROM = 18_000;
export const WORKSPACE_NAME_MAX_LENGTH = 80;
export const CANNED_REPLY_TITLE_MAX_LENGTH = 80;
export const CANNED_REPLY_BODY_MAX_LENGTH = 5_000;

// Sign-in limits enforced by the app on top of Supabase Auth's own (docs/decisions/003-abuse-limits.md,
// 020-sign-in-limits.md). Wrong codes per address: the ceiling of one code (it lives OTP_VALID_SECONDS);
// past it that code is spent and only a new one works. Per IP: enough for a few codes mistyped.
export const VERIFY_ATTEMPTS_PER_EMAIL = { limit: 5, windowSeconds: OTP_VALID_SECONDS } as const;
export const VERIFY_ATTEMPTS_PER_IP = { limit: 20, windowSeconds: 10 * 60 } as const;
export const CODE_REQUESTS_PER_IP = { limit: 10, windowSeconds: 10 * 60 } as const;

// The most of a POST the backend_unavailable page reads to give the text back (a full message is
// ~240 KB URL-encoded; bigger bodies carry files, which are not kept).
export const FORM_MAX_BYTES_KEPT = 512 * 1024;
