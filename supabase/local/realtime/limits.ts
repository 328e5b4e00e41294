// Per-project rate limits as Realtime counts them (docs/reference/realtime.md §7; realtime rate_counter.ex,
// tenants.ex): events in 5 s buckets, the average per second over the last 12 buckets (60 s),
// tripped when it reaches the limit and released when it falls below, evaluated at each tick.
import type { RealtimeConfig } from '../config.ts';

export class RateCounter {
  private count = 0;
  private buckets: number[] = [];
  avg = 0;
  triggered = false;

  constructor(readonly limit: number) {}

  add(n = 1) {
    this.count += n;
  }

  tick() {
    this.buckets = [this.count, ...this.buckets].slice(0, 12);
    this.count = 0;
    this.avg = this.buckets.reduce((a, b) => a + b, 0) / this.buckets.length / 5;
    this.triggered = this.avg >= this.limit;
  }
}

export const TICK_MS = 5000;

/** The project's counters: one set per realtime service, ticking while it runs. */
export function projectLimits(config: RealtimeConfig) {
  const counters = {
    /** Messages channels receive and send (broadcasts, presence, REST and database broadcasts). */
    events: new RateCounter(config.maxEventsPerSecond),
    /** postgres_changes deliveries; while tripped, changes are dropped. */
    dbEvents: new RateCounter(config.maxEventsPerSecond),
    joins: new RateCounter(config.maxJoinsPerSecond),
    presence: new RateCounter(config.maxPresenceEventsPerSecond),
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    config,
    ...counters,
    start() {
      timer ??= setInterval(() => {
        for (const c of Object.values(counters)) c.tick();
      }, TICK_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}

export type ProjectLimits = ReturnType<typeof projectLimits>;

/** Realtime's payload size check: the limit in KB plus 500 bytes of slack (tenants.ex validate_payload_size). */
export function payloadTooLarge(config: RealtimeConfig, bytes: number): boolean {
  return bytes > config.maxPayloadSizeInKb * 1000 + 500;
}
