// Keeps a child process of the stack running: a crash is said in one line, and the child is started
// again after 1, 2, 5, then every 10 s, until it stays up. docs/decisions/018-supervised-stack.md
import type { ManagedChild } from './process.ts';

/** Waits before each restart of a crash streak: 1, 2, 5, then 10 s each time after. */
export const RESTART_DELAYS_MS = [1_000, 2_000, 5_000, 10_000];

export interface Running {
  child: ManagedChild;
  stop(): Promise<void>;
}

export interface SupervisorOptions<T extends Running> {
  name: string;
  /** The instance started with the stack. */
  first: T;
  /** Starts the child again (the data it works on is left as it is). */
  restart(): Promise<T>;
  /** After a restart, before it is announced (e.g. point the gateway at it). */
  onRestart?(instance: T): void | Promise<void>;
  /** One line per crash, failed attempt and restart. */
  log(line: string): void;
  /** Called once when `giveUpAfter` restarts in a row have failed; the caller stops the stack. */
  onGiveUp(message: string): void;
  delays?: number[];
  /** Failed restart attempts in a row before giving up (default 30: about five minutes). */
  giveUpAfter?: number;
  /** A child that ran this long before crashing starts a new streak at 1 s (default 30 s). */
  stableMs?: number;
}

export interface Supervised<T extends Running> {
  current(): T;
  stop(): Promise<void>;
}

const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0];

export function supervise<T extends Running>(opts: SupervisorOptions<T>): Supervised<T> {
  const delays = opts.delays ?? RESTART_DELAYS_MS;
  const giveUpAfter = opts.giveUpAfter ?? 30;
  const stableMs = opts.stableMs ?? 30_000;
  let current = opts.first;
  let startedAt = Date.now();
  let streak = 0; // restarts scheduled since the child last stayed up
  let failures = 0; // failed attempts in a row
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> | undefined;

  const schedule = (reason: string) => {
    const delay = delays[Math.min(streak, delays.length - 1)];
    streak++;
    opts.log(`[supervisor] ${reason}; restarting in ${delay / 1000} s`);
    timer = setTimeout(() => {
      timer = undefined;
      attempt = restart().finally(() => (attempt = undefined));
    }, delay);
  };

  const watch = (instance: T) => {
    void instance.child.exited.then(({ code, signal }) => {
      if (stopped || instance !== current) return;
      if (Date.now() - startedAt >= stableMs) streak = 0;
      schedule(`${opts.name} (pid ${instance.child.child.pid}) exited unexpectedly (${signal ?? `code ${code}`})`);
    });
  };

  async function restart() {
    if (stopped) return;
    const t0 = Date.now();
    let next: T;
    try {
      next = await opts.restart();
    } catch (err) {
      if (stopped) return;
      if (++failures >= giveUpAfter) {
        const message = `${opts.name} could not be restarted (${failures} attempts): ${firstLine(err)}`;
        opts.log(`[supervisor] ${message}`);
        return opts.onGiveUp(message);
      }
      return schedule(`${opts.name} did not start again: ${firstLine(err)}`);
    }
    if (stopped) return void (await next.stop());
    failures = 0;
    current = next;
    startedAt = Date.now();
    watch(next);
    await opts.onRestart?.(next);
    opts.log(`[supervisor] ${opts.name} restarted (pid ${next.child.child.pid}) in ${Date.now() - t0} ms`);
  }

  watch(current);
  return {
    current: () => current,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await attempt;
      await current.stop();
    },
  };
}
