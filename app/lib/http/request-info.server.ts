// What the server can tell about a request: its public origin, the client IP, and whether a
// POST comes from our own pages. Pure functions take the settings so they can be unit-tested.
import { env } from '../env.server.ts';
import { PEER_ADDRESS_ENV, PEER_ADDRESS_HEADER } from './peer-address.ts';

export interface ProxySettings {
  trustProxy: boolean;
  appOrigin?: string;
  /** server.ts passes each request's socket address (PEER_ADDRESS_HEADER). */
  peerAddress?: boolean;
}

const settings = (): ProxySettings => ({
  trustProxy: env.TRUST_PROXY,
  appOrigin: env.APP_ORIGIN,
  peerAddress: process.env[PEER_ADDRESS_ENV] === '1',
});

/** What publicOrigin reads of a request (server.ts asks before there is a Request). */
export interface RequestAddress {
  url: string;
  headers: { get(name: string): string | null };
}

/** The origin the browser sees (scheme from X-Forwarded-Proto only behind a trusted proxy). */
export function publicOrigin(request: RequestAddress, s: ProxySettings = settings()): string {
  if (s.appOrigin) return new URL(s.appOrigin).origin;
  const url = new URL(request.url);
  const proto = s.trustProxy ? request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() : undefined;
  return proto === 'https' || proto === 'http' ? `${proto}://${url.host}` : url.origin;
}

export function isHttps(request: Request, s: ProxySettings = settings()): boolean {
  return publicOrigin(request, s).startsWith('https:');
}

/**
 * The client's IP, or null when it can't be known. Behind a trusted proxy it is the entry the proxy
 * appended to X-Forwarded-For (the last). Otherwise it is the socket's address that server.ts
 * passes on. remix-serve (`npm run dev`) gives the app no socket address, and there per-IP limits
 * are skipped rather than shared by everyone.
 */
export function clientIp(request: Request, s: ProxySettings = settings()): string | null {
  if (s.trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for');
    const last = forwarded
      ?.split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .pop();
    return last || request.headers.get('x-real-ip') || null;
  }
  return (s.peerAddress && request.headers.get(PEER_ADDRESS_HEADER)) || null;
}

/**
 * Same-origin check for POSTs (docs/decisions/001-csrf-samesite.md). Browsers send Origin on
 * every cross-origin and same-origin POST; Sec-Fetch-Site covers the rare case without it.
 * A request with neither header is not from a modern browser's form and is allowed: SameSite=Lax
 * cookies already keep it from carrying a session.
 */
export function isSameOriginPost(request: Request, s: ProxySettings = settings()): boolean {
  const allowed = new Set([publicOrigin(request, s), new URL(request.url).origin]);
  const origin = request.headers.get('origin');
  if (origin) return allowed.has(origin);
  const site = request.headers.get('sec-fetch-site');
  if (site) return site === 'same-origin' || site === 'none';
  return true;
}
