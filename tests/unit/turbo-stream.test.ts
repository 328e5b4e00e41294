// keepInErrors: the text a form sent goes into single fetch's turbo-stream, where the error page
// in the browser reads it (entry.server; docs/decisions/014-single-fetch.md).
import { decode, encode } from 'turbo-stream';
import { describe, expect, it } from 'vitest';
import { keepInErrors } from '~/lib/http/turbo-stream.server.ts';

const text = (value: unknown) => new Response(encode(value)).text();
const read = async (body: string) => (await decode(new Response(body).body!)).value;

describe('keepInErrors', () => {
  it('adds the kept fields to every backend_unavailable error, and nothing else changes', async () => {
    const value = {
      root: { data: { user: null } },
      'routes/support.$slug.new': {
        error: { code: 'backend_unavailable', message: "Tend can't reach its database right now." },
      },
      other: { error: { code: 'not_found', message: "We couldn't find that." } },
    };
    const kept: [string, string][] = [
      ['subject', 'Printer on fire'],
      ['body', 'It started smoking at nine.\n"Then" it printed forty pages.'],
    ];
    const out = (await read(keepInErrors(await text(value), kept))) as typeof value;
    expect(out['routes/support.$slug.new'].error).toEqual({ ...value['routes/support.$slug.new'].error, kept });
    expect(out.other).toEqual(value.other);
    expect(out.root).toEqual(value.root);
  });

  it('leaves text without such an error, or that it cannot read, as it was', async () => {
    const none = await text({ root: { data: { x: 1 } } });
    expect(keepInErrors(none, [['a', 'b']])).toBe(none);
    expect(keepInErrors('not turbo-stream', [['a', 'b']])).toBe('not turbo-stream');
    const withPromise = await text({ later: Promise.resolve({ code: 'backend_unavailable' }) });
    expect(keepInErrors(withPromise, [['a', 'b']])).toBe(withPromise);
  });
});
