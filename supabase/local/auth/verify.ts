// POST /verify (code or token_hash) and GET /verify (the email link) — GoTrue verify.go, docs/reference/auth.md §1.5.
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { tx, type AuthContext, type Handler } from './context.ts';
import { AuthError, errors, oauthError, sendJson } from './errors.ts';
import { readJson, str, validateEmail, validatePhone } from './http.ts';
import { allowedRedirect } from './redirect.ts';
import { tokenHash, type TokenKind } from './send.ts';
import { signIn } from './sessions.ts';
import {
  confirmEmail,
  confirmPhone,
  findByEmail,
  findById,
  identityClaims,
  isBanned,
  randomPasswordHash,
  updateProviders,
  type UserRow,
} from './users.ts';

const TYPES = new Set(['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email', 'sms', 'phone_change']);
const CLI_SMS_OTP_EXPIRY = 6000; // the CLI's GOTRUE_SMS_OTP_EXP

// verify.go verifyTokenHash: which stored codes each type may match.
const HASH_KINDS: Record<string, TokenKind[]> = {
  email: ['confirmation_token', 'recovery_token'],
  signup: ['confirmation_token'],
  invite: ['confirmation_token'],
  magiclink: ['recovery_token'],
  recovery: ['recovery_token'],
  email_change: ['email_change_token_current', 'email_change_token_new'],
};

const within = (sentAt: Date | null, seconds: number) =>
  !!sentAt && Date.now() - new Date(sentAt).getTime() <= seconds * 1000;

/** verify.go isOtpValid: the stored hash (or its pkce_ form), fresh. */
const matches = (hash: string, stored: string | null, sentAt: Date | null, seconds: number) =>
  !!stored && within(sentAt, seconds) && (stored === hash || stored === `pkce_${hash}`);

interface Match {
  user: UserRow;
  /** The type the verification runs as: `email` resolves to signup or magiclink. */
  type: string;
  /** The hash that matched (email change: which of the two addresses confirmed). */
  hash: string;
}

/** token_hash (and the link): looked up in auth.one_time_tokens, then checked for freshness. */
async function matchHash(c: pg.PoolClient, ctx: AuthContext, hash: string, type: string): Promise<Match> {
  const kinds = HASH_KINDS[type];
  if (!kinds) throw errors.validation('Invalid email verification type');
  const expired = () => errors.otpExpired(true);
  const row = (
    await c.query(
      'select user_id, token_type from auth.one_time_tokens where token_hash = $1 and token_type = any($2::auth.one_time_token_type[])',
      [hash, kinds],
    )
  ).rows[0];
  if (!row) throw expired();
  const user = await findById(c, row.user_id, true);
  if (!user) throw expired();
  // The row may have been consumed while this request waited for the user's lock.
  if (!(await c.query('select 1 from auth.one_time_tokens where token_hash = $1', [hash])).rowCount) throw expired();
  if (isBanned(user)) throw errors.userBanned();
  let resolved = type;
  if (type === 'email') resolved = user.recovery_token === hash ? 'magiclink' : 'signup';
  const sentAt = ['signup', 'invite'].includes(resolved)
    ? user.confirmation_sent_at
    : resolved === 'email_change'
      ? user.email_change_sent_at
      : user.recovery_sent_at;
  if (!within(sentAt, ctx.config.email.otpExpiry)) throw expired();
  return { user, type: resolved, hash };
}

