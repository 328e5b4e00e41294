// What the local services believe about a request: which Host names they answer (DNS rebinding),
// which client address a request comes from (the socket's, as Kong decides it), and whether Auth
// takes the end user's address from Sb-Forwarded-For. docs/decisions/019-client-ip-and-sb-forwarded-for.md
import { isIP } from 'node:net';

export interface TrustOptions {
  /** Host names answered besides loopback ones (`localhost`, `*.localhost`, 127.0.0.0/8, ::1); `.example.com` a domain and its subdomains; `*` any. */
  allowedHosts: string[];
  /** Addresses of proxies in front of the gateway whose X-Forwarded-For is believed (Kong trusted_ips). */
  trustedProxies: string[];
  /** Auth takes the client IP from Sb-Forwarded-For on secret-key requests (GOTRUE_SECURITY_SB_FORWARDED_FOR_ENABLED). */
  sbForwardedFor: boolean;
}

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/**
 * From the environment: SUPABASE_LOCAL_ALLOWED_HOSTS and SUPABASE_LOCAL_TRUSTED_PROXIES (comma-separated),
 * GOTRUE_SECURITY_SB_FORWARDED_FOR_ENABLED (default on locally: the app's sign-in calls use it).
 */
export function trustFromEnv(env: NodeJS.ProcessEnv = process.env): TrustOptions {
  return {
    allowedHosts: list(env.SUPABASE_LOCAL_ALLOWED_HOSTS),
    trustedProxies: list(env.SUPABASE_LOCAL_TRUSTED_PROXIES).map(normalizeIp),
    sbForwardedFor: !/^(0|false|no|off)$/i.test(env.GOTRUE_SECURITY_SB_FORWARDED_FOR_ENABLED ?? ''),
  };
}

/** `::ffff:127.0.0.1` (an IPv4 peer on a dual-stack socket) as `127.0.0.1`; IPv6 lower-cased. */
export function normalizeIp(ip: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4) return v4[1];
  return isIP(ip) === 6 ? new URL(`http://[${ip}]`).hostname.slice(1, -1) : ip; // the canonical (shortest) form
}

/** The name in a Host header, without port or IPv6 brackets, lower-cased; undefined when it doesn't parse. */
export function hostName(host: string): string | undefined {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/i.exec(host.trim());
  const name = (m?.[1] ?? m?.[2])?.toLowerCase().replace(/\.$/, '');
  return name || undefined;
}

export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true; // RFC 6761: always loopback
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return normalizeIp(name) === '::1' || normalizeIp(name).startsWith('127.');
  return false;
}

/**
 * Whether a service answers this Host. A browser always sends one, so a missing Host is not a
 * rebinding page (HTTP/1.0 tools); anything else must be a loopback name or one configured.
 */
export function hostAllowed(host: string | undefined, allowedHosts: readonly string[]): boolean {
  if (host === undefined) return true;
  const name = hostName(host);
  if (!name) return false;
  return (
    isLoopbackName(name) ||
    allowedHosts.some(
      (h) => h === '*' || h === name || (h.startsWith('.') && (name === h.slice(1) || name.endsWith(h))),
    )
  );
}

/** The status and words for a refused Host (421 Misdirected Request: not an authority this server answers for). */
export const MISDIRECTED = {
  status: 421,
  message: (host: string | undefined) =>
    `Misdirected Request: this local service answers loopback host names only, not "${host}" (SUPABASE_LOCAL_ALLOWED_HOSTS adds names)`,
};

/**
 * The client's address as Kong decides it: the socket's peer; behind trusted proxies, the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy (real_ip_recursive).
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trusted: readonly string[]) {
  let ip = normalizeIp(peer ?? '');
  if (!trusted.includes(ip) || !forwardedFor) return ip;
  const hops = forwardedFor
    .split(',')
    .map((s) => normalizeIp(s.trim()))
    .filter((s) => isIP(s));
  while (hops.length && trusted.includes(ip)) ip = hops.pop()!;
  return ip;
}

export class SbForwardedForError extends Error {}

/**
 * supabase/auth internal/sbff: the left-most value of Sb-Forwarded-For if it is an IP address
 * (normalised as Go's net.IP.String()); undefined without the header; an error for anything else.
 */
export function parseSbForwardedFor(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const first = value.split(',', 1)[0].trim();
  if (isIP(first)) return normalizeIp(first);
  throw new SbForwardedForError('invalid Sb-Forwarded-For header value');
}
