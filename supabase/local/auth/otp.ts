// POST /otp — email one-time code and magic link (GoTrue otp.go, magic_link.go; docs/reference/auth.md §1.4).
import { createHash, randomInt, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { tx, type AuthContext, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { normalizeEmail, obj, readJson, str } from './http.ts';
import { sendAuthMail } from './mail.ts';
import { allowedRedirect } from './redirect.ts';
import { createUser, findByEmail, isBanned, type UserRow } from './users.ts';

/** GoTrue crypto.GenerateTokenHash: hex SHA-224 of email + code. */
export const tokenHash = (email: string, otp: string) =>
  createHash('sha224')
    .update(email + otp)
    .digest('hex');

export const generateOtp = (length: number) => String(randomInt(10 ** length)).padStart(length, '0');

// GoTrue pkce.go: RFC 7636 §4.2 challenge, 43–128 chars of [A-Za-z0-9._~-]; method s256 or plain.
function validatePkce(challenge: string | undefined, method: string | undefined) {
  if (!challenge !== !method) throw errors.validation('PKCE flow requires code_challenge_method and code_challenge');
  if (!challenge) return;
  if (challenge.length < 43 || challenge.length > 128)
    throw errors.validation('code challenge has to be between 43 and 128 characters');
  if (!/^[A-Za-z0-9._~-]+$/.test(challenge)) {
    throw errors.validation(
      'code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes',
    );
  }
  if (method !== 's256' && method !== 'plain')
    throw errors.validation(`code challenge method not supported: ${method}`);
}

export interface OneTimeToken {
  otp: string;
  hash: string;
  type: 'magiclink' | 'signup';
}

/**
 * Stores a fresh code for the user (hash only), replacing the previous one: recovery_token for a
 * magic link, confirmation_token for a signup confirmation, plus the auth.one_time_tokens row.
 */
export async function issueToken(
  c: pg.PoolClient,
  ctx: AuthContext,
  user: UserRow,
  type: 'magiclink' | 'signup',
  pkce: boolean,
): Promise<OneTimeToken> {
  const email = user.email!;
  const otp = generateOtp(otpLength(ctx.config.email.otpLength));
  const hash = (pkce ? 'pkce_' : '') + tokenHash(email, otp);
  const [column, sentAt, tokenType] =
    type === 'magiclink'
      ? ['recovery_token', 'recovery_sent_at', 'recovery_token']
      : ['confirmation_token', 'confirmation_sent_at', 'confirmation_token'];
  // One row per user and token type (GoTrue models/one_time_token.go): the new code replaces the old one.
  await c.query(
    `with ott as (
       insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at)
       values ($3, $1, $4, $2, $5, now(), now())
       on conflict (user_id, token_type) do update
         set id = excluded.id, token_hash = excluded.token_hash, relates_to = excluded.relates_to, created_at = now(), updated_at = now())
     update auth.users set ${column} = $2, ${sentAt} = now(), updated_at = now() where id = $1`,
    [user.id, hash, randomUUID(), tokenType, email],
  );
  return { otp, hash, type };
}

/** GoTrue conf: MAILER_OTP_LENGTH outside 6..10 falls back to 6. */
const otpLength = (n: number) => (Number.isInteger(n) && n >= 6 && n <= 10 ? n : 6);

/**
 * GoTrue mail.go: SMTP_MAX_FREQUENCY per address, counted from the *_sent_at of the code being
 * replaced; the message carries the whole seconds left (Go's Duration / time.Second truncates).
 */
function checkFrequency(sentAt: Date | null, maxFrequency: number) {
  if (!sentAt) return;
  const until = new Date(sentAt).getTime() + maxFrequency * 1000;
  const left = until - Date.now();
  if (left < 0) return;
  throw new AuthError(
    429,
    'over_email_send_rate_limit',
    `For security purposes, you can only request this after ${Math.floor(left / 1000)} seconds.`,
  );
}

/** GoTrue RATE_LIMIT_EMAIL_SENT: emails per hour for the instance, skipped under autoconfirm. */
function checkEmailLimit(ctx: AuthContext) {
  const sent = ctx.emailsSent;
  const hourAgo = Date.now() - 3_600_000;
  while (sent.length && sent[0] < hourAgo) sent.shift();
  if (sent.length >= ctx.config.rateLimit.emailSent)
    throw new AuthError(429, 'over_email_send_rate_limit', 'email rate limit exceeded');
  sent.push(Date.now());
}

export const otp: Handler = async (ctx, req, res, url) => {
  const body = await readJson(req);
  if (body.phone) throw new AuthError(422, 'phone_provider_disabled', 'Unsupported phone provider');
  const challenge = str(body.code_challenge) || undefined;
  const method = str(body.code_challenge_method)?.toLowerCase() || undefined;
  validatePkce(challenge, method);
  if (body.email === undefined || body.email === null || body.email === '')
    throw errors.validation('An email address is required'); // GoTrue validateEmail
  const email = normalizeEmail(body.email);
  if (!email) throw errors.validation('Unable to validate email address: invalid format');
  const createIfMissing = body.create_user !== false;
  const data = obj(body.data) ?? {};
  const redirectTo = allowedRedirect(ctx.config, url.searchParams.get('redirect_to') ?? undefined);
  const confirmations = ctx.config.email.enableConfirmations;

  await tx(ctx.pool, async (c) => {
    // Serialise requests for one address so two concurrent ones can't both pass the frequency check.
    await c.query('select pg_advisory_xact_lock(hashtext($1))', [email]);
    let user = await findByEmail(c, email);
    if (!user) {
      // GoTrue otp.go: create_user=false and no such user.
      if (!createIfMissing) throw new AuthError(422, 'otp_disabled', 'Signups not allowed for otp');
      if (!ctx.config.enableSignup || !ctx.config.email.enableSignup)
        throw new AuthError(422, 'signup_disabled', 'Signups not allowed for this instance');
      // GoTrue signup.go: under autoconfirm the new user is confirmed at once and gets the magic link.
      user = await createUser(c, { email, userMetadata: data, confirmed: !confirmations });
    }
    if (isBanned(user)) throw new AuthError(403, 'user_banned', 'User is banned');
    const type = user.email_confirmed_at ? 'magiclink' : 'signup';
    checkFrequency(
      type === 'magiclink' ? user.recovery_sent_at : user.confirmation_sent_at,
      ctx.config.email.maxFrequency,
    );
    if (confirmations) checkEmailLimit(ctx);
    const token = await issueToken(c, ctx, user, type, !!challenge);
    if (challenge) {
      // GoTrue otp.go / signup.go: the PKCE flow state the link's auth code will come from.
      await c.query(
        `insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, authentication_method, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, now(), now())`,
        [
          randomUUID(),
          user.id,
          randomUUID(),
          method,
          challenge,
          type === 'magiclink' ? 'magiclink' : 'email',
          type === 'magiclink' ? 'magiclink' : 'email/signup',
        ],
      );
    }
    // GoTrue sends inside the transaction: a mail that can't be sent leaves no code behind.
    await sendAuthMail(ctx.mailer, ctx.config, ctx.apiUrl, {
      template: type === 'magiclink' ? 'magic_link' : 'confirmation',
      email,
      token: token.otp,
      tokenHash: token.hash,
      type,
      redirectTo,
      data: (user.raw_user_meta_data as Record<string, unknown>) ?? {},
    });
  });
  sendJson(res, 200, {});
};
