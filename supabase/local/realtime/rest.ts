// Broadcast over HTTP (docs/reference/realtime.md §4.4): POST /api/broadcast (a batch, realtime-js's send()
// fallback) and POST /api/broadcast/:topic/events/:event (httpSend). Answers 202 with no body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http.ts';
import { DatabaseUnavailable, writePolicies, xHeaders, type AuthorizationContext } from './authorization.ts';
import { fanOut, topicKey } from './broadcast.ts';
import type { RealtimeContext } from './context.ts';
import { errors, RealtimeError, sendError } from './errors.ts';
import { payloadTooLarge } from './limits.ts';
import type { Claims } from './tokens.ts';

const MAX_BODY = 8_000_000; // Plug.Parsers' default length

/** Authorization: Bearer, else the apikey header, as a JWT with role and exp (plugs/auth_tenant.ex). */
async function authenticate(ctx: RealtimeContext, req: IncomingMessage): Promise<Claims | null> {
  const auth = req.headers.authorization;
  let token: string | undefined;
  if (auth) {
    const [scheme, value] = auth.split(' ');
    if (scheme?.toLowerCase() === 'bearer') token = value;
  }
  token ??= req.headers.apikey as string | undefined;
  if (!token) return null;
  const check = await ctx.tokens.verify(token);
  return check.ok ? check.claims : null;
}

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Whether the sender may broadcast on a private topic (write policy on realtime.messages). */
async function mayWrite(ctx: RealtimeContext, auth: AuthorizationContext) {
  const policies = await writePolicies(ctx.pool, auth, ['broadcast', 'presence'], { broadcast: {}, presence: {} });
  return policies.broadcast.write === true;
}

export async function handleRest(ctx: RealtimeContext, req: IncomingMessage, res: ServerResponse, path: string) {
  try {
    await broadcast(ctx, req, res, path);
  } catch (e) {
    if (!(e instanceof RealtimeError)) throw e;
    sendError(res, e);
  }
}

async function broadcast(ctx: RealtimeContext, req: IncomingMessage, res: ServerResponse, path: string) {
  const url = new URL(path, 'http://realtime');
  const single = /^\/api\/broadcast\/([^/]+)\/events\/([^/]+)$/.exec(url.pathname);
  if (req.method !== 'POST' || (url.pathname !== '/api/broadcast' && !single)) throw errors.notFound();
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (single && contentType && contentType !== 'application/json' && contentType !== 'application/octet-stream')
    throw errors.unsupportedMediaType();
  const claims = await authenticate(ctx, req);
  if (!claims) throw errors.unauthorized();

  const body = await readBody(req, MAX_BODY, errors.tooLarge);
  const binary = !!single && contentType === 'application/octet-stream';
  let parsed: unknown = {};
  if (!binary && body.length) {
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw errors.badRequest();
    }
  }
  const headers = xHeaders(req);
  const { events } = ctx.limits;
  const max = ctx.config.maxEventsPerSecond;

  if (single) {
    const topic = decodeURIComponent(single[1]!);
    const event = decodeURIComponent(single[2]!);
    const isPrivate = url.searchParams.get('private') === 'true';
    // Plug parses a JSON body that isn't an object into {"_json": value}.
    const payload = binary ? body : Buffer.from(JSON.stringify(isMap(parsed) ? parsed : { _json: parsed }));
    if (payloadTooLarge(ctx.config, payload.length)) throw errors.payloadTooLarge();
    if (events.avg >= max) throw errors.rateLimited();
    if (isPrivate) {
      const allowed = await mayWrite(ctx, { topic, claims, headers }).catch((e) => {
        throw e instanceof DatabaseUnavailable ? errors.databaseUnavailable() : errors.policyError();
      });
      if (!allowed) throw errors.forbidden();
    }
    events.add();
    fanOut(ctx.hub, topicKey(isPrivate, topic), {
      user: { topic, event, encoding: binary ? 'binary' : 'json', payload, metadata: null },
    });
    res.writeHead(202, { 'content-length': '0' });
    return res.end();
  }

  // The batch: every message valid, or 422 with Ecto's errors per message.
  if (!isMap(parsed) || !('messages' in parsed) || parsed.messages === null) throw errors.messages(["can't be blank"]);
  if (!Array.isArray(parsed.messages)) throw errors.messages(['is invalid']);
  const messages = parsed.messages as unknown[];
  const invalid = messages.map((m) => {
    const e: Record<string, string[]> = {};
    if (!isMap(m)) return { message: ['is invalid'] } as Record<string, string[]>;
    for (const field of ['topic', 'event'] as const) {
      if (m[field] === undefined || m[field] === null || m[field] === '') e[field] = ["can't be blank"];
      else if (typeof m[field] !== 'string') e[field] = ['is invalid'];
    }
    if (m.payload === undefined || m.payload === null) e.payload = ["can't be blank"];
    else if (!isMap(m.payload)) e.payload = ['is invalid'];
    else if (payloadTooLarge(ctx.config, Buffer.byteLength(JSON.stringify(m.payload))))
      e.payload = ['Payload size exceeds tenant limit'];
    if (m.private !== undefined && m.private !== null && typeof m.private !== 'boolean') e.private = ['is invalid'];
    return e;
  });
  if (!messages.length) throw errors.messages(["can't be blank"]);
  if (invalid.some((e) => Object.keys(e).length)) throw errors.messages(invalid);
  if (events.avg > max) throw errors.rateLimited();
  if (messages.length + events.avg > max) throw errors.batchTooLarge();

  const valid = messages as {
    topic: string;
    event: string;
    payload: Record<string, unknown>;
    private?: boolean;
    id?: unknown;
  }[];
  const allowed = new Map<string, boolean>();
  for (const m of valid) {
    if (m.private) {
      if (!allowed.has(m.topic))
        allowed.set(m.topic, await mayWrite(ctx, { topic: m.topic, claims, headers }).catch(() => false));
      if (!allowed.get(m.topic)) continue; // skipped silently, still 202
    }
    const json: Record<string, unknown> = { payload: m.payload, event: m.event, type: 'broadcast' };
    if (m.id !== undefined && m.id !== null) json.meta = { id: m.id };
    events.add();
    fanOut(ctx.hub, topicKey(!!m.private, m.topic), { json });
  }
  res.writeHead(202, { 'content-length': '0' });
  res.end();
}
