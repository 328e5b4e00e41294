import { describe, expect, it } from 'vitest';
import { clientIp, isSameOriginPost, publicOrigin } from '~/lib/http/request-info.server.ts';

const direct = { trustProxy: false };
const proxied = { trustProxy: true };

function post(headers: Record<string, string>, url = 'http://localhost:3000/login') {
  return new Request(url, { method: 'POST', headers });
}

describe('same-origin check for POSTs', () => {
  it('accepts a form posted from our own pages', () => {
    expect(isSameOriginPost(post({ origin: 'http://localhost:3000' }), direct)).toBe(true);
    expect(isSameOriginPost(post({ 'sec-fetch-site': 'same-origin' }), direct)).toBe(true);
  });

  it('refuses another origin, whatever Sec-Fetch-Site says', () => {
    expect(isSameOriginPost(post({ origin: 'https://evil.example' }), direct)).toBe(false);
    expect(isSameOriginPost(post({ origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' }), direct)).toBe(
      false,
    );
    expect(isSameOriginPost(post({ origin: 'http://localhost:3001' }), direct)).toBe(false);
  });

  it('refuses an opaque "null" origin', () => {
    expect(isSameOriginPost(post({ origin: 'null' }), direct)).toBe(false);
  });

  it('refuses cross-site and same-site requests that carry no Origin', () => {
    expect(isSameOriginPost(post({ 'sec-fetch-site': 'cross-site' }), direct)).toBe(false);
    expect(isSameOriginPost(post({ 'sec-fetch-site': 'same-site' }), direct)).toBe(false);
  });

  it('lets through clients that are not browsers (no Origin, no Sec-Fetch-Site)', () => {
    expect(isSameOriginPost(post({}), direct)).toBe(true);
  });

  it('knows the https origin behind a trusted proxy, or from APP_ORIGIN', () => {
    const behindProxy = post(
      { origin: 'https://tend.example', 'x-forwarded-proto': 'https' },
      'http://tend.example/login',
    );
    expect(isSameOriginPost(behindProxy, proxied)).toBe(true);
    expect(isSameOriginPost(behindProxy, direct)).toBe(false);
    expect(
      isSameOriginPost(post({ origin: 'https://tend.example' }, 'http://10.0.0.5:3000/login'), {
        trustProxy: false,
        appOrigin: 'https://tend.example',
      }),
    ).toBe(true);
    expect(publicOrigin(behindProxy, proxied)).toBe('https://tend.example');
  });
});

describe('client IP', () => {
  it('is unknown without a trusted proxy or server.ts, so per-IP limits are skipped rather than shared', () => {
    expect(clientIp(post({ 'x-forwarded-for': '203.0.113.9' }), direct)).toBeNull();
    expect(clientIp(post({ 'x-tend-peer-address': '203.0.113.9' }), direct)).toBeNull();
  });

  it("is the socket's address server.ts passes on when there is no proxy", () => {
    const served = { trustProxy: false, peerAddress: true };
    expect(clientIp(post({ 'x-tend-peer-address': '192.0.2.7', 'x-forwarded-for': '203.0.113.9' }), served)).toBe(
      '192.0.2.7',
    );
    expect(clientIp(post({}), served)).toBeNull();
  });

  it('behind a trusted proxy is what the proxy says, not the socket (the proxy itself)', () => {
    expect(
      clientIp(post({ 'x-tend-peer-address': '10.0.0.2', 'x-forwarded-for': '203.0.113.9' }), {
        ...proxied,
        peerAddress: true,
      }),
    ).toBe('203.0.113.9');
  });

  it('is the entry our proxy appended (the last one) when trusted', () => {
    expect(clientIp(post({ 'x-forwarded-for': '198.51.100.1, 203.0.113.9' }), proxied)).toBe('203.0.113.9');
    expect(clientIp(post({ 'x-forwarded-for': '203.0.113.9' }), proxied)).toBe('203.0.113.9');
    expect(clientIp(post({}), proxied)).toBeNull();
  });
});
