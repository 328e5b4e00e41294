// Which redirect_to values GoTrue accepts (utilities/request.go IsRedirectURLValid, docs/reference/auth.md §1.12).
import type { AuthConfig } from '../config.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function glob(pattern: string): RegExp {
  const re = pattern
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*/g, '\u0000')
    .replace(/\*/g, '[^/.]*')
    .replace(/\u0000/g, '.*');
  return new RegExp(`^${re}$`);
}

export function allowedRedirect(config: AuthConfig, candidate: string | undefined): string {
  if (!candidate) return config.siteUrl;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return config.siteUrl;
  }
  const site = new URL(config.siteUrl);
  if (
    url.protocol === site.protocol &&
    url.hostname === site.hostname &&
    (url.port === site.port || LOOPBACK.has(url.hostname))
  )
    return candidate;
  if (LOOPBACK.has(url.hostname)) return candidate;
  if (config.additionalRedirectUrls.some((p) => glob(p).test(candidate))) return candidate;
  return config.siteUrl;
}
