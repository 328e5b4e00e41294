// The one-click sign-in link of a notification email (docs/decisions/035-email-sign-in-links.md): notify
// stores a token per email (only its hash); /auth/confirm's POST spends it here, once, then signs its
// user in as Auth's own email link would: an admin magic link for that address, verified at once on
// this request's cookie-bound client (which sets the session cookies). Both calls use the secret key,
// server-side only, as the other sign-in calls do (docs/decisions/020-sign-in-limits.md).
import { createClient } from '@supabase/supabase-js';
import { env } from '../env.server.ts';
import type { ErrorCode } from '../errors/catalogue.server.ts';
import { mapAuthError } from '../errors/from-auth.server.ts';
import { mapDbError } from '../errors/from-db.server.ts';
import { log } from '../http/log.server.ts';
import { safeRedirect } from '../http/safe-redirect.ts';
import { landingPage } from './landing.server.ts';
import type { Database } from '../supabase/database.types.ts';
import { getSupabase } from '../supabase/client.server.ts';

const LINK_CODES = new Set<ErrorCode>(['link_invalid', 'link_used', 'link_expired', 'backend_unavailable']);

/** Signs in with a link's token: where to go next, or the catalogue code saying why not. */
export async function signInWithEmailLink(
  request: Request,
  token: string,
): Promise<{ next: string; code?: never } | { code: ErrorCode; next?: never }> {
  if (!env.signInKey) {
    log.warn('email sign-in link refused: SUPABASE_SECRET_KEY is not set');
    return { code: 'link_invalid' };
  }
  const platform = createClient<Database>(env.SUPABASE_URL, env.signInKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    db: { retry: false },
    global: { fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(10_000) }) },
  });
  // Spent first: whatever happens next, the link has been used once.
  const { data, error } = await platform.rpc('use_email_sign_in_link', { p_token: token });
  if (error) {
    const { code } = mapDbError(error, 'email sign-in link');
    return { code: LINK_CODES.has(code) ? code : 'unexpected' };
  }
  const [link] = data ?? [];
  if (!link) return { code: 'link_invalid' }; // its user is gone
  const made = await platform.auth.admin.generateLink({ type: 'magiclink', email: link.email });
  const hashed = made.data.properties?.hashed_token;
  if (made.error || !hashed) return { code: made.error ? authCode(made.error, 'generate') : 'unexpected' };
  const { data: verified, error: verifyError } = await getSupabase(request).supabase.auth.verifyOtp({
    token_hash: hashed,
    type: 'magiclink',
  });
  if (verifyError) return { code: authCode(verifyError, 'verify') };
  return { next: await landingPage(request, safeRedirect(link.next, '/'), verified.user) };
}

function authCode(error: Parameters<typeof mapAuthError>[0], step: string): ErrorCode {
  const { code } = mapAuthError(error);
  log.warn('email sign-in link not exchanged', { step, code, auth_code: error.code, status: error.status });
  return code === 'backend_unavailable' || code === 'too_many_attempts' ? code : 'unexpected';
}
