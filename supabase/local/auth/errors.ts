// GoTrue's error responses (docs/reference/auth.md §1.2): one helper builds every error body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson as json } from '../http.ts';

export class AuthError extends Error {
  constructor(
    readonly status: number,
    /** '' for an error without a code (a hook's error object): answered as unknown / unexpected_failure. */
    readonly code: string,
    message: string,
    /** GoTrue OAuthError: a few paths answer 400 {error, error_description} in every API version. */
    readonly oauth = false,
  ) {
    super(message);
  }
}

/** GoTrue password.go WeakPasswordError: 422 weak_password with the reasons (length, characters). */
export class WeakPasswordError extends AuthError {
  constructor(
    message: string,
    readonly reasons: string[],
  ) {
    super(422, 'weak_password', message);
  }
}

export const API_VERSION = '2024-01-01';

/** GoTrue apiversions.go: a header date ≥ 2024-01-01 selects the 2024-01-01 API; anything else is "initial". */
export function apiVersion(req: IncomingMessage): string | undefined {
  const v = req.headers['x-supabase-api-version'];
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
  return v >= API_VERSION ? API_VERSION : undefined;
}

/** GoTrue's sendJSON: plain `application/json`. */
export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  json(res, status, body, { 'content-type': 'application/json', ...headers });

export function sendError(req: IncomingMessage, res: ServerResponse, err: AuthError, requestId: string) {
  // GoTrue errors.go: only error responses echo the API version the request asked for.
  const version = apiVersion(req);
  const versionHeader: Record<string, string> = version ? { 'x-supabase-api-version': version } : {};
  if (err.oauth) return sendJson(res, 400, { error: err.code, error_description: err.message }, versionHeader);
  const code = err.code || (err.status === 500 ? 'unexpected_failure' : 'unknown');
  const weak = err instanceof WeakPasswordError ? { weak_password: { reasons: err.reasons } } : {};
  // errors.go: x-sb-error-code only for errors that carry a code, and not on a 2024 weak-password answer.
  const headers: Record<string, string> = {
    ...(err.code && !(version && weak.weak_password) ? { 'x-sb-error-code': err.code } : {}),
    ...versionHeader,
  };
  if (version) return sendJson(res, err.status, { code, message: err.message, ...weak }, headers);
  const body: Record<string, unknown> = { code: err.status, error_code: code, msg: err.message, ...weak };
  if (err.status >= 500) body.error_id = requestId;
  sendJson(res, err.status, body, headers);
}

// GoTrue verify.go: status → OAuth-style `error` for errors carried in a redirect.
export function oauthError(status: number): string {
  return status === 400
    ? 'invalid_request'
    : status === 401
      ? 'unauthorized_client'
      : status === 403
        ? 'access_denied'
        : status === 503
          ? 'temporarily_unavailable'
          : 'server_error';
}

export const errors = {
  badJson: (detail: string) => new AuthError(400, 'bad_json', `Could not parse request body as JSON: ${detail}`),
  validation: (message: string, status = 400) => new AuthError(status, 'validation_failed', message),
  otpExpired: (link = false) =>
    new AuthError(
      403,
      'otp_expired',
      link ? 'Email link is invalid or has expired' : 'Token has expired or is invalid',
    ),
  noAuthorization: () => new AuthError(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
  badJwt: (reason: string) =>
    new AuthError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${reason}`),
  notAdmin: () => new AuthError(403, 'not_admin', 'User not allowed'),
  userNotFound: (status = 403) =>
    new AuthError(
      status,
      'user_not_found',
      status === 403 ? 'User from sub claim in JWT does not exist' : 'User not found',
    ),
  sessionNotFound: () => new AuthError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist'),
  tooLarge: () => new AuthError(413, 'request_entity_too_large', 'Request body too large'),
  overRequestRate: () => new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached'),
  oauth: (error: string, description: string) => new AuthError(400, error, description, true),
  invalidCredentials: (message = 'Invalid login credentials') => new AuthError(400, 'invalid_credentials', message),
  emailExists: () => new AuthError(422, 'email_exists', 'A user with this email address has already been registered'),
  phoneExists: () => new AuthError(422, 'phone_exists', 'A user with this phone number has already been registered'),
  userBanned: (status = 403) => new AuthError(status, 'user_banned', 'User is banned'),
  signupDisabled: () => new AuthError(422, 'signup_disabled', 'Signups not allowed for this instance'),
  emailRateLimit: () => new AuthError(429, 'over_email_send_rate_limit', 'email rate limit exceeded'),
  internal: (message: string) => new AuthError(500, 'unexpected_failure', message),
  /** GoTrue errors.go generateFrequencyLimitErrorMessage: the whole seconds left (Go's Duration / time.Second truncates). */
  tooSoon: (code: 'over_email_send_rate_limit' | 'over_sms_send_rate_limit', sentAt: Date, seconds: number) =>
    new AuthError(
      429,
      code,
      `For security purposes, you can only request this after ${Math.floor((new Date(sentAt).getTime() + seconds * 1000 - Date.now()) / 1000)} seconds.`,
    ),
};
