// A Response of bytes in memory (app/lib/http/bytes-response.ts, docs/decisions/115-rows-as-markup.md): read as
// undici's Response of the same bytes reads, once, by any of its ways; server.ts takes its bytes as they are.
import { describe, expect, it } from 'vitest';
import { BytesResponse, bytesOf } from '../../app/lib/http/bytes-response.ts';

const TEXT = '{"subject":"Refund 5–10 days… 😀 <b>"}';
const bytes = () => new TextEncoder().encode(TEXT);
const init = { status: 201, statusText: 'Created', headers: { 'content-type': 'application/json', 'x-a': '1' } };

describe('BytesResponse', () => {
  it('reads as a Response of the same bytes does, by every way', async () => {
    for (const read of [
      (r: Response) => r.text(),
      (r: Response) => r.json(),
      async (r: Response) => [...new Uint8Array(await r.arrayBuffer())],
      async (r: Response) => [...(await r.bytes())],
      async (r: Response) => (await r.blob()).text(),
      async (r: Response) => (await r.blob()).type,
      async (r: Response) => new Response(r.body).text(),
    ]) {
      expect(await read(new BytesResponse(bytes(), init))).toEqual(await read(new Response(bytes(), init)));
    }
  });

  it('keeps the status, text and headers, and is a Response', () => {
    const response = new BytesResponse(bytes(), init);
    expect(response).toBeInstanceOf(Response);
    expect([response.status, response.statusText, response.ok, response.headers.get('x-a')]).toEqual([
      201,
      'Created',
      true,
      '1',
    ]);
  });

  it('is read once, as fetch’s body is', async () => {
    const response = new BytesResponse(bytes(), init);
    expect(response.bodyUsed).toBe(false);
    await response.text();
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    expect(() => response.clone()).toThrow(TypeError);
  });

  it('is used once its stream is read, not when the stream is only asked for', async () => {
    const response = new BytesResponse(bytes(), init);
    const body = response.body!;
    expect(response.bodyUsed).toBe(false);
    expect(await new Response(body).text()).toBe(TEXT);
    expect(response.bodyUsed).toBe(true);
  });

  it('clones into another response of the same bytes', async () => {
    const response = new BytesResponse(bytes(), init);
    const copy = response.clone();
    expect(await copy.text()).toBe(TEXT);
    expect(await response.text()).toBe(TEXT);
    expect(copy.status).toBe(201);
  });

  it('has no body without bytes', async () => {
    const response = new BytesResponse(null, { status: 204 });
    expect(response.body).toBeNull();
    expect(await response.text()).toBe('');
    expect(bytesOf(response)).toBeNull();
  });

  it('gives server.ts its bytes as they are, and nothing for another Response', () => {
    const given = bytes();
    const response = new BytesResponse(given, init);
    expect(bytesOf(response)).toBe(given);
    expect(response.bodyUsed).toBe(true);
    expect(bytesOf(new Response(bytes()))).toBeUndefined();
  });
});
