// POST /verify (code or token_hash) and GET /verify (the email link) — GoTrue verify.go, docs/reference/auth.md §1.5.
import type pg from 'pg';
import { requestMeta, tx, type AuthContext, type Handler } from './context.ts';
import { AuthError, errors, oauthError, sendJson } from './errors.ts';
import { normalizeEmail, readJson, str } from './http.ts';
import { tokenHash } from './otp.ts';
import { allowedRedirect } from './redirect.ts';
import { signIn } from './sessions.ts';
import { findByEmail, findById, isBanned, type UserRow } from './users.ts';

const TYPES = new Set(['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email']);

const within = (sentAt: Date | null, seconds: number) =>
  !!sentAt && Date.now() - new Date(sentAt).getTime() <= seconds * 1000;

interface Match {
  user: UserRow;
  /** The verification that matched: signup (confirmation_token) or magiclink (recovery_token). */
  kind: 'signup' | 'magiclink';
  pkce: boolean;
}

// GoTrue verify.go: which stored code each verification type may match (email tries both).
function tokenTypes(type: string): ('confirmation_token' | 'recovery_token')[] {
  if (type === 'email') return ['confirmation_token', 'recovery_token'];
  if (type === 'magiclink' || type === 'recovery') return ['recovery_token'];
  if (type === 'signup' || type === 'invite') return ['confirmation_token'];
  return []; // email_change: no email changes are issued by this stand-in
}

/** Email + code: the stored hash (or its pkce_ form) must match and be fresh. */
async function matchCode(
  c: pg.PoolClient,
  ctx: AuthContext,
  email: string,
  token: string,
  type: string,
): Promise<Match> {
  const user = await findByEmail(c, email, true);
  if (!user) throw errors.otpExpired();
  const hash = tokenHash(email, token);
  const expiry = ctx.config.email.otpExpiry;
  for (const t of tokenTypes(type)) {
    const [stored, sentAt] =
      t === 'confirmation_token'
        ? [user.confirmation_token, user.confirmation_sent_at]
        : [user.recovery_token, user.recovery_sent_at];
    if (stored && (stored === hash || stored === `pkce_${hash}`) && within(sentAt, expiry)) {
      return { user, kind: t === 'confirmation_token' ? 'signup' : 'magiclink', pkce: stored.startsWith('pkce_') };
    }
  }
  throw errors.otpExpired();
}

/** token_hash: looked up in auth.one_time_tokens, then checked for freshness against the user's *_sent_at. */
async function matchHash(c: pg.PoolClient, ctx: AuthContext, hash: string, type: string): Promise<Match> {
  const row = (
    await c.query(
      'select user_id, token_type from auth.one_time_tokens where token_hash = $1 and token_type = any($2::auth.one_time_token_type[])',
      [hash, tokenTypes(type)],
    )
  ).rows[0];
  if (!row) throw errors.otpExpired(true);
  const user = await findById(c, row.user_id, true);
  if (!user) throw errors.otpExpired(true);
  // The row may have been consumed while this request waited for the user's lock.
  if (!(await c.query('select 1 from auth.one_time_tokens where token_hash = $1', [hash])).rowCount)
    throw errors.otpExpired(true);
  const confirmation = row.token_type === 'confirmation_token';
  if (!within(confirmation ? user.confirmation_sent_at : user.recovery_sent_at, ctx.config.email.otpExpiry))
    throw errors.otpExpired(true);
  return { user, kind: confirmation ? 'signup' : 'magiclink', pkce: hash.startsWith('pkce_') };
}

/** Single use: the user's codes are cleared and every one-time token deleted (GoTrue verify.go). */
async function consume(c: pg.PoolClient, m: Match): Promise<UserRow> {
  if (isBanned(m.user)) throw new AuthError(403, 'user_banned', 'User is banned');
  // GoTrue signupVerify / recoverVerify: codes cleared, an unconfirmed user confirmed (email_verified in
  // user_metadata and the email identity), every one-time token of the user deleted.
  const confirming = !m.user.email_confirmed_at;
  return (
    await c.query(
      `with ott as (delete from auth.one_time_tokens where user_id = $1),
            identity as (
              update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb, updated_at = now()
              where $2 and user_id = $1 and provider = 'email')
       update auth.users set recovery_token = '', confirmation_token = '', updated_at = now(),
         email_confirmed_at = coalesce(email_confirmed_at, now()),
         raw_user_meta_data = case when $2 then coalesce(raw_user_meta_data, '{}'::jsonb) || '{"email_verified": true}'::jsonb else raw_user_meta_data end
       where id = $1 returning *`,
      [m.user.id, confirming],
    )
  ).rows[0];
}