/** Email or phone + code (verify.go verifyUserAndToken). */
async function matchCode(
  c: pg.PoolClient,
  ctx: AuthContext,
  address: { email?: string; phone?: string },
  token: string,
  type: string,
): Promise<Match> {
  const invalid = () => errors.otpExpired();
  const hash = tokenHash((address.email ?? address.phone)!, token);
  let user: UserRow | undefined;
  if (type === 'sms' || type === 'phone_change') {
    const column = type === 'sms' ? 'phone' : 'phone_change';
    user = (
      await c.query(`select * from auth.users where ${column} = $1 and deleted_at is null limit 1 for update`, [
        address.phone,
      ])
    ).rows[0];
  } else if (type === 'email_change') {
    // one_time_token.go FindUserForEmailChange: by the code's hash, current address first when both confirm.
    const kinds = ctx.config.email.doubleConfirmChanges
      ? ['email_change_token_current', 'email_change_token_new']
      : ['email_change_token_new'];
    const row = (
      await c.query(
        'select user_id from auth.one_time_tokens where token_hash = any($1) and token_type = any($2::auth.one_time_token_type[]) limit 1',
        [[hash, `pkce_${hash}`], kinds],
      )
    ).rows[0];
    user = row ? await findById(c, row.user_id, true) : undefined;
  } else user = address.email ? await findByEmail(c, address.email, true) : undefined;
  if (!user) throw invalid();
  if (isBanned(user)) throw errors.userBanned();
  const exp = ctx.config.email.otpExpiry;
  const confirmation = () => matches(hash, user.confirmation_token, user.confirmation_sent_at, exp);
  const recovery = () => matches(hash, user.recovery_token, user.recovery_sent_at, exp);
  switch (type) {
    case 'email':
      if (confirmation()) return { user, type: 'signup', hash };
      if (recovery()) return { user, type: 'magiclink', hash };
      throw invalid();
    case 'signup':
    case 'invite':
      if (confirmation()) return { user, type, hash };
      throw invalid();
    case 'magiclink':
    case 'recovery':
      if (recovery()) return { user, type, hash };
      throw invalid();
    case 'email_change':
      for (const stored of [user.email_change_token_current, user.email_change_token_new])
        if (matches(hash, stored, user.email_change_sent_at, exp)) return { user, type, hash: stored! };
      throw invalid();
    default: {
      // sms / phone_change: a [auth.sms.test_otp] code, or the texted one (phone.go).
      if (ctx.config.sms.testOtp[address.phone!] === token) return { user, type, hash };
      const [stored, sentAt] =
        type === 'sms'
          ? [user.confirmation_token, user.confirmation_sent_at]
          : [user.phone_change_token, user.phone_change_sent_at];
      if (matches(hash, stored, sentAt, CLI_SMS_OTP_EXPIRY)) return { user, type, hash };
      throw invalid();
    }
  }
}

/** verify.go signupVerify / recoverVerify / emailChangeVerify / smsVerify. Undefined: one of two email change confirmations. */
async function apply(c: pg.PoolClient, ctx: AuthContext, m: Match): Promise<UserRow | undefined> {
  let user = m.user;
  switch (m.type) {
    case 'signup':
    case 'invite':
      // An invited user gets a random password the app then asks them to replace.
      if (!user.encrypted_password && user.invited_at)
        await c.query('update auth.users set encrypted_password = $2 where id = $1', [user.id, randomPasswordHash()]);
      user = await confirmEmail(c, user.id);
      await c.query(
        `update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb, updated_at = now()
         where user_id = $1 and email = lower($2)`,
        [user.id, user.email],
      );
      break;
    case 'magiclink':
    case 'recovery':
      await c.query(
        `with ott as (delete from auth.one_time_tokens where user_id = $1) update auth.users set recovery_token = '' where id = $1`,
        [user.id],
      );
      if (!user.email_confirmed_at) user = await confirmEmail(c, user.id);
      break;
    case 'email_change': {
      const which =
        m.hash === user.email_change_token_current ? 'email_change_token_current' : 'email_change_token_new';
      if (
        ctx.config.email.enableConfirmations &&
        ctx.config.email.doubleConfirmChanges &&
        !user.email_change_confirm_status &&
        user.email
      ) {
        await c.query(
          `with ott as (delete from auth.one_time_tokens where user_id = $1 and token_type = $2)
           update auth.users set ${which} = '', email_change_confirm_status = 1 where id = $1`,
          [user.id, which],
        );
        return undefined;
      }
      user = await changeEmail(c, user);
      break;
    }
    case 'sms':
      user = await confirmPhone(c, user.id);
      await c.query('update auth.users set is_anonymous = false where id = $1', [user.id]);
      break;
    case 'phone_change':
      await changePhone(c, user.id, user.phone_change!);
      break;
  }
  return updateProviders(c, user.id);
}

/** User.ConfirmEmailChange: the new address becomes the email, verified, on the email identity too. */
export async function changeEmail(c: pg.PoolClient, user: UserRow): Promise<UserRow> {
  const email = user.email_change!;
  await upsertIdentity(c, user.id, 'email', { email, email_verified: true });
  await c.query(
    `with ott as (delete from auth.one_time_tokens where user_id = $1)
     update auth.users set email = $2, email_change = '', email_change_token_current = '', email_change_token_new = '',
       email_change_confirm_status = 0, is_anonymous = false, updated_at = now() where id = $1`,
    [user.id, email],
  );
  const changed = (await findById(c, user.id))!;
  return changed.email_confirmed_at ? changed : confirmEmail(c, user.id);
}

