// In-memory sliding-window limiter for the app's sign-in limits (docs/decisions/003-abuse-limits.md).
// Per server: the production server's workers share the primary's (sign-in-limits.server.ts); with N
// servers behind a load balancer the effective limit is up to N times higher, which is acceptable
// next to Supabase Auth's own per-IP limits.
export interface Window {
  limit: number;
  windowSeconds: number;
}

export class RateLimiter {
  private hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    private readonly window: Window,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string): number[] {
    const since = this.now() - this.window.windowSeconds * 1000;
    const list = (this.hits.get(key) ?? []).filter((t) => t > since);
    if (list.length) this.hits.set(key, list);
    else this.hits.delete(key);
    return list;
  }

  /** True when `key` has used up its allowance in the current window. */
  isLimited(key: string): boolean {
    return this.recent(key).length >= this.window.limit;
  }

  /** Seconds until the oldest counted hit leaves the window (0 when not limited). */
  retryAfter(key: string): number {
    const list = this.recent(key);
    if (list.length < this.window.limit) return 0;
    return Math.max(1, Math.ceil((list[0] + this.window.windowSeconds * 1000 - this.now()) / 1000));
  }

  /** Counts one hit; returns false (and does not count) when the key is already limited. */
  hit(key: string): boolean {
    this.sweep();
    const list = this.recent(key);
    if (list.length >= this.window.limit) return false;
    list.push(this.now());
    this.hits.set(key, list);
    return true;
  }

  /** Gives back the latest hit (an attempt reserved with hit() that turned out not to count). */
  release(key: string): void {
    const list = this.recent(key);
    list.pop();
    if (!list.length) this.hits.delete(key);
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  /** Keys currently tracked (for tests of the sweep). */
  get size(): number {
    return this.hits.size;
  }

  // Drop expired keys now and then so the map cannot grow without bound.
  private sweep() {
    const now = this.now();
    if (now - this.lastSweep < this.window.windowSeconds * 1000) return;
    this.lastSweep = now;
    for (const key of [...this.hits.keys()]) this.recent(key);
  }
}
