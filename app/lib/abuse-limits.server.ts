// The app's sign-in limits (docs/decisions/003-abuse-limits.md): failed code checks per email and
// per IP, code requests per IP. Supabase Auth applies its own limits on top, keyed on our server.
import { CODE_REQUESTS_PER_IP, VERIFY_ATTEMPTS_PER_EMAIL, VERIFY_ATTEMPTS_PER_IP } from './constants.ts';
import { RateLimiter } from './rate-limit.server.ts';

const failedVerifyByEmail = new RateLimiter(VERIFY_ATTEMPTS_PER_EMAIL);
const failedVerifyByIp = new RateLimiter(VERIFY_ATTEMPTS_PER_IP);
const codeRequestsByIp = new RateLimiter(CODE_REQUESTS_PER_IP);

/** True when another code check for this address (or from this IP) must be refused. */
export function verifyBlocked(email: string, ip: string | null): boolean {
  return failedVerifyByEmail.isLimited(email) || (ip !== null && failedVerifyByIp.isLimited(ip));
}

export function recordFailedVerify(email: string, ip: string | null): void {
  failedVerifyByEmail.hit(email);
  if (ip !== null) failedVerifyByIp.hit(ip);
}

export function clearFailedVerifies(email: string): void {
  failedVerifyByEmail.reset(email);
}

/** Counts a code request; false when this IP has asked for too many codes lately. */
export function allowCodeRequest(ip: string | null): boolean {
  return ip === null || codeRequestsByIp.hit(ip);
}
