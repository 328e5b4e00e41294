// Redirect targets that come from the user (`redirectTo`, `next`) may only be paths on this site
// (docs/decisions/017-redirect-targets.md). Judged after the URL parser has normalised them, as the
// browser will: `/.//evil.example` and `/%2e//evil.example` become the path `//evil.example`, which a
// Location header sends to another host. Also refused: control characters (browsers strip them, so
// "/\t/evil.example" becomes "//evil.example"), backslashes (browsers read `\` as `/`), and paths
// that turn into either once percent-decoded (a later decode must not make them dangerous either).
const BASE = 'http://tend.invalid';
/** How many rounds of percent-decoding are looked through (double encoding is the usual trick). */
const DECODE_ROUNDS = 3;

const UNSAFE_CHARS = /[\u0000-\u001f\u007f\\]/;

function unsafePath(path: string): boolean {
  return !path.startsWith('/') || path.startsWith('//') || UNSAFE_CHARS.test(path);
}

/** The path, decoded round by round while it changes; null when a round can't be decoded. */
function decodings(path: string): string[] | null {
  const forms = [path];
  let current = path;
  for (let i = 0; i < DECODE_ROUNDS && current.includes('%'); i++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      return null;
    }
    forms.push(current);
  }
  return forms;
}

export function safeRedirect(to: unknown, fallback = '/'): string {
  if (typeof to !== 'string') return fallback;
  const target = to.trim();
  if (unsafePath(target)) return fallback;
  let url: URL;
  try {
    url = new URL(target, BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== BASE) return fallback;
  // What the browser will ask for, and what any later decoding of it gives, must stay a plain path.
  const forms = decodings(url.pathname);
  if (!forms || forms.some(unsafePath)) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** `/login?redirectTo=<path>` for the page a signed-out visitor asked for. */
export function loginPath(redirectTo?: string | null): string {
  const target = redirectTo ? safeRedirect(redirectTo, '') : '';
  return target && target !== '/' ? `/login?${new URLSearchParams({ redirectTo: target })}` : '/login';
}
