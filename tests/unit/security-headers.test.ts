import { describe, expect, it } from 'vitest';
import {
  applyCacheHeaders,
  applySecurityHeaders,
  contentSecurityPolicy,
  contentSecurityPolicyFor,
  newNonce,
} from '~/lib/http/security-headers.server.ts';

describe('content security policy', () => {
  const csp = contentSecurityPolicy({ nonce: 'abc123', supabaseUrl: 'https://ref.supabase.co' });

  it('runs scripts only from our origin or with the nonce', () => {
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).toContain("script-src-attr 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
  });

  it('lets the browser reach Supabase over https and its websocket', () => {
    expect(csp).toContain("connect-src 'self' https://ref.supabase.co wss://ref.supabase.co");
    const local = contentSecurityPolicy({ nonce: 'n', supabaseUrl: 'http://127.0.0.1:54321' });
    expect(local).toContain("connect-src 'self' http://127.0.0.1:54321 ws://127.0.0.1:54321");
  });

  it('shows images from the app and the public help and branding buckets, not the rest of storage', () => {
    expect(csp).toContain(
      "img-src 'self' data: https://ref.supabase.co/storage/v1/object/public/help/ https://ref.supabase.co/storage/v1/object/public/branding/;",
    );
  });

  it('cannot be framed and only posts forms to itself', () => {
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("object-src 'none'");
  });

  it('adds the live-reload socket only when asked (remix dev)', () => {
    expect(csp).not.toContain('localhost:3001');
    expect(
      contentSecurityPolicy({ nonce: 'n', supabaseUrl: 'http://127.0.0.1:54321', devLiveReloadPort: 3001 }),
    ).toContain('ws://localhost:3001');
  });
});

describe('static security headers', () => {
  it('sets referrer, sniffing, framing and permissions policies', () => {
    const headers = new Headers();
    applySecurityHeaders(headers, 'default-src self');
    expect(headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin');
    expect(headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(headers.get('X-Frame-Options')).toBe('DENY');
    expect(headers.get('Permissions-Policy')).toBe('camera=(), microphone=(), geolocation=()');
    expect(headers.get('Content-Security-Policy')).toBe('default-src self');
  });
});

describe('cache headers', () => {
  it('never lets a response that sets a cookie be stored', () => {
    const headers = new Headers([['Set-Cookie', 'sb-127-auth-token=x; Path=/']]);
    applyCacheHeaders(headers, { document: false });
    expect(headers.get('Cache-Control')).toBe('private, no-cache, no-store, must-revalidate, max-age=0');
    expect(headers.get('Expires')).toBe('0');
    expect(headers.get('Pragma')).toBe('no-cache');
  });

  it('keeps documents out of shared caches (per-response nonce)', () => {
    const headers = new Headers();
    applyCacheHeaders(headers, { document: true });
    expect(headers.get('Cache-Control')).toBe('private, no-cache');
  });

  it('leaves data responses without cookies alone', () => {
    const headers = new Headers();
    applyCacheHeaders(headers, { document: false });
    expect(headers.has('Cache-Control')).toBe(false);
  });
});

describe('policy per document', () => {
  it('is the same policy with each document’s nonce filled in', () => {
    const options = { supabaseUrl: 'https://ref.supabase.co', extraConnectSrc: ['https://example.test'] };
    const forDocument = contentSecurityPolicyFor(options);
    expect(forDocument({ nonce: 'abc123' })).toBe(contentSecurityPolicy({ ...options, nonce: 'abc123' }));
    expect(forDocument({ nonce: 'xyz' })).toContain("'nonce-xyz'");
  });

  it('allows a document the same for every reader its inline scripts by hash, and nothing inline else', () => {
    const options = { supabaseUrl: 'https://ref.supabase.co' };
    const hashed = contentSecurityPolicyFor(options)({ hashes: ['sha256-AAAA', 'sha256-BBBB'] });
    expect(hashed).toBe(contentSecurityPolicy({ ...options, scriptHashes: ['sha256-AAAA', 'sha256-BBBB'] }));
    expect(hashed).toContain("script-src 'self' 'sha256-AAAA' 'sha256-BBBB' 'strict-dynamic';");
    expect(hashed).not.toContain('nonce-');
    expect(hashed).not.toMatch(/script-src[^;]*unsafe/);
    expect(hashed).toContain("script-src-attr 'none'");
  });

  it('draws a new 128-bit nonce for every document', () => {
    const nonces = Array.from({ length: 1000 }, () => newNonce());
    expect(new Set(nonces).size).toBe(1000);
    for (const nonce of nonces) expect(Buffer.from(nonce, 'base64')).toHaveLength(16);
  });
});
