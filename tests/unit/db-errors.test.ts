import type { PostgrestError } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import { errorMessage, errorStatus, type ErrorCode } from '~/lib/errors/catalogue.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';

const raised = (code: string, details: string | null = null) => ({ code: 'P0001', message: code, details });

describe('database errors → the catalogue', () => {
  it('gives every code the database raises the catalogue status, one status per code', () => {
    const codes: ErrorCode[] = [
      'not_found',
      'forbidden',
      'ticket_closed',
      'ticket_changed',
      'slug_taken',
      'invitation_invalid',
      'invitation_email_mismatch',
      'last_admin',
      'assignee_not_member',
      'already_member',
      'link_invalid',
      'link_used',
      'link_expired',
    ];
    for (const code of codes) {
      const mapped = mapDbError(raised(code), 'test');
      expect(mapped, code).toMatchObject({ code, status: errorStatus(code), message: errorMessage(code) });
    }
    expect(mapDbError(raised('invitation_invalid'), 'test').status).toBe(410);
  });

  it('says how long to wait when the database knows it (the invitation limits: seconds in the hint)', () => {
    const limited = (hint: string | null) =>
      mapDbError({ ...raised('too_many_attempts', 'invitation emails'), hint }, 'resend');
    expect(limited('3540')).toMatchObject({ status: 429, message: 'Too many attempts. Try again in 59 minutes.' });
    expect(limited('30').message).toBe('Too many attempts. Try again in 1 minute.');
    expect(limited(null).message).toBe('Too many attempts. Try again in a few minutes.');
    expect(limited('soon').message).toBe('Too many attempts. Try again in a few minutes.');
  });

  it('names both ends of a refused transition', () => {
    const mapped = mapDbError(raised('invalid_transition', 'closed→open'), 'test');
    expect(mapped).toMatchObject({
      status: 409,
      message: errorMessage('invalid_transition', { from: 'closed', to: 'open' }),
    });
  });

  it('treats checks the forms make first, and values Postgres refuses, as bad_request', () => {
    for (const error of [raised('attachment_type'), { code: '22P02', message: 'invalid input syntax for type uuid' }]) {
      expect(mapDbError(error, 'test')).toMatchObject({ code: 'bad_request', status: 400 });
    }
  });

  it('makes a statement timeout (57014) a catalogue error, never a 500', () => {
    const timeout = { code: '57014', message: 'canceling statement due to statement timeout' };
    expect(mapDbError(timeout, 'inbox search')).toMatchObject({ code: 'search_timeout', status: 503 });
    expect(mapDbError(timeout, 'inbox')).toMatchObject({ code: 'backend_unavailable', status: 503 });
  });

  it('tells an unreachable database from an unexpected error', () => {
    expect(mapDbError({ message: 'TypeError: fetch failed' }, 'test')).toMatchObject({
      code: 'backend_unavailable',
      status: 503,
    });
    expect(mapDbError({ code: '42P01', message: 'relation does not exist' }, 'test')).toMatchObject({
      code: 'unexpected',
      status: 500,
    });
  });
});

const err = (fields: Partial<PostgrestError>) => ({ details: '', hint: '', code: '', ...fields }) as PostgrestError;

describe('database errors when the data API is not reached', () => {
  it.each([
    ['a refused connection', 'TypeError: fetch failed'],
    ["the gateway's answer for a dead PostgREST (502)", 'An invalid response was received from the upstream server'],
    ["the gateway's timeout (504)", 'The upstream server is timing out'],
    ['a gateway without the service (503)', 'rest is not running'],
  ])('%s is backend_unavailable (503), not a server error', (_label, message) => {
    const mapped = mapDbError(err({ message }), 'test');
    expect(mapped.code).toBe('backend_unavailable');
    expect(mapped.status).toBe(503);
  });

  it('an error PostgREST answered (with its code) is not', () => {
    expect(mapDbError(err({ code: 'PGRST116', message: 'JSON object requested' }), 'test').code).not.toBe(
      'backend_unavailable',
    );
  });
});
