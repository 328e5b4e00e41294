import { describe, expect, it } from 'vitest';
import { mapAuthError, mappedMessage, secondsFromRateLimitMessage } from '~/lib/errors/from-auth.server.ts';
import { errorMessage } from '~/lib/errors/catalogue.server.ts';

describe('mapping Supabase Auth errors to the catalogue', () => {
  it('turns the resend cooldown into code_rate_limited with the seconds from GoTrue', () => {
    const mapped = mapAuthError({
      status: 429,
      code: 'over_email_send_rate_limit',
      message: 'For security purposes, you can only request this after 42 seconds.',
    });
    expect(mapped).toEqual({ code: 'code_rate_limited', seconds: 42 });
    expect(mappedMessage(mapped)).toBe('You can request a new code in 42 seconds.');
  });

  it('treats the project-wide email cap as too_many_attempts', () => {
    expect(
      mapAuthError({ status: 429, code: 'over_email_send_rate_limit', message: 'email rate limit exceeded' }),
    ).toEqual({ code: 'too_many_attempts' });
    expect(
      mapAuthError({ status: 429, code: 'over_request_rate_limit', message: 'Request rate limit reached' }),
    ).toEqual({ code: 'too_many_attempts' });
  });

  it('maps a wrong or expired code to code_invalid', () => {
    expect(mapAuthError({ status: 403, code: 'otp_expired', message: 'Token has expired or is invalid' }).code).toBe(
      'code_invalid',
    );
  });

  it('maps address validation to email_invalid', () => {
    expect(
      mapAuthError({
        status: 400,
        code: 'validation_failed',
        message: 'Unable to validate email address: invalid format',
      }).code,
    ).toBe('email_invalid');
  });

  it('maps a dead session to session_expired', () => {
    for (const code of ['session_not_found', 'refresh_token_not_found', 'refresh_token_already_used', 'bad_jwt']) {
      expect(mapAuthError({ status: 400, code }).code, code).toBe('session_expired');
    }
    expect(mapAuthError({ name: 'AuthSessionMissingError', status: 400 }).code).toBe('session_expired');
  });

  it('maps an unreachable or failing backend to backend_unavailable', () => {
    expect(mapAuthError({ name: 'AuthRetryableFetchError', status: 0, message: 'fetch failed' }).code).toBe(
      'backend_unavailable',
    );
    expect(mapAuthError({ status: 502, message: 'Bad Gateway' }).code).toBe('backend_unavailable');
    expect(mappedMessage({ code: 'backend_unavailable' })).toBe(errorMessage('backend_unavailable'));
  });

  it('falls back on the status when the code is unknown', () => {
    expect(mapAuthError({ status: 429, code: 'something_new' }).code).toBe('too_many_attempts');
    expect(mapAuthError({ status: 418, code: 'teapot' }).code).toBe('unexpected');
  });

  it('reads the seconds only from the "after N seconds" wording', () => {
    expect(secondsFromRateLimitMessage('you can only request this after 1 second.')).toBe(1);
    expect(secondsFromRateLimitMessage('email rate limit exceeded')).toBeUndefined();
    expect(secondsFromRateLimitMessage(undefined)).toBeUndefined();
  });
});
