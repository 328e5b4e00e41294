// Sessions, refresh tokens and the token response (docs/reference/auth.md §1.7, §1.10, §2).
import { randomInt, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { requestMeta, type AuthContext } from './context.ts';
import { AuthError } from './errors.ts';
import { hookClaims, hookEnabled, runHook } from './hooks.ts';
import { findById, isBanned, userJson, type UserRow } from './users.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** GoTrue's legacy refresh token: 12 random lowercase base32-ish chars (crypto.SecureAlphanumeric). */
export const newRefreshToken = () => Array.from({ length: 12 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

// models/amr.go IsAAL2Claim: a second factor in the session makes it aal2.
const AAL2_METHODS = new Set(['totp', 'mfa/phone', 'mfa/webauthn']);

/**
 * The token response every sign-in and refresh returns (tokens/service.go IssueRefreshToken /
 * GenerateAccessToken), with the custom_access_token hook run inside the issuing transaction.
 */
export async function tokenResponse(
  db: pg.PoolClient,
  ctx: AuthContext,
  req: IncomingMessage,
  user: UserRow,
  sessionId: string,
  refreshToken: string,
  method: string,
) {
  const now = Math.floor(Date.now() / 1000);
  // The session's amr claims (newest first, models/sessions.go CalculateAALAndAMR) and the user's identities, in one round trip.
  const { amr, identities } = (
    await db.query(
      `select
         coalesce((select json_agg(json_build_object('method', authentication_method, 'timestamp', floor(extract(epoch from updated_at))::bigint)
                                   order by updated_at desc) from auth.mfa_amr_claims where session_id = $1), '[]') as amr,
         coalesce((select json_agg(i order by i.created_at) from auth.identities i where i.user_id = $2), '[]') as identities`,
      [sessionId, user.id],
    )
  ).rows[0];
  const expiresIn = ctx.config.jwtExpiry;
  let claims: Record<string, unknown> = {
    iss: ctx.issuer,
    sub: user.id,
    aud: user.aud ?? 'authenticated',
    exp: now + expiresIn,
    iat: now,
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    role: user.role ?? 'authenticated',
    aal: amr.some((a: { method: string }) => AAL2_METHODS.has(a.method)) ? 'aal2' : 'aal1',
    amr,
    session_id: sessionId,
    is_anonymous: user.is_anonymous ?? false,
  };
  if (hookEnabled(ctx, 'custom_access_token')) {
    const output = await runHook(
      ctx,
      'custom_access_token',
      req,
      { user_id: user.id, claims, authentication_method: method },
      db,
    );
    claims = hookClaims(output);
  }
  const accessToken = await ctx.signer.sign(claims);
  return {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: expiresIn,
    expires_at: now + expiresIn,
    refresh_token: refreshToken,
    user: await userJson(db, user, identities),
  };
}

/** A new session for a sign-in by `method` (otp, password, magiclink, email/signup, anonymous…). */
export async function signIn(db: pg.PoolClient, ctx: AuthContext, req: IncomingMessage, user: UserRow, method: string) {
  const sessionId = randomUUID();
  const refreshToken = newRefreshToken();
  const meta = requestMeta(req);
  // GoTrue IssueRefreshToken: session, amr claim, first refresh token and last_sign_in_at — one statement.
  const updated = (
    await db.query(
      `with session as (
         insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at, user_agent, ip)
         values ($1, $2, now(), now(), 'aal1', now(), $3, $4)),
       amr as (
         insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method) values ($5, $1, now(), now(), $6)),
       token as (
         insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
         values ('00000000-0000-0000-0000-000000000000', $7, $2, false, now(), now(), null, $1)),
       identity as (
         update auth.identities set last_sign_in_at = now() where user_id = $2)
       update auth.users set last_sign_in_at = now(), updated_at = now() where id = $2 returning *`,
      [sessionId, user.id, meta.userAgent ?? null, meta.ip ?? null, randomUUID(), method, refreshToken],
    )
  ).rows[0] as UserRow;
  return tokenResponse(db, ctx, req, updated, sessionId, refreshToken, method);
}

const refreshError = (code: string, message: string) => new AuthError(400, code, `Invalid Refresh Token: ${message}`);

/** grant_type=refresh_token with GoTrue's legacy rotation rules (token_refresh.go). Runs in `client`'s transaction. */
export async function refresh(client: pg.PoolClient, ctx: AuthContext, req: IncomingMessage, token: string) {
  // The token and its session, both locked: concurrent refreshes of one session queue up here.
  const row = (
    await client.query(
      `select rt.id, rt.token, rt.user_id, rt.revoked, rt.updated_at, rt.session_id, s.not_after
       from auth.refresh_tokens rt join auth.sessions s on s.id = rt.session_id where rt.token = $1 for update of rt, s`,
      [token],
    )
  ).rows[0];
  if (!row) {
    const orphan = (await client.query('select 1 from auth.refresh_tokens where token = $1', [token])).rowCount;
    throw orphan
      ? refreshError('session_not_found', 'No Valid Session Found')
      : refreshError('refresh_token_not_found', 'Refresh Token Not Found');
  }
  if (row.not_after && new Date(row.not_after) < new Date())
    throw new AuthError(400, 'session_expired', 'Invalid Refresh Token: Session Expired');
  const user = await findById(client, row.user_id);
  if (!user) throw refreshError('refresh_token_not_found', 'Refresh Token Not Found');
  if (isBanned(user)) throw new AuthError(400, 'user_banned', 'Invalid Refresh Token: User Banned');

  let issued: string;
  if (!row.revoked) {
    // GoTrue GrantRefreshTokenSwap: revoke the token and issue its child in the same session.
    issued = await rotate(client, user, row.session_id, row.token, row.id);
  } else {
    const active = (
      await client.query(
        'select token, parent from auth.refresh_tokens where session_id = $1 and revoked = false order by id desc limit 1',
        [row.session_id],
      )
    ).rows[0];
    const withinReuse = Date.now() - new Date(row.updated_at).getTime() < ctx.config.refreshTokenReuseInterval * 1000;
    if (active && active.parent === row.token) {
      // GoTrue: the parent of the active token means the client lost the last response; hand back the active token.
      await client.query('update auth.sessions set refreshed_at = now(), updated_at = now() where id = $1', [
        row.session_id,
      ]);
      issued = active.token;
    } else if (withinReuse) {
      // GoTrue: other revoked tokens are tolerated within refresh_token_reuse_interval and get a fresh child.
      issued = await rotate(client, user, row.session_id, row.token, null);
    } else {
      // GoTrue: reuse detection — with rotation on, revoke the session's whole token family, and commit that.
      if (ctx.config.enableRefreshTokenRotation) {
        await client.query(
          'update auth.refresh_tokens set revoked = true, updated_at = now() where session_id = $1 and revoked = false',
          [row.session_id],
        );
        await client.query('commit');
        await client.query('begin');
      }
      throw refreshError('refresh_token_already_used', 'Already Used');
    }
  }
  return tokenResponse(client, ctx, req, user, row.session_id, issued, 'token_refresh');
}

/** Revokes `revokeId` (if any), issues a child of `parent` and stamps the session's refreshed_at — one statement. */
async function rotate(
  client: pg.PoolClient,
  user: UserRow,
  sessionId: string,
  parent: string,
  revokeId: string | null,
): Promise<string> {
  const token = newRefreshToken();
  await client.query(
    `with revoked as (update auth.refresh_tokens set revoked = true, updated_at = now() where id = $5),
          touched as (update auth.sessions set refreshed_at = now(), updated_at = now() where id = $4)
     insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
     values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $3, $4)`,
    [token, user.id, parent, sessionId, revokeId],
  );
  return token;
}
