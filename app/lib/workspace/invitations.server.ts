// Invitations (docs/product.md §2, §4): a random token goes out in the email, the database keeps only
// its SHA-256. The email is the notify edge function's, called by the database when an invitation is
// written with its token (docs/decisions/024-invitation-email-by-notify.md).
import { createHash, randomBytes } from 'node:crypto';

/** What /invite/:token accepts: the base64url of 32 random bytes (and nothing that isn't URL-safe). */
export const INVITATION_TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export function newInvitationToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: createHash('sha256').update(token).digest('hex') };
}

/**
 * The header that carries the token with the write that stores its hash: the database's trigger hands
 * it to notify, which mails the link (supabase/schemas/80_email.sql, private.notify_invitation).
 */
export const INVITATION_TOKEN_HEADER = 'X-Invitation-Token';
