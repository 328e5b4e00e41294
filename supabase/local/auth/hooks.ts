// Auth hooks from [auth.hook.*], run as GoTrue runs them (internal/hooks/v0hooks/manager.go): a
// pg-functions:// hook is a SQL function called on Auth's own connection, so as supabase_auth_admin
// (hookspgfunc.go); an http(s):// hook is a POST signed with Standard Webhooks (hookshttp.go). Either
// may answer {"error": {"http_code", "message"}} to stop the request (hookserrors.go).
import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import type { HookConfig, HookName } from '../config.ts';
import type { AuthContext } from './context.ts';
import { AuthError } from './errors.ts';
import { clientIp } from './http.ts';

// v0hooks.go: the name each hook's metadata carries.
const METADATA_NAME: Record<HookName, string> = {
  custom_access_token: 'customize-access-token',
  password_verification_attempt: 'password-verification',
  mfa_verification_attempt: 'mfa-verification',
  send_email: 'send-email',
  send_sms: 'send-sms',
  before_user_created: 'before-user-created',
};

const PG_TIMEOUT_MS = 2000; // hookspgfunc.go defaultTimeout
const HTTP_TIMEOUT_MS = 5000; // hookshttp.go: one deadline for all attempts
const HTTP_ATTEMPTS = 3;
const HTTP_BACKOFF_MS = 2000;
const RESPONSE_LIMIT = 200 * 1024;

export type HookOutput = Record<string, unknown> | undefined;

export const hookEnabled = (ctx: AuthContext, name: HookName) => !!ctx.config.hooks[name];

/**
 * Runs hook `name` with `input` (metadata added) and returns its JSON output (undefined for an empty
 * answer). `db` is the transaction the hook joins, as GoTrue passes its own; without one it runs in
 * its own transaction. Errors come back as GoTrue answers them.
 */
export async function runHook(
  ctx: AuthContext,
  name: HookName,
  req: IncomingMessage,
  input: Record<string, unknown>,
  db?: pg.PoolClient,
): Promise<HookOutput> {
  const hook = ctx.config.hooks[name]!;
  const ip = clientIp(req);
  const payload = JSON.stringify({
    metadata: {
      uuid: randomUUID(),
      time: new Date().toISOString(),
      name: METADATA_NAME[name],
      ...(ip ? { ip_address: ip } : {}),
    },
    ...input,
  });
  let text: string | undefined;
  try {
    text = hook.uri.startsWith('pg-functions:') ? await runPg(ctx, hook, payload, db) : await runHttp(hook, payload);
  } catch (err) {
    if (err instanceof AuthError) throw err;
    ctx.log(`hook ${hook.uri} failed: ${(err as Error).message}`);
    throw new AuthError(500, 'unexpected_failure', `Error running hook URI: ${hook.uri}`); // manager.go dispatch
  }
  if (text === undefined || text === '') return undefined;
  let output: unknown;
  try {
    output = JSON.parse(text);
  } catch {
    throw new AuthError(500, 'unexpected_failure', 'Error unmarshaling JSON output.');
  }
  // hookserrors.go Check: an error object with a message stops the request with its status (500 when none).
  const error = (output as { error?: { http_code?: unknown; message?: unknown } } | null)?.error;
  if (error && typeof error === 'object' && typeof error.message === 'string' && error.message) {
    const status = typeof error.http_code === 'number' && error.http_code ? error.http_code : 500;
    throw new AuthError(status, '', error.message);
  }
  if (output !== null && (typeof output !== 'object' || Array.isArray(output)))
    throw new AuthError(500, 'unexpected_failure', 'Error unmarshaling JSON output.');
  return (output as Record<string, unknown>) ?? undefined;
}

