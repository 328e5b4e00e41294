// <data dir>/stack.json: written by a running stack, read by `status`, `stop` and the commands that
// work on a running stack. Its pid is the stack's lock: one stack per data dir.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isAlive } from './process.ts';
import type { StackInfo, StartTimings } from './stack.ts';

export interface StatusFile extends StackInfo {
  publishableKey: string;
  secretKey: string;
  /** The process that started the stack (`stop` signals it). */
  pid: number;
  processes: { name: string; pid: number }[];
  /** Where the start spent its time, per phase (bench:stack). */
  timings?: StartTimings;
}

export const statusFile = (dir: string) => path.join(dir, 'stack.json');

/** The running stack on this data dir, if any (as `npm run stack -- status` reports it). */
export function readStatus(dir: string): StatusFile | null {
  try {
    const s = JSON.parse(readFileSync(statusFile(dir), 'utf8'));
    return isAlive(s.pid) ? s : null;
  } catch {
    return null;
  }
}
