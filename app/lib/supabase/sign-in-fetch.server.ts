// The server's sign-in calls to Auth (send a code, verify one) as hosted Supabase's IP address
// forwarding wants them (supabase/auth internal/sbff; docs/decisions/020-sign-in-limits.md): made with
// the project's secret key, and carrying the end user's IP in Sb-Forwarded-For, so Auth's per-IP
// limits count that user rather than this server. Every other call keeps the anon key and the
// user's token: the secret key bypasses row-level security and must do nothing else.
import { isIP } from 'node:net';

export const SB_FORWARDED_FOR = 'Sb-Forwarded-For';
const SIGN_IN_PATHS = ['/auth/v1/otp', '/auth/v1/verify'];

export interface SignInCallSettings {
  /** SUPABASE_URL */
  url: string;
  /** The secret key, or null to make the calls as any other (then Auth sees this server's IP). */
  key: string | null;
  /** The end user's IP, or null when it is not known (then no header: Auth sees this server). */
  ip: string | null;
}

/** True for a POST to one of Auth's sign-in endpoints under `base` (query strings aside). */
export function isSignInCall(base: string, url: string, method: string): boolean {
  if (method.toUpperCase() !== 'POST') return false;
  const target = new URL(url);
  const root = new URL(base);
  const prefix = root.pathname.replace(/\/$/, '');
  return target.origin === root.origin && SIGN_IN_PATHS.some((path) => target.pathname === `${prefix}${path}`);
}

/** `fetch` with the sign-in calls rewritten as above; everything else passes through unchanged. */
export function signInFetch(fetch: typeof globalThis.fetch, settings: SignInCallSettings): typeof globalThis.fetch {
  const { key } = settings;
  if (!key) return fetch;
  // Upstream takes the leftmost value when it is an IP address and ignores the header otherwise.
  const ip = settings.ip && isIP(settings.ip) ? settings.ip : null;
  return (input, init) => {
    if (input instanceof Request) return fetch(input, init);
    const url = input instanceof URL ? input.href : input;
    if (!isSignInCall(settings.url, url, init?.method ?? 'GET')) return fetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set('apikey', key);
    // A secret key goes in `apikey` only, never as a bearer token (supabase-js does the same); the
    // gateway gives Auth the matching role.
    headers.delete('authorization');
    if (ip) headers.set(SB_FORWARDED_FOR, ip);
    else headers.delete(SB_FORWARDED_FOR);
    return fetch(input, { ...init, headers });
  };
}