/** User.ConfirmPhoneChange: `phone` becomes the user's confirmed number, on the phone identity too. */
export async function changePhone(c: pg.PoolClient, userId: string, phone: string) {
  await c.query(
    `with ott as (delete from auth.one_time_tokens where user_id = $1)
     update auth.users set phone = $2, phone_change = '', phone_change_token = '', phone_confirmed_at = now(), is_anonymous = false,
       updated_at = now()
     where id = $1`,
    [userId, phone],
  );
  await upsertIdentity(c, userId, 'phone', { phone, phone_verified: true });
}

/** The user's email or phone identity updated with `data`, or made if missing (verify.go). */
async function upsertIdentity(
  c: pg.PoolClient,
  userId: string,
  provider: 'email' | 'phone',
  data: Record<string, unknown>,
) {
  const updated = await c.query(
    `update auth.identities set identity_data = identity_data || $3::jsonb, updated_at = now() where user_id = $1 and provider = $2`,
    [userId, provider, data],
  );
  if (updated.rowCount) return;
  await c.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at, last_sign_in_at)
     values ($1::text, $1::uuid, $3, $2, now(), now(), now())`,
    [userId, provider, { ...identityClaims(userId, {}), ...data }],
  );
}

const SINGLE_CONFIRMATION = 'Confirmation link accepted. Please proceed to confirm link sent to the other email';

export const verifyPost: Handler = async (ctx, req, res) => {
  const body = await readJson(req);
  const type = str(body.type);
  if (!type) throw errors.validation('Verify requires a verification type');
  const token = str(body.token);
  const hash = str(body.token_hash);
  if (!!token === !!hash) throw errors.validation('Verify requires either a token or a token hash');
  let address: { email?: string; phone?: string } = {};
  if (token) {
    if (body.phone && !body.email) address = { phone: validatePhone(body.phone) };
    else if (body.email && !body.phone) {
      try {
        address = { email: validateEmail(body.email) };
      } catch {
        throw errors.validation('Invalid email format', 422);
      }
    } else throw errors.validation('Only an email address or phone number should be provided on verify');
  } else if (body.email || body.phone || body.redirect_to)
    throw errors.validation('Only the token_hash and type should be provided');
  if (!TYPES.has(type)) throw errors.validation('Unsupported verification type');
  const session = await tx(ctx.pool, async (c) => {
    const match = token ? await matchCode(c, ctx, address, token, type) : await matchHash(c, ctx, hash!, type);
    const user = await apply(c, ctx, match);
    if (!user) return undefined;
    // GoTrue: a code or hash typed/posted signs in with amr "otp".
    return signIn(c, ctx, req, user, 'otp');
  });
  // verify.go: the first of two email change confirmations answers with a message, "code" a string.
  sendJson(res, 200, session ?? { msg: SINGLE_CONFIRMATION, code: '200' });
};

// models/factor.go ParseAuthenticationMethod: the flow state a PKCE link's type belongs to.
const LINK_METHODS: Record<string, string> = {
  signup: 'email/signup',
  invite: 'invite',
  magiclink: 'magiclink',
  recovery: 'recovery',
  email_change: 'email_change',
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
    if (!TYPES.has(type) || type === 'sms' || type === 'phone_change')
      throw errors.validation('Unsupported verification type');
    const target = await tx(ctx.pool, async (c) => linkTarget(c, ctx, req, hash, type, redirectTo, pkce));
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

async function linkTarget(
  c: pg.PoolClient,
  ctx: AuthContext,
  req: IncomingMessage,
  hash: string,
  type: string,
  redirectTo: string,
  pkce: boolean,
): Promise<string> {
  const match = await matchHash(c, ctx, hash, type);
  const user = await apply(c, ctx, match);
  if (!user) {
    // verify.go prepRedirectURL: the first of two email change confirmations.
    const u = new URL(redirectTo);
    if (pkce) u.searchParams.set('message', SINGLE_CONFIRMATION);
    return `${u.toString().split('#')[0]}#${new URLSearchParams({ message: SINGLE_CONFIRMATION, sb: '' })}`;
  }
  if (pkce) {
    const method = LINK_METHODS[type];
    if (!method) throw errors.validation(`unsupported authentication method "${type}"`);
    // pkce.go issueAuthCode: the newest flow state of the user for this method gets its code stamped.
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
  const s = await signIn(c, ctx, req, user, 'otp');
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
}
