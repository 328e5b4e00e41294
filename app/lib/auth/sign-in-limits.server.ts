// The app's sign-in limits (docs/decisions/003-abuse-limits.md, 020-sign-in-limits.md): wrong codes
// per address (a ceiling per code) and per IP, counted before Auth is asked; code requests per IP.
// Supabase Auth applies its own per-IP limits on top, keyed on the end user's IP (Sb-Forwarded-For).
//
// One set of counters per server: under server.ts the workers of the cluster ask the primary,
// which keeps them (docs/decisions/009-production-server.md); anywhere else (remix dev, tests)
// the process keeps its own.
import cluster, { type Worker } from 'node:cluster';
import { CODE_REQUESTS_PER_IP, VERIFY_ATTEMPTS_PER_EMAIL, VERIFY_ATTEMPTS_PER_IP } from '../constants.ts';
import { RateLimiter } from '../http/rate-limit.server.ts';

const failedVerifyByEmail = new RateLimiter(VERIFY_ATTEMPTS_PER_EMAIL);
const failedVerifyByIp = new RateLimiter(VERIFY_ATTEMPTS_PER_IP);
const codeRequestsByIp = new RateLimiter(CODE_REQUESTS_PER_IP);

/** How a reserved code check ended: a wrong code counts, a right one or no decision gives it back. */
export type VerifyOutcome = 'wrong' | 'right' | 'undecided';

const local = {
  /**
   * Counts a code check before it is made, so parallel checks can't all pass a check-then-count
   * (docs/decisions/020-sign-in-limits.md); false when the address or the IP has none left.
   */
  reserveVerify(email: string, ip: string | null): boolean {
    if (failedVerifyByEmail.isLimited(email) || (ip !== null && failedVerifyByIp.isLimited(ip))) return false;
    failedVerifyByEmail.hit(email);
    if (ip !== null) failedVerifyByIp.hit(ip);
    return true;
  },
  settleVerify(email: string, ip: string | null, outcome: VerifyOutcome): void {
    if (outcome === 'wrong') return;
    if (outcome === 'right') failedVerifyByEmail.reset(email);
    else failedVerifyByEmail.release(email);
    if (ip !== null) failedVerifyByIp.release(ip);
  },
  /** Whether the address's code has had its wrong tries (only a new code is checked again). */
  codeSpent(email: string): boolean {
    return failedVerifyByEmail.isLimited(email);
  },
  /** A new code went to the address: the old one is void, and the new one gets a full allowance. */
  codeSent(email: string): void {
    failedVerifyByEmail.reset(email);
  },
  allowCodeRequest(ip: string | null): boolean {
    return ip === null || codeRequestsByIp.hit(ip);
  },
};
type Ops = typeof local;
type Op = keyof Ops;

/** server.ts sets this in the environment of the workers it forks. */
export const SHARED_LIMITS_ENV = 'TEND_SHARED_LIMITS';
const MESSAGE = 'tend:sign-in-limits';
/** A primary that doesn't answer (it always should) costs a request this much, then the worker counts alone. */
const ANSWER_TIMEOUT_MS = 2_000;

interface Question {
  type: typeof MESSAGE;
  id: number;
  op: Op;
  args: unknown[];
}
interface Answer {
  type: typeof MESSAGE;
  id: number;
  result: unknown;
}

let nextId = 0;
const waiting = new Map<number, (result: unknown) => void>();
let listening = false;

function viaPrimary(): boolean {
  return (
    cluster.isWorker &&
    process.env[SHARED_LIMITS_ENV] === '1' &&
    typeof process.send === 'function' &&
    process.connected
  );
}

function ask<O extends Op>(op: O, ...args: Parameters<Ops[O]>): Promise<ReturnType<Ops[O]>> {
  const alone = () => (local[op] as (...a: unknown[]) => ReturnType<Ops[O]>)(...args);
  if (!viaPrimary()) return Promise.resolve(alone());
  if (!listening) {
    listening = true;
    process.on('message', (message: Answer) => {
      if (message?.type !== MESSAGE) return;
      waiting.get(message.id)?.(message.result);
      waiting.delete(message.id);
    });
  }
  const id = ++nextId;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      resolve(alone());
    }, ANSWER_TIMEOUT_MS);
    waiting.set(id, (result) => {
      clearTimeout(timer);
      resolve(result as ReturnType<Ops[O]>);
    });
    const question: Question = { type: MESSAGE, id, op, args };
    process.send!(question);
  });
}

/** Reserves one code check for this address and IP; false when either has used up its wrong codes. */
export function reserveVerify(email: string, ip: string | null): Promise<boolean> {
  return ask('reserveVerify', email, ip);
}

/** Settles a reserved check: a wrong code stays counted; a right one clears the address. */
export function settleVerify(email: string, ip: string | null, outcome: VerifyOutcome): Promise<void> {
  return ask('settleVerify', email, ip, outcome);
}

/** True when `email`'s code is spent by wrong tries (a refusal then says so, rather than "too many attempts"). */
export function codeSpent(email: string): Promise<boolean> {
  return ask('codeSpent', email);
}

/** After Auth sent a new code to `email`: it may be tried again (the owner's way back after the ceiling). */
export function codeSent(email: string): Promise<void> {
  return ask('codeSent', email);
}

/** Counts a code request; false when this IP has asked for too many codes lately. */
export function allowCodeRequest(ip: string | null): Promise<boolean> {
  return ask('allowCodeRequest', ip);
}

/** In the cluster primary (server.ts): answer a worker's questions from the counters kept here. */
export function answerSignInLimits(worker: Worker): void {
  worker.on('message', (message: Question) => {
    if (message?.type !== MESSAGE || !Object.hasOwn(local, message.op)) return;
    const result = (local[message.op] as (...a: unknown[]) => unknown)(...message.args);
    const answer: Answer = { type: MESSAGE, id: message.id, result: result ?? null };
    if (worker.isConnected()) worker.send(answer);
  });
}
