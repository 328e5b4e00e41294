// The local Auth service at /auth/v1: a GoTrue-compatible subset (docs/reference/auth.md).
import { randomUUID } from 'node:crypto';
import { createPool, isConnectionLost } from '../connections.ts';
import type { Service, StackContext } from '../service.ts';
import { createUserAdmin, deleteUserAdmin, generateLink, getUserAdmin, listUsers, updateUserAdmin } from './admin.ts';
import type { AuthContext, Handler } from './context.ts';
import { AuthError, errors, sendError } from './errors.ts';
import { resolveClientIp } from './http.ts';
import { signer } from './jwt.ts';
import { logout } from './logout.ts';
import { otp } from './otp.ts';
import { health, jwks, settings } from './settings.ts';
import { token } from './token.ts';
import { getUser, putUser } from './user.ts';
import { verifyGet, verifyPost } from './verify.ts';

type Bucket = 'otp' | 'verify' | 'token';

function route(method: string, path: string): { handler: Handler; bucket?: Bucket } | undefined {
  const key = `${method} ${path}`;
  switch (key) {
    case 'POST /otp':
    case 'POST /magiclink':
      return { handler: otp, bucket: 'otp' };
    case 'POST /verify':
      return { handler: verifyPost, bucket: 'verify' };
    case 'GET /verify':
      return { handler: verifyGet, bucket: 'verify' };
    case 'POST /token':
      return { handler: token, bucket: 'token' };
    case 'GET /user':
      return { handler: getUser };
    case 'PUT /user':
      return { handler: putUser, bucket: 'otp' };
    case 'POST /logout':
      return { handler: logout };
    case 'GET /settings':
      return { handler: settings };
    case 'GET /health':
      return { handler: health };
    case 'GET /.well-known/jwks.json':
      return { handler: jwks };
    case 'POST /admin/users':
      return { handler: createUserAdmin };
    case 'GET /admin/users':
      return { handler: listUsers };
    case 'POST /admin/generate_link':
      return { handler: generateLink };
  }
  const m = /^\/admin\/users\/([^/]+)$/.exec(path);
  if (m) {
    if (method === 'GET') return { handler: getUserAdmin(m[1]) };
    if (method === 'PUT') return { handler: updateUserAdmin(m[1]) };
    if (method === 'DELETE') return { handler: deleteUserAdmin(m[1]) };
  }
  return undefined;
}

/**
 * GoTrue's per-IP limits (apilimiter.go): a token bucket per endpoint and address, refilled at
 * `limit` per 5 minutes with a burst of 30. The address is the one the gateway decided from the
 * socket (or Sb-Forwarded-For on a secret-key request), so a client can't pick its own bucket.
 */
function limiter(limits: Record<Bucket, number>) {
  const buckets = new Map<string, { tokens: number; at: number; rate: number }>();
  const refill = (b: { tokens: number; at: number; rate: number }, now: number) =>
    Math.min(30, b.tokens + (now - b.at) * b.rate);
  return (bucket: Bucket, endpoint: string, ip: string | undefined) => {
    if (!ip) return;
    const key = `${endpoint}:${ip}`;
    const now = Date.now();
    // tollbooth forgets an address after an hour; here, whichever buckets are full again once there are many.
    if (buckets.size > 10_000) for (const [k, b] of buckets) if (refill(b, now) >= 30) buckets.delete(k);
    const b = buckets.get(key) ?? { tokens: 30, at: now, rate: limits[bucket] / 300_000 }; // tokens per ms
    b.tokens = refill(b, now);
    b.at = now;
    buckets.set(key, b);
    if (b.tokens < 1) throw errors.overRequestRate();
    b.tokens -= 1;
  };
}

export function createAuthService(stack: StackContext): Service {
  const pool = createPool({ connectionString: stack.dbUrlFor('supabase_auth_admin'), max: 10 });
  stack.onStop(() => pool.end());
  const config = stack.config.auth;
  const ctx: AuthContext = {
    pool,
    mailer: stack.mailer,
    apiUrl: stack.apiUrl,
    config,
    issuer: `${stack.apiUrl}/auth/v1`,
    signer: signer(stack.keys.jwtSecret, stack.signingKeys),
    emailsSent: [],
    log: (m) => stack.log('auth', m),
  };
  const limit = limiter({
    otp: config.rateLimit.signInSignUps,
    verify: config.rateLimit.tokenVerifications,
    token: config.rateLimit.tokenRefresh,
  });

  return {
    name: 'auth',
    async handle(req, res, path) {
      const requestId = randomUUID();
      const url = new URL(path, 'http://auth');
      try {
        const endpoint = url.pathname.replace(/\/+$/, '') || '/';
        const r = route(req.method ?? 'GET', endpoint);
        if (!r) throw new AuthError(404, 'not_found', 'Not Found'); // GoTrue: unknown route
        const ip = resolveClientIp(req, stack.trust.sbForwardedFor, ctx.log);
        if (r.bucket) limit(r.bucket, endpoint, ip); // one bucket per endpoint, GET and POST /verify share
        await r.handler(ctx, req, res, url);
      } catch (err) {
        if (err instanceof AuthError) return sendError(req, res, err, requestId);
        // GoTrue answers a database it can't reach as any unexpected error: 500 unexpected_failure.
        const why = isConnectionLost(err) ? `database unavailable: ${(err as Error).message}` : (err as Error).stack;
        ctx.log(`${req.method} ${url.pathname} failed (${requestId}): ${why ?? err}`);
        if (!res.headersSent)
          sendError(
            req,
            res,
            new AuthError(
              500,
              'unexpected_failure',
              'Unexpected failure, please check server logs for more information',
            ),
            requestId,
          );
      }
    },
  };
}
