// Invitations (docs/product.md §2, §4): a random token goes out in the email, the database keeps only
// its SHA-256. The email is Auth's sign-in email to the invited address, whose link signs them in and
// goes on to /invite/:token (docs/decisions/023-invitation-email.md): the app holds no key that could
// send mail of its own.
import { createHash, randomBytes } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { codeSent } from '../auth/abuse-limits.server.ts';
import { signInLink } from '../auth/sign-in-link.server.ts';
import { env } from '../env.server.ts';
import { mapAuthError, mappedMessage } from '../errors/from-auth.ts';
import { log } from '../http/log.server.ts';
import { clientIp } from '../http/request-info.server.ts';
import { signInFetch } from '../supabase/sign-in-fetch.server.ts';

/** What /invite/:token accepts: the base64url of 32 random bytes (and nothing that isn't URL-safe). */
export const INVITATION_TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export function newInvitationToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: createHash('sha256').update(token).digest('hex') };
}

export function invitationPath(token: string): string {
  return `/invite/${token}`;
}

/**
 * Emails the invitation: a sign-in code to the invited address, its link leading to /invite/:token.
 * A client of its own, without cookies: the admin's session must not change. Returns the catalogue
 * message when Auth refused (e.g. an email to that address less than a minute ago), null when sent.
 */
export async function sendInvitationEmail(request: Request, email: string, token: string): Promise<string | null> {
  const client = createClient(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType: 'implicit' },
    global: { fetch: signInFetch(fetch, { url: env.SUPABASE_URL, key: env.signInKey, ip: clientIp(request) }) },
  });
  const { error } = await client.auth.signInWithOtp({
    email,
    options: { shouldCreateUser: true, emailRedirectTo: signInLink(request, invitationPath(token)) },
  });
  if (!error) {
    await codeSent(email);
    return null;
  }
  const mapped = mapAuthError(error);
  log.warn('invitation email not sent', { code: mapped.code, auth_code: error.code, status: error.status });
  return mappedMessage(mapped);
}
