// One-time codes and the emails and texts that carry them: GoTrue mail.go (sendConfirmation,
// sendInvite, sendPasswordRecovery, sendMagicLink, sendReauthenticationOtp, sendEmailChange,
// sendEmail) and phone.go (sendPhoneConfirmation). Every function runs in the caller's transaction.
import { createHash, randomInt, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import type { AuthContext } from './context.ts';
import { AuthError, errors } from './errors.ts';
import { hookEnabled, runHook } from './hooks.ts';
import { sendAuthMail, type TemplateName } from './mail.ts';
import { userJson, type UserRow } from './users.ts';

/** GoTrue crypto.GenerateTokenHash: hex SHA-224 of email (or phone) + code. */
export const tokenHash = (address: string, otp: string) =>
  createHash('sha224')
    .update(address + otp)
    .digest('hex');

/** GoTrue conf: MAILER_OTP_LENGTH outside 6..10 falls back to 6. */
const otpLength = (n: number) => (Number.isInteger(n) && n >= 6 && n <= 10 ? n : 6);
export const generateOtp = (length: number) =>
  String(randomInt(10 ** otpLength(length))).padStart(otpLength(length), '0');

export type TokenKind =
  | 'confirmation_token'
  | 'recovery_token'
  | 'reauthentication_token'
  | 'email_change_token_new'
  | 'email_change_token_current'
  | 'phone_change_token';

// The users column holding each kind's *_sent_at; both email change codes share one.
const SENT_AT: Record<TokenKind, string> = {
  confirmation_token: 'confirmation_sent_at',
  recovery_token: 'recovery_sent_at',
  reauthentication_token: 'reauthentication_sent_at',
  email_change_token_new: 'email_change_sent_at',
  email_change_token_current: 'email_change_sent_at',
  phone_change_token: 'phone_change_sent_at',
};

/**
 * The code's hash in its users column (with its *_sent_at) and in auth.one_time_tokens, where a
 * user has one row per kind (models/one_time_token.go CreateOneTimeToken replaces the previous one).
 */
export async function storeToken(
  c: pg.PoolClient,
  userId: string,
  kind: TokenKind,
  hash: string,
  relatesTo: string,
  extra = '',
) {
  await c.query(
    `with ott as (
       insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at)
       values ($3, $1, $4, $2, $5, now(), now())
       on conflict (user_id, token_type) do update
         set id = excluded.id, token_hash = excluded.token_hash, relates_to = excluded.relates_to, created_at = now(), updated_at = now())
     update auth.users set ${kind} = $2, ${SENT_AT[kind]} = now(), updated_at = now()${extra} where id = $1`,
    [userId, hash, randomUUID(), kind, relatesTo],
  );
}

/** mail.go validateSentWithinFrequencyLimit: SMTP_MAX_FREQUENCY per address and kind. */
function checkFrequency(
  sentAt: Date | null,
  seconds: number,
  code: 'over_email_send_rate_limit' | 'over_sms_send_rate_limit',
) {
  if (sentAt && new Date(sentAt).getTime() + seconds * 1000 > Date.now()) throw errors.tooSoon(code, sentAt, seconds);
}

/** An hourly budget for the whole instance (RATE_LIMIT_EMAIL_SENT / RATE_LIMIT_SMS_SENT); 0 refuses every send. */
function spend(sent: number[], perHour: number, error: () => AuthError) {
  const hourAgo = Date.now() - 3_600_000;
  while (sent.length && sent[0] < hourAgo) sent.shift();
  if (sent.length >= perHour) throw error();
  sent.push(Date.now());
}

const TEMPLATES: Record<string, TemplateName> = {
  signup: 'confirmation',
  invite: 'invite',
  magiclink: 'magic_link',
  recovery: 'recovery',
  email_change: 'email_change',
  reauthentication: 'reauthentication',
};

interface Delivery {
  action: 'signup' | 'invite' | 'magiclink' | 'recovery' | 'email_change' | 'reauthentication';
  otp: string;
  hash: string;
  redirectTo: string;
  /** Email change: the new address's code and hash, and the current address's hash (when both confirm). */
  otpNew?: string;
  hashCurrent?: string;
}

/** mail.go sendEmail: the instance's limit (skipped under autoconfirm), then the send_email hook or the mail. */
async function deliver(c: pg.PoolClient, ctx: AuthContext, req: IncomingMessage, user: UserRow, d: Delivery) {
  if (ctx.config.rateLimit.emailSent === 0) throw errors.emailRateLimit();
  if (ctx.config.email.enableConfirmations)
    spend(ctx.emailsSent, ctx.config.rateLimit.emailSent, errors.emailRateLimit);
  const email = user.email ?? '';
  const secure = ctx.config.email.doubleConfirmChanges && !!email;
  if (hookEnabled(ctx, 'send_email')) {
    // mail.go: for an email change the fields keep GoTrue's documented mix-up of token and hash.
    const change = d.action === 'email_change';
    const token = change && !secure && email ? d.otpNew! : d.otp;
    await runHook(
      ctx,
      'send_email',
      req,
      {
        user: await userJson(c, user),
        email_data: {
          token: change && !token ? (d.otpNew ?? '') : token,
          token_hash: d.hash,
          redirect_to: d.redirectTo,
          email_action_type: d.action,
          site_url: ctx.issuer,
          token_new: change && secure ? d.otpNew : '',
          token_hash_new: change && secure ? (d.hashCurrent ?? '') : '',
          old_email: '',
          old_phone: '',
          provider: '',
          factor_type: '',
        },
      },
      c,
    );
    return;
  }
  const mail = {
    template: TEMPLATES[d.action],
    email,
    token: d.otp,
    tokenHash: d.hash,
    type: d.action === 'reauthentication' ? undefined : d.action,
    redirectTo: d.redirectTo,
    data: user.raw_user_meta_data ?? {},
  };
  if (d.action !== 'email_change') return sendAuthMail(ctx.mailer, ctx.config, ctx.apiUrl, { ...mail, to: email });
  // templatemailer.go EmailChangeMail: the new address gets its code, and the current one its own when both confirm.
  const newEmail = user.email_change!;
  await sendAuthMail(ctx.mailer, ctx.config, ctx.apiUrl, {
    ...mail,
    to: newEmail,
    newEmail,
    token: d.otpNew!,
    tokenHash: d.hash,
  });
  if (secure)
    await sendAuthMail(ctx.mailer, ctx.config, ctx.apiUrl, { ...mail, to: email, newEmail, tokenHash: d.hashCurrent! });
}

const pkcePrefix = (pkce: boolean) => (pkce ? 'pkce_' : '');

/** The signup confirmation (confirmation_token); a code sent less than max_frequency ago refuses with 429. */
export async function sendConfirmation(
  c: pg.PoolClient,
  ctx: AuthContext,
  req: IncomingMessage,
  user: UserRow,
  redirectTo: string,
  pkce = false,
) {
  checkFrequency(user.confirmation_sent_at, ctx.config.email.maxFrequency, 'over_email_send_rate_limit');
  const otp = generateOtp(ctx.config.email.otpLength);
  const hash = pkcePrefix(pkce) + tokenHash(user.email!, otp);
  await deliver(c, ctx, req, user, { action: 'signup', otp, hash, redirectTo });
  await storeToken(c, user.id, 'confirmation_token', hash, user.email!);
}

/** An invitation (confirmation_token and invited_at); no frequency limit, as in GoTrue. */
export async function sendInvite(
  c: pg.PoolClient,
  ctx: AuthContext,
  req: IncomingMessage,
  user: UserRow,
  redirectTo: string,
) {
  const otp = generateOtp(ctx.config.email.otpLength);
  const hash = tokenHash(user.email!, otp);
  await deliver(c, ctx, req, user, { action: 'invite', otp, hash, redirectTo });
  await storeToken(c, user.id, 'confirmation_token', hash, user.email!, ', invited_at = now()');
}

/** A password recovery or a magic link: both use recovery_token and its frequency limit. */
export async function sendRecovery(
  c: pg.PoolClient,
  ctx: AuthContext,
  req: IncomingMessage,
  user: UserRow,
  action: 'recovery' | 'magiclink',
  redirectTo: string,
  pkce = false,
) {
  checkFrequency(user.recovery_sent_at, ctx.config.email.maxFrequency, 'over_email_send_rate_limit');
  const otp = generateOtp(ctx.config.email.otpLength);
  const hash = pkcePrefix(pkce) + tokenHash(user.email!, otp);
  await deliver(c, ctx, req, user, { action, otp, hash, redirectTo });
  await storeToken(c, user.id, 'recovery_token', hash, user.email!);
}

/** The reauthentication code behind PUT /user's nonce (reauthentication_token). */
export async function sendReauthentication(c: pg.PoolClient, ctx: AuthContext, req: IncomingMessage, user: UserRow) {
  checkFrequency(user.reauthentication_sent_at, ctx.config.email.maxFrequency, 'over_email_send_rate_limit');
  const otp = generateOtp(ctx.config.email.otpLength);
  const hash = tokenHash(user.email!, otp);
  await deliver(c, ctx, req, user, { action: 'reauthentication', otp, hash, redirectTo: ctx.config.siteUrl });
  await storeToken(c, user.id, 'reauthentication_token', hash, user.email!);
}

/**
 * An email change to `newEmail`: a code for the new address and, with double_confirm_changes and a
 * current address, one for the current address too; email_change_confirm_status counts confirmations.
 */
export async function sendEmailChange(
  c: pg.PoolClient,
  ctx: AuthContext,
  req: IncomingMessage,
  user: UserRow,
  newEmail: string,
  redirectTo: string,
  pkce = false,
) {
  checkFrequency(user.email_change_sent_at, ctx.config.email.maxFrequency, 'over_email_send_rate_limit');
  const otpNew = generateOtp(ctx.config.email.otpLength);
  const hashNew = pkcePrefix(pkce) + tokenHash(newEmail, otpNew);
  const secure = ctx.config.email.doubleConfirmChanges && !!user.email;
  const otpCurrent = secure ? generateOtp(ctx.config.email.otpLength) : '';
  const hashCurrent = secure ? pkcePrefix(pkce) + tokenHash(user.email!, otpCurrent) : '';
  const pending = { ...user, email_change: newEmail };
  await deliver(c, ctx, req, pending, {
    action: 'email_change',
    otp: otpCurrent,
    otpNew,
    hash: hashNew,
    hashCurrent,
    redirectTo,
  });
  await c.query(
    `update auth.users set email_change = $2, email_change_token_current = '', email_change_confirm_status = 0 where id = $1`,
    [user.id, newEmail],
  );
  await c.query(
    `delete from auth.one_time_tokens where user_id = $1 and token_type in ('email_change_token_current', 'email_change_token_new')`,
    [user.id],
  );
  await storeToken(c, user.id, 'email_change_token_new', hashNew, newEmail);
  if (secure) await storeToken(c, user.id, 'email_change_token_current', hashCurrent, user.email!);
}

/**
 * phone.go sendPhoneConfirmation: an SMS code through the send_sms hook (or a [auth.sms.test_otp]
 * code, which sends nothing). With neither, GoTrue has no provider to reach: 500 as upstream.
 */
export async function sendPhoneOtp(
  c: pg.PoolClient,
  ctx: AuthContext,
  req: IncomingMessage,
  user: UserRow,
  phone: string,
  kind: 'confirmation_token' | 'phone_change_token' | 'reauthentication_token',
): Promise<string> {
  const sentAt =
    kind === 'confirmation_token'
      ? user.confirmation_sent_at
      : kind === 'phone_change_token'
        ? user.phone_change_sent_at
        : user.reauthentication_sent_at;
  checkFrequency(sentAt, ctx.config.sms.maxFrequency, 'over_sms_send_rate_limit');
  let otp = ctx.config.sms.testOtp[phone];
  const messageId = otp ? 'test-otp' : '';
  if (!otp) {
    if (ctx.config.sms.enableConfirmations)
      spend(
        ctx.smsSent,
        ctx.config.rateLimit.smsSent,
        () => new AuthError(429, 'over_sms_send_rate_limit', 'SMS rate limit exceeded'),
      );
    otp = generateOtp(6); // CLI: GOTRUE_SMS_OTP_LENGTH=6
    if (!hookEnabled(ctx, 'send_sms')) throw errors.internal('Unable to get SMS provider');
    await runHook(ctx, 'send_sms', req, { user: await userJson(c, user), sms: { otp, phone } }, c);
  }
  if (kind === 'phone_change_token')
    await c.query('update auth.users set phone_change = $2 where id = $1', [user.id, phone]);
  await storeToken(c, user.id, kind, tokenHash(phone, otp), phone);
  return messageId;
}
