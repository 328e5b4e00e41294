// The connection state a live page shows, and the browser client's settings (docs/product.md §4, §9).
import { describe, expect, it } from 'vitest';
import { reconnectAfterMs, tokenIsFresh } from '../../app/lib/realtime/client.ts';
import {
  type ChannelEvent,
  type ChannelProgress,
  initialProgress,
  nextProgress,
} from '../../app/lib/realtime/connection.ts';

const run = (events: ChannelEvent[], listensToChanges = true): ChannelProgress[] => {
  const out: ChannelProgress[] = [];
  let p = initialProgress;
  for (const e of events) out.push((p = nextProgress(p, e, listensToChanges)));
  return out;
};
const joined: ChannelEvent = { type: 'status', status: 'SUBSCRIBED' };
const flowing: ChannelEvent = { type: 'system', extension: 'postgres_changes', status: 'ok' };
const dbLost: ChannelEvent = { type: 'system', extension: 'postgres_changes', status: 'error' };
const error: ChannelEvent = { type: 'status', status: 'CHANNEL_ERROR' };

describe('connection state', () => {
  it('is connecting until joined and, with postgres_changes, until the server says changes flow', () => {
    expect(initialProgress.state).toBe('connecting');
    expect(run([joined, flowing]).map((p) => p.state)).toEqual(['connecting', 'live']);
    expect(run([joined], false).map((p) => p.state)).toEqual(['live']);
  });

  it('goes reconnecting when the socket or the database stream is lost, and live again after', () => {
    const steps = run([joined, flowing, error, joined, flowing, dbLost, flowing]);
    expect(steps.map((p) => p.state)).toEqual([
      'connecting',
      'live',
      'reconnecting',
      'reconnecting',
      'live',
      'reconnecting',
      'live',
    ]);
    // Each return to live is counted: from the second on, the page catches up.
    expect(steps.map((p) => p.lives)).toEqual([0, 1, 1, 1, 2, 2, 3]);
  });

  it('says reconnecting when the first join fails or times out', () => {
    expect(run([{ type: 'status', status: 'TIMED_OUT' }]).map((p) => p.state)).toEqual(['reconnecting']);
    expect(run([error, joined, flowing]).map((p) => p.state)).toEqual(['reconnecting', 'reconnecting', 'live']);
  });

  it('ignores system messages of other extensions', () => {
    expect(run([joined, { type: 'system', extension: 'presence', status: 'ok' }]).map((p) => p.state)).toEqual([
      'connecting',
      'connecting',
    ]);
  });
});

describe('the browser client', () => {
  it('reconnects after 1, 2, 5, then every 10 seconds', () => {
    expect([1, 2, 3, 4, 5, 50].map(reconnectAfterMs)).toEqual([1_000, 2_000, 5_000, 10_000, 10_000, 10_000]);
  });

  it('asks the server for a new token 100 s before the one it holds expires', () => {
    const now = 1_000_000_000_000;
    const held = (secondsLeft: number) => ({ token: 't', expiresAt: now / 1000 + secondsLeft });
    expect(tokenIsFresh(null, now)).toBe(false);
    expect(tokenIsFresh(held(3600), now)).toBe(true);
    expect(tokenIsFresh(held(101), now)).toBe(true);
    expect(tokenIsFresh(held(99), now)).toBe(false);
  });
});
