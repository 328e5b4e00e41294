// What `npm run dev` prints of the stack's log (scripts/dev-log.ts).
import { describe, expect, it } from 'vitest';
import { devLine } from '../../scripts/dev-log.ts';

describe('npm run dev log lines', () => {
  it('shows codes and every crash and restart in bold', () => {
    for (const line of [
      '[mail] to a@example.test · code 123456 · "Your code"',
      '[supervisor] postgrest (pid 7) exited unexpectedly (SIGKILL); restarting in 1 s',
      '[supervisor] postgrest restarted (pid 8) in 900 ms',
    ])
      expect(devLine(line, false)).toBe(`\x1b[1m${line}\x1b[0m`);
  });

  it('shows what functions, pg_net, pg_cron and the stack say', () => {
    for (const line of [
      '[functions] echo: worker exited (SIGKILL)',
      '[net] queue: connection refused',
      '[cron] job 3 failed: division by zero',
      '[stack] stop: Error: gone',
    ])
      expect(devLine(line, false)).toBe(line);
  });

  it('keeps the rest for DEBUG', () => {
    expect(devLine('2026-11-25 LOG:  checkpoint starting', false)).toBeNull();
    expect(devLine('[realtime] replication: connection closed; retrying', false)).toBeNull();
    expect(devLine('noise', true)).toBe('\x1b[2m[stack] noise\x1b[0m');
  });
});
