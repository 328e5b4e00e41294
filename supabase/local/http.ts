// What every service's HTTP side shares: a JSON answer, and a request body read within a limit.
// What differs from one upstream to the next (the Content-Type GoTrue sends, Mailpit's trailing
// newline, each one's error for a body too large or not JSON) is the caller's to say.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** A JSON answer, `application/json; charset=utf-8` unless `headers` names another type. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
  opts: { newline?: boolean } = {},
) {
  const text = `${JSON.stringify(body)}${opts.newline ? '\n' : ''}`;
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** The request's body; past `limit` bytes it stops reading and throws `tooLarge()`. */
export async function readBody(req: IncomingMessage, limit: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A body that must be a JSON object (`{}` when blank); anything else throws `invalid(why)`. */
export function jsonObject(body: Buffer, invalid: (why: string) => Error): Record<string, unknown> {
  const text = body.toString('utf8').trim();
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalid((err as Error).message);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid('expected an object');
  return value as Record<string, unknown>;
}
