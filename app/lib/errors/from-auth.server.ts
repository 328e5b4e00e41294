// Supabase Auth errors → the catalogue. Map by `code`/status, never by message text, except for
// the seconds in GoTrue's frequency limit ("…only request this after N seconds", gotrue errors.go).
import { errorMessage } from './catalogue.server.ts';

export interface AuthErrorLike {
  name?: string;
  status?: number;
  code?: string;
  message?: string;
}

export type AuthErrorCode =
  | 'backend_unavailable'
  | 'code_rate_limited'
  | 'too_many_attempts'
  | 'code_invalid'
  | 'email_invalid'
  | 'session_expired'
  | 'forbidden'
  | 'unexpected';

export interface MappedError {
  code: AuthErrorCode;
  /** For code_rate_limited: seconds left before another code can be sent. */
  seconds?: number;
}

const AFTER_SECONDS = /after (\d+) seconds?/i;

export function secondsFromRateLimitMessage(message: string | undefined): number | undefined {
  const m = message ? AFTER_SECONDS.exec(message) : null;
  return m ? Number(m[1]) : undefined;
}

export function mapAuthError(error: AuthErrorLike): MappedError {
  const status = error.status ?? 0;
  // auth-js: AuthRetryableFetchError (status 0) when the server can't be reached; 5xx likewise.
  if (error.name === 'AuthRetryableFetchError' || status === 0 || status >= 500) return { code: 'backend_unavailable' };
  switch (error.code) {
    case 'over_email_send_rate_limit': {
      const seconds = secondsFromRateLimitMessage(error.message);
      return seconds ? { code: 'code_rate_limited', seconds } : { code: 'too_many_attempts' };
    }
    case 'over_request_rate_limit':
    case 'over_sms_send_rate_limit':
      return { code: 'too_many_attempts' };
    case 'otp_expired':
    case 'otp_disabled':
    case 'invalid_credentials':
    case 'flow_state_expired':
    case 'flow_state_not_found':
      return { code: 'code_invalid' };
    case 'validation_failed':
    case 'email_address_invalid':
    case 'email_address_not_authorized':
      return { code: 'email_invalid' };
    case 'session_not_found':
    case 'session_expired':
    case 'refresh_token_not_found':
    case 'refresh_token_already_used':
    case 'bad_jwt':
    case 'user_not_found':
      return { code: 'session_expired' };
    case 'user_banned':
    case 'signup_disabled':
      return { code: 'forbidden' };
  }
  if (status === 429) return { code: 'too_many_attempts' };
  if (status === 403) return { code: 'code_invalid' };
  if (error.name === 'AuthSessionMissingError' || status === 401) return { code: 'session_expired' };
  return { code: 'unexpected' };
}

/** The catalogue message for a mapped auth error. */
export function mappedMessage(mapped: MappedError): string {
  if (mapped.code === 'code_rate_limited')
    return mapped.seconds
      ? errorMessage('code_rate_limited', { seconds: mapped.seconds })
      : errorMessage('too_many_attempts');
  return errorMessage(mapped.code);
}
