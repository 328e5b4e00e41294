import type { PostgrestError } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import { mapDbError } from '~/lib/helpdesk/queries.server.ts';

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
