// PostgREST and remote-procedure errors → the catalogue. The database raises catalogue codes as
// P0001 exceptions (the code is the message, details in `detail`); the status is always the
// catalogue's own.
import type { PostgrestError } from '@supabase/supabase-js';
import { log } from '../http/log.server.ts';
import { errorResponse } from '../http/responses.server.ts';
import { errorMessage, errorStatus, isErrorCode, type ErrorCode } from './catalogue.server.ts';

export interface DbError {
  code: ErrorCode;
  message: string;
  status: number;
  details: string | null;
}

type PostgrestErrorLike = Pick<PostgrestError, 'message'> & {
  code?: string;
  details?: string | null;
  hint?: string | null;
};

// Codes the database raises for checks a form makes first: only a hand-made request reaches them.
const CHECKED_BY_FORMS = new Set<ErrorCode>(['code_rate_limited', 'attachment_too_large', 'attachment_type']);

function refusal(code: ErrorCode, details: string | null): DbError {
  return { code, message: errorMessage(code), status: errorStatus(code), details };
}

/** A PostgREST/RPC error as a catalogue code, message and status. */
export function mapDbError(error: PostgrestErrorLike, context: string): DbError {
  const code = error.code === 'P0001' && isErrorCode(error.message) ? error.message : null;
  if (code) {
    const details = error.details ?? null;
    if (code === 'invalid_transition') {
      const [from = '?', to = '?'] = (details ?? '?→?').split('→');
      return { code, message: errorMessage(code, { from, to }), status: errorStatus(code), details };
    }
    // A ticket field's refusal names the field (its label, the detail).
    if (code === 'field_required' || code === 'field_value_invalid') {
      log.info('helpdesk refused', { code, context });
      return { code, message: errorMessage(code, { field: details ?? '' }), status: errorStatus(code), details };
    }
    if (CHECKED_BY_FORMS.has(code)) return refusal('bad_request', details);
    // The invitation limits say how long until one more may go (the hint, in seconds).
    if (code === 'too_many_attempts' && /^\d+$/.test(error.hint ?? '')) {
      log.info('helpdesk refused', { code, context });
      const minutes = Math.max(1, Math.ceil(Number(error.hint) / 60));
      return { code, message: errorMessage(code, { minutes }), status: errorStatus(code), details };
    }
    log.info('helpdesk refused', { code, context });
    return refusal(code, details);
  }
  // Values Postgres refuses (class 22: a NUL character, a malformed uuid, out of range; 23514: a
  // check) reach it only from a hand-made request, since the forms validate first: bad input, 400.
  if (error.code && (error.code.startsWith('22') || error.code === '23514')) {
    log.warn('helpdesk input refused by the database', { context, pg_code: error.code, message: error.message });
    return refusal('bad_request', null);
  }
  // The statement timeout (57014): a search that the inbox couldn't narrow in time, else a database too busy
  // to answer — a catalogue error either way, never a 500.
  if (error.code === '57014') {
    log.warn('helpdesk statement timeout', { context, message: error.message });
    return refusal(context === 'inbox search' ? 'search_timeout' : 'backend_unavailable', null);
  }
  // PostgREST always gives a code. Without one the data API was not reached: a refused or timed-out
  // fetch, or the gateway's own answer for a dead upstream (Kong's 502 "An invalid response was
  // received from the upstream server", 504 "The upstream server is timing out", 503 "… not running").
  const unreachable = !error.code;
  log.error('helpdesk database error', { context, pg_code: error.code, message: error.message });
  return refusal(unreachable ? 'backend_unavailable' : 'unexpected', null);
}

/** Throws the catalogue error page for a failed loader query: its own page, bad_request or unexpected. */
export function throwDbError(request: Request, error: PostgrestErrorLike, context: string): never {
  const { code, status } = mapDbError(error, context);
  if (code === 'backend_unavailable' || code === 'search_timeout' || code === 'not_found' || code === 'forbidden')
    throw errorResponse(request, code);
  throw errorResponse(request, status === 400 ? 'bad_request' : 'unexpected');
}
