import { describe, expect, it } from 'vitest';
import { isSignInCall, signInFetch } from '~/lib/supabase/sign-in-fetch.server.ts';

const URL_BASE = 'http://127.0.0.1:54321';
const SECRET = 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz';
const ANON = 'eyJhbGciOiJIUzI1NiJ9.anon.key';

/** A fetch that records the headers of each call instead of sending it. */
function recorder() {
  const calls: { url: string; headers: Headers }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    calls.push({ url: String(input), headers: new Headers(init?.headers) });
    return new Response('{}');
  };
  return { calls, fetch };
}

const asAuthJs = { apikey: ANON, Authorization: `Bearer ${ANON}`, 'Content-Type': 'application/json' };

describe('sign-in calls to Auth', () => {
  it('are the POSTs to /auth/v1/otp and /auth/v1/verify of this project only', () => {
    expect(isSignInCall(URL_BASE, `${URL_BASE}/auth/v1/otp`, 'POST')).toBe(true);
    expect(isSignInCall(URL_BASE, `${URL_BASE}/auth/v1/otp?redirect_to=x`, 'post')).toBe(true);
    expect(isSignInCall(URL_BASE, `${URL_BASE}/auth/v1/verify`, 'POST')).toBe(true);
    expect(isSignInCall(URL_BASE, `${URL_BASE}/auth/v1/verify`, 'GET')).toBe(false);
    expect(isSignInCall(URL_BASE, `${URL_BASE}/auth/v1/token?grant_type=refresh_token`, 'POST')).toBe(false);
    expect(isSignInCall(URL_BASE, `${URL_BASE}/rest/v1/tickets`, 'POST')).toBe(false);
    expect(isSignInCall(URL_BASE, 'http://evil.example/auth/v1/otp', 'POST')).toBe(false);
    expect(isSignInCall('https://x.example/base/', 'https://x.example/base/auth/v1/otp', 'POST')).toBe(true);
  });

  it('carry the secret key (not as a bearer token) and the end user IP in Sb-Forwarded-For', async () => {
    const { calls, fetch } = recorder();
    const wrapped = signInFetch(fetch, { url: URL_BASE, key: SECRET, ip: '203.0.113.7' });
    await wrapped(`${URL_BASE}/auth/v1/verify`, { method: 'POST', headers: asAuthJs, body: '{}' });
    const { headers } = calls[0];
    expect(headers.get('apikey')).toBe(SECRET);
    expect(headers.get('authorization')).toBeNull();
    expect(headers.get('sb-forwarded-for')).toBe('203.0.113.7');
  });

  it('leave every other call as it was: the secret key goes nowhere else', async () => {
    const { calls, fetch } = recorder();
    const wrapped = signInFetch(fetch, { url: URL_BASE, key: SECRET, ip: '203.0.113.7' });
    await wrapped(`${URL_BASE}/rest/v1/tickets`, { method: 'POST', headers: asAuthJs, body: '{}' });
    await wrapped(`${URL_BASE}/auth/v1/user`, { headers: asAuthJs });
    await wrapped(`${URL_BASE}/auth/v1/token?grant_type=refresh_token`, { method: 'POST', headers: asAuthJs });
    for (const { headers } of calls) {
      expect(headers.get('apikey')).toBe(ANON);
      expect(headers.get('authorization')).toBe(`Bearer ${ANON}`);
      expect(headers.get('sb-forwarded-for')).toBeNull();
    }
  });

  it('send no Sb-Forwarded-For when the IP is unknown or not an IP, and never pass on a caller-set one', async () => {
    const { calls, fetch } = recorder();
    for (const ip of [null, 'not-an-ip', '1.2.3.4, 5.6.7.8']) {
      const wrapped = signInFetch(fetch, { url: URL_BASE, key: SECRET, ip });
      await wrapped(`${URL_BASE}/auth/v1/otp`, {
        method: 'POST',
        headers: { ...asAuthJs, 'Sb-Forwarded-For': '198.51.100.1' },
      });
    }
    for (const { headers } of calls) {
      expect(headers.get('sb-forwarded-for')).toBeNull();
      expect(headers.get('apikey')).toBe(SECRET);
    }
  });

  it('take IPv6 addresses as they are', async () => {
    const { calls, fetch } = recorder();
    await signInFetch(fetch, { url: URL_BASE, key: SECRET, ip: '2001:db8::1' })(`${URL_BASE}/auth/v1/otp`, {
      method: 'POST',
    });
    expect(calls[0].headers.get('sb-forwarded-for')).toBe('2001:db8::1');
  });

  it('are left alone without a secret key', async () => {
    const { calls, fetch } = recorder();
    await signInFetch(fetch, { url: URL_BASE, key: null, ip: '203.0.113.7' })(`${URL_BASE}/auth/v1/otp`, {
      method: 'POST',
      headers: asAuthJs,
    });
    expect(calls[0].headers.get('apikey')).toBe(ANON);
    expect(calls[0].headers.get('sb-forwarded-for')).toBeNull();
  });
});
