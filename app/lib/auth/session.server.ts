// Who is signed in. Identity comes only from getClaims() — never from getSession()'s unverified
// user (docs/reference/remix-ssr.md §1.5). With asymmetric signing keys (hosted projects, and the local
// stack like the CLI) getClaims checks the ES256 signature against the cached JWKS, no round trip;
// with a symmetric secret it asks the Auth server via getUser. Like the API itself, a locally
// verified token stays valid until it expires (jwt_expiry) even if its session was revoked.
import { redirect } from '@remix-run/node';
import { mapAuthError } from '../errors/from-auth.server.ts';
import { FLASH, setFlash } from './cookies.server.ts';
import { errorResponse, responseHeaders } from '../http/responses.server.ts';
import { loginPath } from '../http/safe-redirect.ts';
import { authCookies, getSupabase, type Supabase, tokenClient } from '../supabase/client.server.ts';
import type { SessionUser } from './user.ts';

export type { SessionUser };

type Claims = { sub?: string; exp?: number; email?: string; user_metadata?: { display_name?: unknown } };

function fromClaims(claims: Claims): SessionUser | null {
  if (!claims.sub) return null;
  const name = claims.user_metadata?.display_name;
  return { id: claims.sub, email: claims.email ?? '', displayName: typeof name === 'string' && name ? name : null };
}

// Sessions already verified, by the exact value of their auth cookies, until shortly before the
// access token expires. The root loader and the page loader of one request (Remix gives each its own
// Request) and that browser's next requests verify a token once — what PostgREST's JWT cache does.
// Within the margin auth-js would refresh the session, so from then on getClaims runs again.
const VERIFIED_MAX = 10_000; // with a data client each once used (~9 KB): at most ~90 MB a worker
const REFRESH_MARGIN_MS = 2 * 60_000; // auth-js refreshes 90 s before exp (EXPIRY_MARGIN_MS)
const verified = new Map<string, { user: SessionUser; until: number; accessToken: string; db?: Supabase }>();

function remember(key: string, user: SessionUser, exp: number | undefined, accessToken: string | undefined) {
  const until = (exp ?? 0) * 1000 - REFRESH_MARGIN_MS;
  if (until <= Date.now() || !accessToken) return;
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(key, { user, until, accessToken });
}

/** A verified session for these cookies, if one is known and its token has time left. */
function knownSession(key: string) {
  const hit = verified.get(key);
  if (!hit) return null;
  if (hit.until > Date.now()) return hit;
  verified.delete(key);
  return null;
}

async function readUser(
  request: Request,
  needClient: boolean,
): Promise<{ user: SessionUser | null; expired: boolean; supabase?: Supabase }> {
  // No auth cookie, no session: skip building a client (the common anonymous page view).
  const key = authCookies(request);
  if (!key) return { user: null, expired: false };
  const known = knownSession(key);
  // A verified session with time left: the cookie-bound client would send the same token and set
  // no cookie, so the session's data client (made once, kept with it) serves this request.
  if (known)
    return {
      user: known.user,
      expired: false,
      supabase: needClient ? (known.db ??= tokenClient(known.accessToken)) : undefined,
    };
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
  // Only a session that needed no refresh is remembered: after a refresh the cookies change anyway.
  if (user && !getSupabase(request).written.size) {
    const { data: current } = await supabase.auth.getSession();
    remember(key, user, (data!.claims as Claims).exp, current.session?.access_token);
  }
  // Cookies present but no session left (e.g. the refresh token was refused and auth-js cleared it).
  return { user, expired: !user, supabase };
}

/** The signed-in user or null; for pages anyone may see. */
export async function getOptionalUser(request: Request): Promise<SessionUser | null> {
  return (await readUser(request, false)).user;
}

/** The signed-in user with their data client, or null; for what every page shows a signed-in user (the bell). */
export async function getOptionalSession(request: Request): Promise<{ user: SessionUser; supabase: Supabase } | null> {
  const { user, supabase } = await readUser(request, true);
  return user && supabase ? { user, supabase } : null;
}

function currentPath(request: Request): string {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}

/**
 * The signed-in user, or a thrown redirect to `/login?redirectTo=<this page>` carrying the
 * cookie deletions (session_expired when the visitor had a session that no longer works).
 */
export async function requireUser(request: Request): Promise<{ user: SessionUser; supabase: Supabase }> {
  const { user, expired, supabase } = await readUser(request, true);
  if (user && supabase) return { user, supabase };
  // A session that stopped working says so on the sign-in page (catalogue: session_expired).
  const flash = expired
    ? [['Set-Cookie', await setFlash(request, FLASH.sessionExpired)] as [string, string]]
    : undefined;
  throw redirect(loginPath(currentPath(request)), { headers: responseHeaders(request, flash) });
}

/** Signed-in visitors don't need the sign-in pages. */
export async function redirectIfSignedIn(request: Request, to: string): Promise<void> {
  const { user } = await readUser(request, false);
  if (user) throw redirect(to, { headers: responseHeaders(request) });
}
