// Which Host names the app answers (docs/decisions/021-allowed-hosts.md). A DNS-rebinding page
// reaches a server on this machine under its own name; a forged Host would also end up in the
// sign-in links the app emails. Loopback names by default; ALLOWED_HOSTS adds more, and the
// host of APP_ORIGIN is always allowed. No imports: server.ts uses this before the build loads.

/** `localhost` and its subdomains (RFC 6761: always this machine), and the loopback addresses. */
export const DEFAULT_ALLOWED_HOSTS = ['.localhost', '127.0.0.1', '[::1]'];

/**
 * The allowed host names (lower case, no port) from ALLOWED_HOSTS (comma- or space-separated; `*` allows
 * any, `.example.com` a domain and its subdomains) plus APP_ORIGIN's host.
 */
export function allowedHosts(source: { ALLOWED_HOSTS?: string; APP_ORIGIN?: string }): string[] {
  const configured = (source.ALLOWED_HOSTS ?? '')
    .split(/[\s,]+/)
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const hosts = configured.length ? configured : [...DEFAULT_ALLOWED_HOSTS];
  if (source.APP_ORIGIN) {
    try {
      hosts.push(new URL(source.APP_ORIGIN).hostname.toLowerCase());
    } catch {
      // an invalid APP_ORIGIN is refused by env.server.ts with its own message
    }
  }
  return hosts;
}

/** The name part of a Host header (`[::1]:3000` → `[::1]`), lower case; null when it is not a plain host. */
export function hostName(header: string | undefined | null): string | null {
  if (!header) return null;
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(header.trim());
  return match ? match[1].toLowerCase().replace(/\.$/, '') : null;
}

export function isAllowedHost(header: string | undefined | null, allowed: readonly string[]): boolean {
  const name = hostName(header);
  if (!name) return false;
  return allowed.some(
    (entry) =>
      entry === '*' || entry === name || (entry.startsWith('.') && (name.endsWith(entry) || name === entry.slice(1))),
  );
}
