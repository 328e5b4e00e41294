// keepInErrors: the text a form sent goes into single fetch's turbo-stream, where the error page
// in the browser reads it (entry.server; docs/decisions/014-single-fetch.md).
import { createRequire } from 'node:module';
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

// The server's encoder (turbo-stream's CommonJS build, which @remix-run/server-runtime requires) is
// patched to do less work per value (patches/, docs/decisions/083-app-cpu-per-page.md); browsers load
// the ES module, unpatched. What the server writes must be what upstream writes.
describe("the server's turbo-stream encoder", () => {
  const server = createRequire(import.meta.url)('turbo-stream') as typeof import('turbo-stream');
  const upstream = (value: unknown) => new Response(encode(value)).text();
  const patched = (value: unknown) => new Response(server.encode(value)).text();
  const shared = { id: 'a', tags: ['billing', 'vip'] };

  it('writes what upstream writes: repeated values, holes, the special numbers and types', async () => {
    const values: unknown[] = [
      {
        root: { data: { user: { id: 'u1', name: 'Ada' }, unread: 0, ENV: { URL: 'http://x' } } },
        'routes/w.$slug._index': {
          data: {
            tickets: [
              { id: 't1', number: 1, subject: 'Refund', tags: [shared], due: null, snoozed: undefined },
              { id: 't2', number: 2, subject: 'Refund', tags: [shared, { ...shared }], due: { text: 'due in 5 min' } },
            ],
            counts: { all: 0, open: 2 },
          },
        },
      },
      // biome-ignore lint/suspicious/noSparseArray: a hole is one of the things it encodes
      [0, , -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 'a', 'a', ['a'], null],
      { when: new Date(5), set: new Set([1, shared]), map: new Map([['k', shared]]), error: new Error('no') },
      Object.assign(Object.create(null), { a: 1, b: shared }),
      'text',
      0,
    ];
    for (const value of values) expect(await patched(value)).toBe(await upstream(value));
  });

  it('writes the same bytes as upstream for text beyond Latin-1, astral text and a lone surrogate', async () => {
    const bytes = async (stream: ReadableStream<Uint8Array>) => Buffer.from(await new Response(stream).arrayBuffer());
    for (const value of [
      { preview: '5–10 business days → the team’s reply…', name: 'café' },
      { subject: 'Thanks 😀 for the 🚚 update, 東京' },
      { broken: `text \ud800 and \udc00 again` },
      ['plain ASCII'],
    ])
      expect((await bytes(server.encode(value))).equals(await bytes(encode(value)))).toBe(true);
  });

  // entry.server.tsx takes a document's handoff as text from the chunks, not decoding their bytes back.
  it("gives each chunk's text beside its bytes, and the bytes are that text's", async () => {
    const value = { a: '5–10 days → 東京 😀', later: Promise.resolve({ b: 'café –' }) };
    const reader = server.encode(value).getReader();
    const texts: string[] = [];
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      const text = (chunk.value as Uint8Array & { [key: symbol]: string })[Symbol.for('turbo-stream.text')]!;
      expect(new TextDecoder().decode(chunk.value)).toBe(text);
      texts.push(text);
    }
    expect(texts).toHaveLength(2);
    expect(texts.join('')).toBe(await upstream(value));
  });

  it('reads back as it was sent', async () => {
    const value = { a: [shared, shared], b: { c: 'c', d: [1, 2, 3] } };
    expect(await read(await patched(value))).toEqual(value);
  });

  it('skips the checks for other types on a plain object', async () => {
    let asked = 0;
    const notADate = () => {
      asked++;
      return false;
    };
    Object.defineProperty(Date, Symbol.hasInstance, { configurable: true, value: notADate });
    try {
      await patched({ a: { b: { c: 1 } } });
    } finally {
      Reflect.deleteProperty(Date, Symbol.hasInstance);
    }
    expect(asked).toBe(0);
  });
});
