// The browser's one Realtime connection (docs/product.md §7): realtime-js on its own, not supabase-js,
// which would put auth, PostgREST and storage clients on every live page (docs/decisions/016-live-pages.md).
// Only the anon key is here; the user's access token comes from the server (TOKEN_PATH), which
// refreshes the session as any page does, and realtime-js asks for it again at every heartbeat.
import type { RealtimeClient } from '@supabase/realtime-js';
import { REALTIME_BACKOFF_MS, REALTIME_HEARTBEAT_MS, REALTIME_TIMEOUT_MS } from '../constants.ts';

export interface RealtimeEnv {
  SUPABASE_URL: string;
  SUPABASE_ANON_KEY: string;
}

/** The resource route that hands the signed-in user their access token (app/routes/realtime-token.tsx). */
export const TOKEN_PATH = '/realtime-token';

export interface AccessToken {
  token: string;
  /** Seconds since the epoch, the token's `exp`. */
  expiresAt: number;
}

// A token with less left than this is fetched again. The server refreshes a session within 90 s
// of its expiry (auth-js), and a channel whose token expires is closed: with a heartbeat every
// 30 s, asking from 100 s before gets the new token in time.
const TOKEN_MARGIN_MS = 100_000;

/** 1, 2, 5, then every 10 s (docs/product.md §9); `tries` counts from 1. */
export function reconnectAfterMs(tries: number): number {
  return REALTIME_BACKOFF_MS[Math.min(Math.max(tries, 1), REALTIME_BACKOFF_MS.length) - 1];
}

/** Whether `held` is still good to send, `now` in ms. */
export function tokenIsFresh(held: AccessToken | null, now: number): held is AccessToken {
  return !!held && held.expiresAt * 1000 - now > TOKEN_MARGIN_MS;
}

let held: AccessToken | null = null;
let fetching: Promise<string | null> | null = null;

async function fetchToken(): Promise<string | null> {
  try {
    const res = await fetch(TOKEN_PATH, { headers: { Accept: 'application/json' }, cache: 'no-store' });
    // Signed out (401): no user token; the channels fall back to the anon key and RLS shows nothing.
    if (res.status === 401) held = null;
    else if (res.ok) held = (await res.json()) as AccessToken;
  } catch {
    // Offline: keep what we have; the next heartbeat asks again.
  }
  return held?.token ?? null;
}

/** realtime-js's accessToken callback: the held token while it is fresh, else the server's. */
function accessToken(): Promise<string | null> {
  if (tokenIsFresh(held, Date.now())) return Promise.resolve(held.token);
  fetching ??= fetchToken().finally(() => {
    fetching = null;
  });
  return fetching;
}

let client: Promise<RealtimeClient> | null = null;
let project: RealtimeEnv | null = null;

/**
 * The page's Realtime client, made on first use (in the browser only). realtime-js (~17 KB gzip) is loaded
 * then, after the page, not with it: a live page is usable before it is live (docs/decisions/006-javascript-budget.md).
 */
export function realtimeClient(env: RealtimeEnv): Promise<RealtimeClient> {
  project = env;
  client ??= import('@supabase/realtime-js').then(
    ({ RealtimeClient }) =>
      new RealtimeClient(`${env.SUPABASE_URL.replace(/^http/, 'ws')}/realtime/v1`, {
        params: { apikey: env.SUPABASE_ANON_KEY },
        accessToken,
        timeout: REALTIME_TIMEOUT_MS,
        heartbeatIntervalMs: REALTIME_HEARTBEAT_MS,
        reconnectAfterMs,
      }),
  );
  return client;
}

/**
 * A remote procedure called from the browser as the user (PostgREST, with the same token as the
 * channels, at the page's client's project): the ticket page's presence and typing signals, which the
 * database sends on in the user's name (docs/decisions/037-presence-the-server-vouches-for.md). Best
 * effort: nothing happens when it doesn't go (signed out, offline, refused); the next signal tries again.
 */
export async function callRpc(name: string, args: Record<string, unknown>): Promise<void> {
  const token = await accessToken();
  if (!project || !token) return;
  await fetch(`${project.SUPABASE_URL}/rest/v1/rpc/${name}`, {
    method: 'POST',
    headers: {
      apikey: project.SUPABASE_ANON_KEY,
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(args),
  }).catch(() => undefined);
}