export const verifyPost: Handler = async (ctx, req, res) => {
  const body = await readJson(req);
  const type = str(body.type);
  if (!type) throw errors.validation('Verify requires a verification type');
  if (!TYPES.has(type)) throw errors.validation('Unsupported verification type');
  const token = str(body.token);
  const hash = str(body.token_hash);
  if (!!token === !!hash) throw errors.validation('Verify requires either a token or a token hash');
  if (hash && (body.email || body.phone || body.redirect_to))
    throw errors.validation('Only the token_hash and type should be provided');
  const session = await tx(ctx.pool, async (c) => {
    let match: Match;
    if (token) {
      if (!body.email) throw errors.validation('Only an email address or phone number should be provided on verify');
      const email = normalizeEmail(body.email);
      if (!email) throw errors.validation('Invalid email format', 422);
      match = await matchCode(c, ctx, email, token, type);
    } else {
      match = await matchHash(c, ctx, hash!, type);
    }
    const user = await consume(c, match);
    // GoTrue: a code or hash typed/posted signs in with amr "otp".
    return signIn(c, ctx, user, 'otp', requestMeta(req));
  });
  sendJson(res, 200, session);
};

/** GET /verify?token=<hash>&type=&redirect_to= — the link in the email; answers with a 303. */
export const verifyGet: Handler = async (ctx, req, res, url) => {
  const type = url.searchParams.get('type') ?? '';
  const hash = url.searchParams.get('token') ?? '';
  // GoTrue verify.go: parameter errors are plain JSON errors; everything after them is a redirect.
  if (!type) throw errors.validation('Verify requires a verification type');
  if (!hash) throw errors.validation('Verify requires a token or a token hash');
  const redirectTo = allowedRedirect(ctx.config, url.searchParams.get('redirect_to') ?? undefined);
  const pkce = hash.startsWith('pkce_');
  const go = (target: string) => {
    res.writeHead(303, { location: target, 'content-length': '0' });
    res.end();
  };
  try {
    if (!TYPES.has(type) || type === 'email_change') throw errors.validation('Unsupported verification type');
    const target = await tx(ctx.pool, async (c) => {
      const match = await matchHash(c, ctx, hash, type);
      const user = await consume(c, match);
      if (pkce) {
        // GoTrue issueAuthCode: the newest flow state of the user for this method gets its code stamped.
        const method = match.kind === 'magiclink' ? 'magiclink' : 'email/signup';
        const flow = (
          await c.query(
            `update auth.flow_state set auth_code_issued_at = now(), updated_at = now()
             where id = (select id from auth.flow_state where user_id = $1 and authentication_method = $2 order by created_at desc limit 1)
             returning auth_code`,
            [user.id, method],
          )
        ).rows[0];
        if (!flow)
          throw new AuthError(
            400,
            'flow_state_not_found',
            'No associated flow state found. No valid flow state found for user.',
          );
        const u = new URL(redirectTo);
        u.searchParams.set('code', flow.auth_code);
        return u.toString();
      }
      // GoTrue verify.go: implicit link sign-in records amr "otp" and echoes the requested type.
      const s = await signIn(c, ctx, user, 'otp', requestMeta(req));
      const fragment = new URLSearchParams({
        access_token: s.access_token,
        expires_at: String(s.expires_at),
        expires_in: String(s.expires_in),
        refresh_token: s.refresh_token,
        sb: '',
        token_type: 'bearer',
        type,
      });
      return `${redirectTo.split('#')[0]}#${fragment}`;
    });
    go(target);
  } catch (err) {
    if (!(err instanceof AuthError)) throw err;
    // GoTrue prepErrorRedirectURL: the error in the fragment, and in the query too in PKCE mode.
    const params = new URLSearchParams({
      error: oauthError(err.status),
      error_code: err.code,
      error_description: err.message,
      sb: '',
    });
    const u = new URL(redirectTo);
    if (pkce) for (const [k, v] of params) if (k !== 'sb') u.searchParams.set(k, v);
    go(`${u.toString().split('#')[0]}#${params}`);
  }
};