/** hookspgfunc.go runPostgresHook: `select "schema"."function"($1)` under a 2 s statement timeout. */
async function runPg(ctx: AuthContext, hook: HookConfig, payload: string, db?: pg.PoolClient) {
  const [, schema, fn] = new URL(hook.uri).pathname.split('/');
  const call = async (c: pg.PoolClient) => {
    await c.query(`set local statement_timeout to '${PG_TIMEOUT_MS}'`);
    const r = await c.query(`select "${schema}"."${fn}"($1::jsonb)::text as output`, [payload]);
    await c.query('set local statement_timeout to default');
    return (r.rows[0]?.output as string | null) ?? undefined;
  };
  if (db) return call(db);
  const c = await ctx.pool.connect();
  try {
    await c.query('begin');
    const out = await call(c);
    await c.query('commit');
    return out;
  } catch (err) {
    await c.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}

/** Standard Webhooks: base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" with the whsec_ key (standardwebhooks Sign). */
export function signWebhook(secret: string, id: string, timestamp: number, body: string) {
  const key = Buffer.from(secret.replace(/^v1,/, '').replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

const timedOut = () =>
  new AuthError(
    422,
    'hook_timeout',
    `Failed to reach hook within maximum time of ${(HTTP_TIMEOUT_MS / 1000).toFixed(6)} seconds`,
  );

/** hookshttp.go runHTTPHook: up to 3 attempts within 5 s, 2 s apart after a network error. */
async function runHttp(hook: HookConfig, payload: string): Promise<string | undefined> {
  const deadline = AbortSignal.timeout(HTTP_TIMEOUT_MS);
  for (let attempt = 0; attempt < HTTP_ATTEMPTS; attempt++) {
    const id = randomUUID();
    const timestamp = Math.floor(Date.now() / 1000);
    let res: Response;
    try {
      res = await fetch(hook.uri, {
        method: 'POST',
        signal: deadline,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': hook.secrets.map((s) => signWebhook(s, id, timestamp, payload)).join(', '),
          'accept-encoding': 'identity',
        },
        body: payload,
      });
    } catch {
      if (deadline.aborted) throw timedOut();
      if (attempt < HTTP_ATTEMPTS - 1) {
        await new Promise((r) => setTimeout(r, HTTP_BACKOFF_MS));
        if (deadline.aborted) throw timedOut();
        continue;
      }
      throw new AuthError(422, 'hook_timeout_after_retry', 'Failed to reach hook after maximum retries');
    }
    switch (res.status) {
      case 204:
        return undefined;
      case 200:
      case 202: {
        const contentType = res.headers.get('content-type');
        if (!contentType)
          throw new AuthError(
            400,
            'hook_payload_invalid_content_type',
            'Invalid Content-Type: Missing Content-Type header',
          );
        if (contentType.split(';')[0].trim().toLowerCase() !== 'application/json')
          throw new AuthError(
            400,
            'hook_payload_invalid_content_type',
            `Invalid JSON response. Received content-type: ${contentType}`,
          );
        const body = Buffer.from(await res.arrayBuffer());
        if (body.length > RESPONSE_LIMIT)
          throw new AuthError(
            422,
            'hook_payload_over_size_limit',
            `Payload size exceeded size limit of ${RESPONSE_LIMIT} bytes`,
          );
        return body.toString('utf8');
      }
      case 429:
      case 503:
        await res.body?.cancel();
        if (res.headers.get('retry-after')) continue;
        throw new AuthError(500, '', 'Service currently unavailable due to hook');
      case 400:
        throw new AuthError(500, '', 'Invalid payload sent to hook');
      case 401:
        throw new AuthError(500, '', 'Hook requires authorization token');
      default:
        throw new AuthError(500, '', `Unexpected status code returned from hook: ${res.status}`);
    }
  }
  throw new AuthError(500, '', 'Service currently unavailable due to hook');
}

/** Claims a custom_access_token hook must return (tokens/service.go MinimumViableTokenSchema). */
const CLAIM_TYPES: Record<string, string[]> = {
  aud: ['string', 'array'],
  exp: ['integer'],
  jti: ['string'],
  iat: ['integer'],
  iss: ['string'],
  nbf: ['integer'],
  sub: ['string'],
  email: ['string'],
  phone: ['string'],
  app_metadata: ['object'],
  user_metadata: ['object'],
  role: ['string'],
  aal: ['string'],
  amr: ['array'],
  session_id: ['string'],
  client_id: ['string'],
};
const REQUIRED_CLAIMS = ['aud', 'exp', 'iat', 'sub', 'email', 'phone', 'role', 'aal', 'session_id', 'is_anonymous'];

const jsonType = (v: unknown) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? 'integer'
          : 'number'
        : typeof v;

/** The hook's `claims`, checked as GoTrue checks them (v0hooks CustomAccessTokenOutput, validateTokenClaims). */
export function hookClaims(output: HookOutput): Record<string, unknown> {
  if (!output || !('claims' in output)) throw new AuthError(500, '', 'output claims field is missing');
  const claims = output.claims;
  const problems: string[] = [];
  if (jsonType(claims) !== 'object')
    problems.push(`(root): Invalid type. Expected: object, given: ${jsonType(claims)}`);
  else {
    const c = claims as Record<string, unknown>;
    for (const k of REQUIRED_CLAIMS) if (!(k in c)) problems.push(`(root): ${k} is required`);
    for (const [k, types] of Object.entries(CLAIM_TYPES)) {
      if (!(k in c)) continue;
      const t = jsonType(c[k]);
      if (!types.includes(t) && !(t === 'integer' && types.includes('number')))
        problems.push(`${k}: Invalid type. Expected: ${types.join('/')}, given: ${t}`);
    }
    if (Array.isArray(c.amr))
      c.amr.forEach((e, i) => {
        if (!['string', 'object'].includes(jsonType(e)))
          problems.push(`amr.${i}: Must validate at least one schema (anyOf)`);
      });
  }
  if (problems.length)
    throw new AuthError(
      500,
      '',
      `output claims do not conform to the expected schema: \n${problems.map((p) => `- ${p}\n`).join('')}`,
    );
  return claims as Record<string, unknown>;
}
