// Redirect targets that come from the user (`redirectTo`, `next`) may only be paths on this site.
// Same rules as remix-utils' safeRedirect (reference/remix-ssr.md §3), plus control characters,
// which browsers strip before parsing ("/\t/evil.example" would become "//evil.example").
const BASE = 'http://tend.invalid';

export function safeRedirect(to: unknown, fallback = '/'): string {
  if (typeof to !== 'string') return fallback;
  const target = to.trim();
  if (!target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return fallback;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(target)) return fallback;
  let url: URL;
  try {
    url = new URL(target, BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== BASE) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** `/login?redirectTo=<path>` for the page a signed-out visitor asked for. */
export function loginPath(redirectTo?: string | null): string {
  const target = redirectTo ? safeRedirect(redirectTo, '') : '';
  return target && target !== '/' ? `/login?${new URLSearchParams({ redirectTo: target })}` : '/login';
}
