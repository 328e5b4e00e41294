// Security headers for every document and data response (entry.server.tsx). Scripts run only
// with this response's nonce — or, in a document the same for every reader, the hashes of its inline
// scripts (docs/decisions/072-help-pages-sent-from-memory.md) — and what those load; the browser may talk
// to Supabase (REST and the realtime websocket) and nothing else.
import { randomFillSync } from 'node:crypto';

export interface CspOptions {
  /** This response's nonce; or, for a document the same for every reader, */
  nonce?: string;
  /** the hashes of its inline scripts ('sha256-…'). */
  scriptHashes?: string[];
  supabaseUrl: string;
  /** `remix dev` live reload runs a websocket on its own port. */
  devLiveReloadPort?: number;
  extraConnectSrc?: string[];
}

export function contentSecurityPolicy(o: CspOptions): string {
  const supabase = new URL(o.supabaseUrl);
  const websocket = `${supabase.protocol === 'https:' ? 'wss:' : 'ws:'}//${supabase.host}`;
  const connect = ["'self'", supabase.origin, websocket, ...(o.extraConnectSrc ?? [])];
  if (o.devLiveReloadPort)
    connect.push(`ws://localhost:${o.devLiveReloadPort}`, `ws://127.0.0.1:${o.devLiveReloadPort}`);
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    // strict-dynamic: the nonce'd (or hashed) script may load the modules it imports or adds.
    'script-src': [
      "'self'",
      ...(o.nonce ? [`'nonce-${o.nonce}'`] : []),
      ...(o.scriptHashes ?? []).map((hash) => `'${hash}'`),
      "'strict-dynamic'",
    ],
    'script-src-attr': ["'none'"],
    // input-otp positions its input with inline style attributes; styles can't run code.
    'style-src': ["'self'", "'unsafe-inline'"],
    // Thumbnails of attachments come from the app's own file routes (attachments.server.ts sendFile);
    // help-center articles show images from the public `help` bucket (HELP_BUCKET), and the email
    // settings the workspace's logo from the public `branding` bucket (BRANDING_BUCKET), and only those.
    'img-src': [
      "'self'",
      'data:',
      `${supabase.origin}/storage/v1/object/public/help/`,
      `${supabase.origin}/storage/v1/object/public/branding/`,
    ],
    'font-src': ["'self'"],
    'connect-src': connect,
    'form-action': ["'self'"],
    'base-uri': ["'none'"],
    'object-src': ["'none'"],
    'frame-ancestors': ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}

const NONCE_SLOT = '\u0000nonce\u0000';

/** The scripts a document may run: its own nonce's, or (the same for every reader) its inline scripts' hashes. */
export type ScriptsAllowed = { nonce: string } | { hashes: string[] };

/**
 * The policy for a set of options with the scripts left open: built once (the options come from the
 * environment), then each document only fills in its own nonce or hashes.
 */
export function contentSecurityPolicyFor(
  o: Omit<CspOptions, 'nonce' | 'scriptHashes'>,
): (scripts: ScriptsAllowed) => string {
  const [before, after] = contentSecurityPolicy({ ...o, nonce: NONCE_SLOT }).split(`'nonce-${NONCE_SLOT}'`);
  return (scripts) =>
    before +
    ('nonce' in scripts ? `'nonce-${scripts.nonce}'` : scripts.hashes.map((hash) => `'${hash}'`).join(' ')) +
    after;
}

const NONCE_BYTES = 16;
// Random bytes drawn 256 nonces at a time (one getrandom call instead of one per document).
const noncePool = Buffer.alloc(NONCE_BYTES * 256);
let nonceOffset = noncePool.length;

/** A fresh nonce for a document: 16 random bytes, base64 (CSP3 asks for at least 128 bits). */
export function newNonce(): string {
  if (nonceOffset === noncePool.length) {
    randomFillSync(noncePool);
    nonceOffset = 0;
  }
  const nonce = noncePool.toString('base64', nonceOffset, nonceOffset + NONCE_BYTES);
  nonceOffset += NONCE_BYTES;
  return nonce;
}

export const STATIC_SECURITY_HEADERS: Record<string, string> = {
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

export function applySecurityHeaders(headers: Headers, csp?: string): void {
  for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) headers.set(name, value);
  if (csp) headers.set('Content-Security-Policy', csp);
}

// The values @supabase/ssr hands to setAll (ssr 0.10, #176; docs/reference/remix-ssr.md §1.3).
const NO_STORE: Record<string, string> = {
  'Cache-Control': 'private, no-cache, no-store, must-revalidate, max-age=0',
  Expires: '0',
  Pragma: 'no-cache',
};

/**
 * Documents carry a per-response nonce and the visitor's own header, so no shared cache may keep
 * them; one that sets a cookie (a session refresh, a sign-in) must not be stored at all. Remix
 * drops loader headers other than Set-Cookie from documents, so this is decided here.
 */
export function applyCacheHeaders(headers: Headers, { document }: { document: boolean }): void {
  if (headers.has('Set-Cookie')) {
    for (const [name, value] of Object.entries(NO_STORE)) headers.set(name, value);
  } else if (document && !headers.has('Cache-Control')) {
    headers.set('Cache-Control', 'private, no-cache');
  }
}
