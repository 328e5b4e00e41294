// /factors: multi-factor authentication (GoTrue mfa.go). TOTP is served when [auth.mfa.totp] turns it on
// (RFC 6238 with otpauth, as pquerna/otp: SHA-1, 6 digits, 30 s, one step of skew); phone and WebAuthn
// factors need a provider or a browser ceremony and answer as switched off.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Secret, TOTP } from 'otpauth';
import { tx, type AuthContext, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { requireUser, type Caller } from './guard.ts';
import { hookEnabled, runHook } from './hooks.ts';
import { clientIp, isUuid, readJson, str } from './http.ts';
import { newRefreshToken, tokenResponse } from './sessions.ts';
import { findById } from './users.ts';

const CHALLENGE_EXPIRY_S = 300; // conf: MFA challenge_expiry_duration default (and minimum)
const FACTOR_EXPIRY_S = 300; // conf: unverified factors older than this are dropped
const MAX_VERIFIED_FACTORS = 10;

interface FactorRow {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: string;
  status: string;
  secret: string | null;
}

/** auth.go requireAuthentication + requireNotAnonymous, as the /factors routes have them. */
async function caller(ctx: AuthContext, req: IncomingMessage): Promise<Caller> {
  const c = await requireUser(ctx, req);
  if (c.claims.is_anonymous)
    throw new AuthError(403, 'no_authorization', 'Anonymous user not allowed to perform these actions');
  return c;
}

/** admin.go loadFactor: the caller's own factor. */
async function loadFactor(ctx: AuthContext, userId: string, id: string): Promise<FactorRow> {
  if (!isUuid(id)) throw new AuthError(404, 'validation_failed', 'factor_id must be an UUID');
  const f = (await ctx.pool.query('select * from auth.mfa_factors where id = $1 and user_id = $2', [id, userId]))
    .rows[0];
  if (!f) throw new AuthError(404, 'mfa_factor_not_found', 'Factor not found');
  return f;
}

const disabled = (code: string, message: string) => new AuthError(422, code, message);

/** mfa.go ChallengeFactor / VerifyFactor: each type's verify switch. */
function requireVerify(ctx: AuthContext, type: string, verifying: boolean) {
  if (type === 'totp' && !ctx.config.mfa.totp.verify)
    throw disabled('mfa_totp_verify_not_enabled', 'MFA verification is disabled for TOTP');
  if (type === 'phone') throw disabled('mfa_phone_verify_not_enabled', 'MFA verification is disabled for Phone');
  // mfa.go: WebAuthn verify answers with the enroll code (an upstream quirk).
  if (type === 'webauthn')
    throw disabled(
      verifying ? 'mfa_webauthn_enroll_not_enabled' : 'mfa_webauthn_verify_not_enabled',
      'MFA verification is disabled for WebAuthn',
    );
}

/** POST /factors */
export const enroll: Handler = async (ctx, req, res) => {
  const { user, session, sessionId } = await caller(ctx, req);
  const body = await readJson(req);
  const type = str(body.factor_type);
  if (type === 'phone') throw disabled('mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone');
  if (type === 'webauthn') throw disabled('mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn');
  if (type !== 'totp') throw errors.validation('factor_type needs to be totp, phone, or webauthn');
  if (!ctx.config.mfa.totp.enroll) throw disabled('mfa_totp_enroll_not_enabled', 'MFA enroll is disabled for TOTP');
  const friendlyName = str(body.friendly_name) ?? '';
  const issuer = str(body.issuer) || new URL(ctx.config.siteUrl).host;

  // mfa.go validateFactors
  await ctx.pool.query(
    `delete from auth.mfa_factors where user_id = $1 and status = 'unverified' and created_at < now() - make_interval(secs => $2)`,
    [user.id, FACTOR_EXPIRY_S],
  );
  const factors = (
    await ctx.pool.query('select friendly_name, status from auth.mfa_factors where user_id = $1', [user.id])
  ).rows;
  if (friendlyName && factors.some((f) => f.friendly_name === friendlyName))
    throw new AuthError(
      422,
      'mfa_factor_name_conflict',
      `A factor with the friendly name "${friendlyName}" for this user already exists`,
    );
  const verified = factors.filter((f) => f.status === 'verified').length;
  if (factors.length >= ctx.config.mfa.maxEnrolledFactors || verified >= MAX_VERIFIED_FACTORS)
    throw new AuthError(
      422,
      'too_many_enrolled_mfa_factors',
      'Maximum number of verified factors reached, unenroll to continue',
    );
  if (verified > 0 && sessionId && session.aal !== 'aal2')
    throw new AuthError(403, 'insufficient_aal', 'AAL2 required to enroll a new factor');

  const secret = new Secret({ size: 20 }).base32;
  const account = user.email ?? '';
  // pquerna/otp Key.URL: issuer:account in the path, the parameters sorted.
  const uri = `otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(account).replace(/%40/g, '@')}?${new URLSearchParams({ algorithm: 'SHA1', digits: '6', issuer, period: '30', secret })}`;
  const id = randomUUID();
  await ctx.pool.query(
    `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
     values ($1, $2, $3, 'totp', 'unverified', now(), now(), $4)`,
    [id, user.id, friendlyName, secret],
  );
  sendJson(res, 200, {
    id,
    type: 'totp',
    friendly_name: friendlyName,
    // qrcode loads with the first enrolment, not at every start.
    totp: {
      qr_code: await (await import('qrcode')).default.toString(uri, { type: 'svg', errorCorrectionLevel: 'H' }),
      secret,
      uri,
    },
  });
};

/** POST /factors/{id}/challenge */
export const challenge =
  (factorId: string): Handler =>
  async (ctx, req, res) => {
    const { user } = await caller(ctx, req);
    const factor = await loadFactor(ctx, user.id, factorId);
    requireVerify(ctx, factor.factor_type, false);
    const id = randomUUID();
    const row = (
      await ctx.pool.query(
        `with f as (update auth.mfa_factors set last_challenged_at = now() where id = $2)
         insert into auth.mfa_challenges (id, factor_id, created_at, ip_address) values ($1, $2, now(), $3) returning created_at`,
        [id, factor.id, clientIp(req) ?? '127.0.0.1'],
      )
    ).rows[0];
    sendJson(res, 200, {
      id,
      type: factor.factor_type,
      expires_at: Math.floor(new Date(row.created_at).getTime() / 1000) + CHALLENGE_EXPIRY_S,
    });
  };

/** POST /factors/{id}/verify: a right code raises the session to aal2 and answers with new tokens. */
export const verify =
  (factorId: string): Handler =>
  async (ctx, req, res) => {
    const { user, sessionId } = await caller(ctx, req);
    const factor = await loadFactor(ctx, user.id, factorId);
    const body = await readJson(req);
    const code = str(body.code) ?? '';
    if (!code) throw errors.validation('Code needs to be non-empty');
    requireVerify(ctx, factor.factor_type, true);
    // mfa.go validateChallenge
    const challengeId = str(body.challenge_id) ?? '';
    const ch = isUuid(challengeId)
      ? (
          await ctx.pool.query('select * from auth.mfa_challenges where id = $1 and factor_id = $2', [
            challengeId,
            factor.id,
          ])
        ).rows[0]
      : undefined;
    if (!ch) throw new AuthError(422, 'mfa_factor_not_found', 'MFA factor with the provided challenge ID not found');
    if (ch.verified_at || ch.ip_address !== (clientIp(req) ?? '127.0.0.1'))
      throw new AuthError(422, 'mfa_ip_address_mismatch', 'Challenge and verify IP addresses mismatch.');
    if (Date.now() - new Date(ch.created_at).getTime() > CHALLENGE_EXPIRY_S * 1000) {
      await ctx.pool.query('delete from auth.mfa_challenges where id = $1', [ch.id]);
      throw new AuthError(
        422,
        'mfa_challenge_expired',
        `MFA challenge ${ch.id} has expired, verify against another challenge or create a new challenge.`,
      );
    }
    const valid =
      new TOTP({ secret: Secret.fromBase32(factor.secret ?? ''), digits: 6, period: 30, algorithm: 'SHA1' }).validate({
        token: code,
        window: 1,
      }) !== null;
    if (hookEnabled(ctx, 'mfa_verification_attempt')) {
      const out = await runHook(ctx, 'mfa_verification_attempt', req, {
        user_id: user.id,
        factor_id: factor.id,
        factor_type: factor.factor_type,
        valid,
      });
      if (out?.decision === 'reject') {
        await ctx.pool.query('delete from auth.sessions where user_id = $1', [user.id]);
        throw new AuthError(
          403,
          'mfa_verification_rejected',
          typeof out.message === 'string' && out.message
            ? out.message
            : 'Further MFA verification attempts will be rejected.',
        );
      }
    }
    if (!valid) throw new AuthError(422, 'mfa_verification_failed', 'Invalid TOTP code entered');
    const session = await tx(ctx.pool, async (c) => {
      await c.query(
        `with ch as (update auth.mfa_challenges set verified_at = now() where id = $1),
              f as (update auth.mfa_factors set status = 'verified', updated_at = now() where id = $2),
              amr as (insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
                      values ($4, $3, now(), now(), 'totp')
                      on conflict (session_id, authentication_method) do update set updated_at = now())
         update auth.sessions set aal = 'aal2', factor_id = $2, updated_at = now() where id = $3`,
        [ch.id, factor.id, sessionId, randomUUID()],
      );
      // token.go updateMFASessionAndClaims: the session's refresh token swapped for a new one.
      const current = (
        await c.query(
          'select token from auth.refresh_tokens where session_id = $1 and revoked = false order by id desc limit 1 for update',
          [sessionId],
        )
      ).rows[0];
      const refreshToken = newRefreshToken();
      await c.query(
        `with revoked as (update auth.refresh_tokens set revoked = true, updated_at = now() where session_id = $3 and revoked = false)
         insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
         values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $4, $3)`,
        [refreshToken, user.id, sessionId, current?.token ?? null],
      );
      // mfa.go: the user's aal1 sessions end, and their other unverified TOTP factors go.
      await c.query("delete from auth.sessions where user_id = $1 and aal < 'aal2'", [user.id]);
      await c.query(
        "delete from auth.mfa_factors where user_id = $1 and status = 'unverified' and factor_type = 'totp'",
        [user.id],
      );
      return tokenResponse(c, ctx, req, (await findById(c, user.id))!, sessionId!, refreshToken, 'totp');
    });
    sendJson(res, 200, session);
  };

/** DELETE /factors/{id} */
export const unenroll =
  (factorId: string): Handler =>
  async (ctx, req, res) => {
    const { user, session } = await caller(ctx, req);
    const factor = await loadFactor(ctx, user.id, factorId);
    if (factor.status === 'verified' && session.aal !== 'aal2')
      throw new AuthError(422, 'insufficient_aal', 'AAL2 required to unenroll verified factor');
    // models/factor.go DowngradeSessionsToAAL1: sessions that used it lose its amr claim and drop to aal1.
    await tx(ctx.pool, async (c) => {
      await c.query(
        `delete from auth.mfa_amr_claims where authentication_method = $2 and session_id in (select id from auth.sessions where factor_id = $1)`,
        [factor.id, factor.factor_type],
      );
      await c.query("update auth.sessions set aal = 'aal1', factor_id = null where factor_id = $1", [factor.id]);
      await c.query('delete from auth.mfa_factors where id = $1', [factor.id]);
    });
    sendJson(res, 200, { id: factor.id });
  };
