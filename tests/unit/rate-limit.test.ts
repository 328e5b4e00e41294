import { describe, expect, it } from 'vitest';
import { VERIFY_ATTEMPTS_PER_EMAIL } from '~/lib/constants.ts';
import { codeSent, reserveVerify, settleVerify } from '~/lib/auth/sign-in-limits.server.ts';
import { RateLimiter } from '~/lib/http/rate-limit.server.ts';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (seconds: number) => (now += seconds * 1000) };
}

describe('RateLimiter', () => {
  it('allows the limit and refuses the next hit in the same window', () => {
    const c = clock();
    const limiter = new RateLimiter({ limit: 5, windowSeconds: 600 }, c.now);
    for (let i = 0; i < 5; i++) expect(limiter.hit('ada@example.com')).toBe(true);
    expect(limiter.isLimited('ada@example.com')).toBe(true);
    expect(limiter.hit('ada@example.com')).toBe(false);
  });

  it('keeps keys apart', () => {
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 60 });
    expect(limiter.hit('a')).toBe(true);
    expect(limiter.hit('b')).toBe(true);
    expect(limiter.isLimited('a')).toBe(true);
    expect(limiter.isLimited('c')).toBe(false);
  });

  it('slides: each hit expires a window after it was made', () => {
    const c = clock();
    const limiter = new RateLimiter({ limit: 2, windowSeconds: 600 }, c.now);
    limiter.hit('k');
    c.advance(300);
    limiter.hit('k');
    expect(limiter.isLimited('k')).toBe(true);
    expect(limiter.retryAfter('k')).toBe(300);
    c.advance(301);
    expect(limiter.isLimited('k')).toBe(false);
    expect(limiter.hit('k')).toBe(true);
    expect(limiter.isLimited('k')).toBe(true);
  });

  it('forgets a key on reset (a successful sign-in clears failures)', () => {
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 60 });
    limiter.hit('k');
    limiter.reset('k');
    expect(limiter.isLimited('k')).toBe(false);
  });

  it('gives back the latest hit on release (a reserved attempt that did not count)', () => {
    const limiter = new RateLimiter({ limit: 2, windowSeconds: 60 });
    limiter.hit('k');
    limiter.hit('k');
    limiter.release('k');
    expect(limiter.isLimited('k')).toBe(false);
    limiter.release('k');
    limiter.release('k');
    expect(limiter.size).toBe(0);
  });

  it('sweeps expired keys so memory does not grow', () => {
    const c = clock();
    const limiter = new RateLimiter({ limit: 3, windowSeconds: 10 }, c.now);
    for (let i = 0; i < 100; i++) limiter.hit(`ip-${i}`);
    expect(limiter.size).toBe(100);
    c.advance(11);
    limiter.hit('fresh');
    expect(limiter.size).toBe(1);
  });

  it('uses the product limit of 5 failed codes per 10 minutes', () => {
    expect(VERIFY_ATTEMPTS_PER_EMAIL).toEqual({ limit: 5, windowSeconds: 600 });
  });
});

describe('sign-in attempts (sign-in-limits.server.ts, one process)', () => {
  it('reserves before Auth is asked: of 60 parallel checks for one address, the ceiling gets through', async () => {
    const email = `race-${Math.random()}@example.com`;
    const reserved = await Promise.all(Array.from({ length: 60 }, (_, i) => reserveVerify(email, `10.9.${i}.1`)));
    expect(reserved.filter(Boolean)).toHaveLength(VERIFY_ATTEMPTS_PER_EMAIL.limit);
  });

  it('a wrong code stays counted; a right one or no decision gives the attempt back', async () => {
    const email = `settle-${Math.random()}@example.com`;
    const ip = '10.9.255.1';
    for (let i = 0; i < VERIFY_ATTEMPTS_PER_EMAIL.limit - 1; i++) {
      expect(await reserveVerify(email, ip)).toBe(true);
      await settleVerify(email, ip, 'wrong');
    }
    expect(await reserveVerify(email, ip)).toBe(true);
    await settleVerify(email, ip, 'undecided'); // e.g. Auth unreachable: not a guess
    expect(await reserveVerify(email, ip)).toBe(true);
    await settleVerify(email, ip, 'right');
    expect(await reserveVerify(email, ip)).toBe(true);
  });

  it('past the ceiling only a new code opens the address again', async () => {
    const email = `ceiling-${Math.random()}@example.com`;
    for (let i = 0; i < VERIFY_ATTEMPTS_PER_EMAIL.limit; i++) {
      expect(await reserveVerify(email, null)).toBe(true);
      await settleVerify(email, null, 'wrong');
    }
    expect(await reserveVerify(email, null)).toBe(false);
    await codeSent(email);
    expect(await reserveVerify(email, null)).toBe(true);
  });
});
