// The cookie-bound Supabase client, one per loader/action call (docs/reference/remix-ssr.md §1.1–1.4):
// getAll returns every request cookie (the library needs all chunk names to delete stale ones),
// setAll appends each Set-Cookie (never `set`, which would keep only the last) and copies the
// no-cache headers it is given (ssr 0.10 #176) so no CDN caches a response that sets a session.
import { createServerClient, parseCookieHeader, serializeCookieHeader } from '@supabase/ssr';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { Database } from './database.types.ts';
import { requestFetch } from './data-fetch.server.ts';
import { env } from '../env.server.ts';
import { clientIp, isHttps } from '../http/request-info.server.ts';
import { signInFetch } from './sign-in-fetch.server.ts';

/** A client typed by the generated schema: rows, RPC arguments and results come from database.types.ts. */
export type Supabase = SupabaseClient<Database>;

export interface RequestSupabase {
  supabase: Supabase;
  /** Set-Cookie and cache headers collected so far; return them with every response. */
  headers: Headers;
  /** The cookies the library set or deleted in this call, by name. */
  written: Map<string, string>;
}

const BACKEND_TIMEOUT_MS = 10_000;

// Keyed by the Request a loader/action receives: every helper in one call shares one client, so a
// refresh done by requireUser() is seen (and its cookies returned) by the rest of that call.
const clients = new WeakMap<Request, RequestSupabase>();

// A hung backend must become a "backend unavailable" page, not a hung request.
const fetchWithTimeout: typeof fetch = (input, init) => {
  const timeout = AbortSignal.timeout(BACKEND_TIMEOUT_MS);
  return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
};

// The root loader and a page loader verify the same access token at the same moment (Remix v2
// has no middleware, docs/reference/remix-ssr.md §1.6). Concurrent identical GET /auth/v1/user calls
// share one round trip; nothing is cached once it has answered, so a revoked session is seen
// on the next request.
const userLookups = new Map<string, Promise<Response>>();

const backendFetch: typeof fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const authorization =
    method === 'GET' && url.endsWith('/auth/v1/user') ? new Headers(init?.headers).get('authorization') : null;
  if (!authorization) return fetchWithTimeout(input, init);
  let shared = userLookups.get(authorization);
  if (!shared) {
    shared = fetchWithTimeout(input, init).finally(() => userLookups.delete(authorization));
    userLookups.set(authorization, shared);
  }
  return shared.then((response) => response.clone());
};

// The data client's transport (data-fetch.server.ts); bodies it doesn't take go through fetch.
const dataFetch = requestFetch(BACKEND_TIMEOUT_MS, backendFetch);

export function getSupabase(request: Request): RequestSupabase {
  const existing = clients.get(request);
  if (existing) return existing;
  const headers = new Headers();
  const written = new Map<string, string>();
  const supabase = createServerClient<Database>(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    cookies: {
      getAll() {
        return parseCookieHeader(request.headers.get('Cookie') ?? '').map(({ name, value }) => ({
          name,
          value: value ?? '',
        }));
      },
      setAll(cookies, cacheHeaders) {
        // setAll can run once per auth event; the last value for each name is the one that counts.
        for (const { name, value, options } of cookies) {
          written.set(name, serializeCookieHeader(name, value, options));
        }
        headers.delete('Set-Cookie');
        for (const cookie of written.values()) headers.append('Set-Cookie', cookie);
        for (const [name, value] of Object.entries(cacheHeaders ?? {})) headers.set(name, value);
      },
    },
    // Not httpOnly: the browser client (realtime) reads the session from document.cookie
    // (docs/reference/remix-ssr.md §1.7, docs/decisions/005-supabase-session-cookies.md).
    cookieOptions: { secure: isHttps(request) },
    // No retries with back-off (1 + 2 + 4 s) on a backend that is down: the page says so at once.
    db: { retry: false },
    // Auth's sign-in endpoints get the secret key and the end user's IP (docs/decisions/020-sign-in-limits.md).
    global: { fetch: signInFetch(backendFetch, { url: env.SUPABASE_URL, key: env.signInKey, ip: clientIp(request) }) },
  });
  const entry = { supabase, headers, written };
  clients.set(request, entry);
  return entry;
}

/**
 * A client for the data API (PostgREST, RPCs) that sends this access token, and has no auth client:
 * it never reads or writes cookies. For a session already verified and far from expiry, where the
 * cookie-bound client would only decode the same cookies and send the same token (no refresh, no
 * Set-Cookie), at a measurable share of a page's CPU (docs/decisions/008-inbox-in-one-call.md).
 * `supabase.auth` on it throws; auth calls go through getSupabase(request).
 */
export function tokenClient(accessToken: string): SupabaseClient<Database> {
  return createClient<Database>(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    accessToken: async () => accessToken,
    db: { retry: false },
    global: { fetch: dataFetch },
  });
}

let anon: SupabaseClient<Database> | undefined;

/**
 * The data API as anon, shared by every request without a session (the public help pages): no
 * cookies to read or write, so no client to build per request.
 */
export function anonClient(): SupabaseClient<Database> {
  anon ??= createClient<Database>(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
    db: { retry: false },
    global: { fetch: dataFetch },
  });
  return anon;
}

/** The headers collected for this request so far (empty when no client was made). */
export function supabaseHeaders(request: Request): Headers {
  return clients.get(request)?.headers ?? new Headers();
}

/** Supabase auth cookie names: the storage key, its chunks (.0, .1 …) and PKCE verifiers. */
export function isAuthCookieName(name: string): boolean {
  return /^sb-.+-auth-token(\.\d+|-.+)?$/.test(name);
}

// The root and page loaders of one request ask about the same Cookie header, one after the other.
let lastCookieHeader: string | null = null;
let lastAuthCookies = '';

/**
 * The request's Supabase auth cookies as one string, `name=value` pairs sorted by name ('' when it
 * has none): identifies a session exactly, for remembering what was verified about it.
 */
export function authCookies(request: Request): string {
  return authCookiesIn(request.headers.get('Cookie') ?? '');
}

/** authCookies of a Cookie header (server.ts asks before there is a Request). */
export function authCookiesIn(header: string): string {
  if (header !== lastCookieHeader) {
    lastAuthCookies = parseCookieHeader(header)
      .filter(({ name }) => isAuthCookieName(name))
      .map(({ name, value }) => `${name}=${value ?? ''}`)
      .sort()
      .join(';');
    lastCookieHeader = header;
  }
  return lastAuthCookies;
}
