// The platform's own answers, as hosted gives them (Supabase docs: functions/error-codes and the
// troubleshooting guides for 401, 404, 503, 546): a JSON body and an `sb-error-code` header, no
// CORS headers (a browser reports them as CORS failures, as on hosted).
import type { ServerResponse } from 'node:http';
import { sendJson } from '../http.ts';

export const PLATFORM_ERRORS = {
  NOT_FOUND: [404, 'Requested function was not found'],
  BOOT_ERROR: [503, 'Function failed to start (please check logs)'],
  WORKER_ERROR: [500, 'Function exited due to an error (please check logs)'],
  WORKER_LIMIT: [546, 'Function failed due to not having enough compute resources (please check logs)'],
  // Hosted answers 504 after the request idle timeout (limits guide); the body's wording is ours.
  IDLE_TIMEOUT: [504, 'Function did not respond within the request idle timeout'],
} as const;

export type PlatformError = keyof typeof PLATFORM_ERRORS;

// The legacy JWT check's 401 bodies (troubleshooting/edge-function-401-error-response).
export const UNAUTHORIZED = {
  UNAUTHORIZED_NO_AUTH_HEADER: 'Missing authorization header',
  UNAUTHORIZED_INVALID_JWT_FORMAT: 'Invalid JWT',
  UNAUTHORIZED_LEGACY_JWT: 'Invalid JWT',
  UNAUTHORIZED_ASYMMETRIC_JWT: 'Invalid JWT',
  UNAUTHORIZED_UNSUPPORTED_TOKEN_ALGORITHM: 'Invalid JWT',
} as const;

export type Unauthorized = keyof typeof UNAUTHORIZED;

function send(res: ServerResponse, status: number, code: string, body: unknown) {
  if (res.headersSent) return void res.destroy();
  sendJson(res, status, body, { 'content-type': 'application/json', 'sb-error-code': code });
}

export function sendPlatformError(res: ServerResponse, code: PlatformError) {
  const [status, message] = PLATFORM_ERRORS[code];
  send(res, status, code, { code, message });
}

export function sendUnauthorized(res: ServerResponse, code: Unauthorized) {
  send(res, 401, code, { code: 401, message: UNAUTHORIZED[code] });
}
