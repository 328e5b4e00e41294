// Who is signed in. Identity comes only from getClaims() — never from getSession()'s unverified
// user (reference/remix-ssr.md §1.5). With asymmetric signing keys (hosted projects, and the local
// stack like the CLI) getClaims checks the ES256 signature against the cached JWKS, no round trip;
// with a symmetric secret it asks the Auth server via getUser. Like the API itself, a locally
// verified token stays valid until it expires (jwt_expiry) even if its session was revoked.
import { redirect } from '@remix-run/node';
import type { SupabaseClient } from '@supabase/supabase-js';
import { mapAuthError } from './auth-errors.ts';
import { FLASH, setFlash } from './cookies.server.ts';
import { errorResponse, responseHeaders } from './http.server.ts';
import { loginPath } from './safe-redirect.ts';
import { getSupabase, hasAuthCookie } from './supabase.server.ts';
import type { SessionUser } from './user.ts';

export type { SessionUser };

type Claims = { sub?: string; email?: string; user_metadata?: { display_name?: unknown } };

function fromClaims(claims: Claims): SessionUser | null {
  if (!claims.sub) return null;
  const name = claims.user_metadata?.display_name;
  return { id: claims.sub, email: claims.email ?? '', displayName: typeof name === 'string' && name ? name : null };
}

async function readUser(request: Request): Promise<{ user: SessionUser | null; expired: boolean; supabase?: SupabaseClient }> {
  // No auth cookie, no session: skip building a client (the common anonymous page view).
  if (!hasAuthCookie(request)) return { user: null, expired: false };
  const { supabase } = getSupabase(request);
  const { data, error } = await supabase.auth.getClaims();
  if (error) {
    const mapped = mapAuthError(error);
    if (mapped.code === 'backend_unavailable') throw errorResponse(request, 'backend_unavailable');
    // A rejected session (revoked, refresh failed): drop its cookies so later requests don't retry it.
    await supabase.auth.signOut({ scope: 'local' }).catch(() => undefined);
    return { user: null, expired: true, supabase };
  }
  const user = data?.claims ? fromClaims(data.claims as Claims) : null;
  // Cookies present but no session left (e.g. the refresh token was refused and auth-js cleared it).
  return { user, expired: !user && hasAuthCookie(request), supabase };
}

/** The signed-in user or null; for pages anyone may see. */
export async function getOptionalUser(request: Request): Promise<SessionUser | null> {
  return (await readUser(request)).user;
}

function currentPath(request: Request): string {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}

/**
 * The signed-in user, or a thrown redirect to `/login?redirectTo=<this page>` carrying the
 * cookie deletions (session_expired when the visitor had a session that no longer works).
 */
export async function requireUser(request: Request): Promise<{ user: SessionUser; supabase: SupabaseClient }> {
  const { user, expired, supabase } = await readUser(request);
  if (user && supabase) return { user, supabase };
  // A session that stopped working says so on the sign-in page (catalogue: session_expired).
  const flash = expired ? [['Set-Cookie', await setFlash(request, FLASH.sessionExpired)] as [string, string]] : undefined;
  throw redirect(loginPath(currentPath(request)), { headers: responseHeaders(request, flash) });
}

/** Signed-in visitors don't need the sign-in pages. */
export async function redirectIfSignedIn(request: Request, to: string): Promise<void> {
  const { user } = await readUser(request);
  if (user) throw redirect(to, { headers: responseHeaders(request) });
}
