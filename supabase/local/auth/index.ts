// The local Auth service at /auth/v1: GoTrue's endpoints (docs/reference/auth.md, supabase-fidelity.md §1–3).
import { randomUUID } from 'node:crypto';
import { createPool, isConnectionLost } from '../connections.ts';
import type { Service, StackContext } from '../service.ts';
import {
  createUserAdmin,
  deleteUserAdmin,
  generateLink,
  getUserAdmin,
  invite,
  listUsers,
  updateUserAdmin,
} from './admin.ts';
import type { AuthContext, Handler } from './context.ts';
import { AuthError, errors, sendError } from './errors.ts';
import {
  authorize,
  callback,
  customProvidersDisabled,
  linkIdentity,
  oauthServerDisabled,
  passkeysDisabled,
  samlDisabled,
  unlinkIdentity,
} from './features.ts';
import { resolveClientIp } from './http.ts';
import { signer } from './jwt.ts';
import { logout } from './logout.ts';
import { challenge, enroll, unenroll, verify as verifyFactor } from './mfa.ts';
import { otp } from './otp.ts';
import { recover } from './recover.ts';
import { resend } from './resend.ts';
import { health, jwks, settings } from './settings.ts';
import { signupRoute } from './signup.ts';
import { token } from './token.ts';
import { getUser, putUser, reauthenticate } from './user.ts';
import { verifyGet, verifyPost } from './verify.ts';

/** GoTrue's per-IP limiters (apilimiter.go), each endpoint its own bucket. */
type Bucket = 'otp' | 'verify' | 'token' | 'anonymous' | 'factor';

interface Route {
  handler: Handler;
  bucket?: Bucket;
  /** Routes that pick their bucket after reading the body (/signup: anonymous or not). */
  limited?: (limit: (bucket: Bucket) => void) => Handler;
}

function route(method: string, path: string): Route | undefined {
  const key = `${method} ${path}`;
  switch (key) {
    case 'POST /otp':
    case 'POST /magiclink':
      return { handler: otp, bucket: 'otp' };
    case 'POST /recover':
      return { handler: recover, bucket: 'otp' };
    case 'POST /resend':
      return { handler: resend, bucket: 'otp' };
    case 'POST /signup':
      return { handler: signupRoute(() => undefined), limited: signupRoute };
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
    case 'GET /reauthenticate':
      return { handler: reauthenticate };
    case 'POST /logout':
      return { handler: logout };
    case 'POST /invite':
      return { handler: invite };
    case 'GET /settings':
      return { handler: settings };
    case 'GET /health':
      return { handler: health };
    case 'GET /.well-known/jwks.json':
      return { handler: jwks };
    case 'GET /authorize':
      return { handler: authorize };
    case 'GET /callback':
    case 'POST /callback':
      return { handler: callback };
    case 'GET /user/identities/authorize':
      return { handler: linkIdentity };
    case 'POST /factors':
      return { handler: enroll };
    case 'GET /.well-known/oauth-authorization-server':
      return { handler: oauthServerDisabled };
    case 'POST /admin/users':
      return { handler: createUserAdmin };
    case 'GET /admin/users':
      return { handler: listUsers };
    case 'POST /admin/generate_link':
      return { handler: generateLink };
  }
  if (/^\/sso(\/|$)|^\/admin\/sso(\/|$)/.test(path)) return { handler: samlDisabled };
  if (/^\/passkeys(\/|$)/.test(path)) return { handler: passkeysDisabled };
  if (/^\/oauth\/|^\/admin\/oauth(\/|$)|^\/user\/oauth\/grants$/.test(path)) return { handler: oauthServerDisabled };
  if (/^\/admin\/custom-providers(\/|$)/.test(path)) return { handler: customProvidersDisabled };
  let m = /^\/user\/identities\/([^/]+)$/.exec(path);
  if (m && method === 'DELETE') return { handler: unlinkIdentity(m[1]) };
  m = /^\/factors\/([^/]+)(\/challenge|\/verify)?$/.exec(path);
  if (m) {
    if (method === 'POST' && m[2] === '/challenge') return { handler: challenge(m[1]), bucket: 'factor' };
    if (method === 'POST' && m[2] === '/verify') return { handler: verifyFactor(m[1]), bucket: 'factor' };
    if (method === 'DELETE' && !m[2]) return { handler: unenroll(m[1]) };
  }
  m = /^\/admin\/users\/([^/]+)$/.exec(path);
  if (m) {
    if (method === 'GET') return { handler: getUserAdmin(m[1]) };
    if (method === 'PUT') return { handler: updateUserAdmin(m[1]) };
    if (method === 'DELETE') return { handler: deleteUserAdmin(m[1]) };
  }
  return undefined;
}

/**
 * GoTrue's per-IP limits (apilimiter.go): a token bucket per endpoint and address, `rate` a second
 * with a burst. The address is the one the gateway decided from the socket (or Sb-Forwarded-For on a
 * secret-key request), so a client can't pick its own bucket.
 */
function limiter(limits: Record<Bucket, { perSecond: number; burst: number }>) {
  const buckets = new Map<string, { tokens: number; at: number; rate: number; burst: number }>();
  const refill = (b: { tokens: number; at: number; rate: number; burst: number }, now: number) =>
    Math.min(b.burst, b.tokens + (now - b.at) * b.rate);
  return (bucket: Bucket, endpoint: string, ip: string | undefined) => {
    if (!ip) return;
    const key = `${endpoint}:${ip}`;
    const now = Date.now();
    // tollbooth forgets an address after an hour; here, whichever buckets are full again once there are many.
    if (buckets.size > 10_000) for (const [k, b] of buckets) if (refill(b, now) >= b.burst) buckets.delete(k);
    const { perSecond, burst } = limits[bucket];
    const b = buckets.get(key) ?? { tokens: burst, at: now, rate: perSecond / 1000, burst }; // tokens per ms
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
    issuer: config.jwtIssuer ?? `${stack.apiUrl}/auth/v1`,
    signer: signer(stack.keys.jwtSecret, stack.signingKeys),
    emailsSent: [],
    smsSent: [],
    log: (m) => stack.log('auth', m),
  };
  const per5m = (n: number) => ({ perSecond: n / 300, burst: 30 });
  const limit = limiter({
    otp: per5m(config.rateLimit.signInSignUps),
    verify: per5m(config.rateLimit.tokenVerifications),
    token: per5m(config.rateLimit.tokenRefresh),
    anonymous: { perSecond: config.rateLimit.anonymousUsers / 3600, burst: config.rateLimit.anonymousUsers },
    factor: { perSecond: 15 / 60, burst: 30 }, // GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY default 15 a minute
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
        const handler = r.limited ? r.limited((bucket) => limit(bucket, `${endpoint}:${bucket}`, ip)) : r.handler;
        await handler(ctx, req, res, url);
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
