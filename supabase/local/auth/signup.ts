// POST /signup: email or phone with a password, and anonymous sign-in (GoTrue signup.go, anonymous.go,
// the /signup route closure in api.go; docs/reference/supabase-fidelity.md §1.1, §3).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { tx, type AuthContext, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { hookEnabled, runHook } from './hooks.ts';
import { obj, pkceParams, readJson, str, validateEmail, validatePhone } from './http.ts';
import { checkPasswordStrength, hashPassword } from './password.ts';
import { allowedRedirect } from './redirect.ts';
import { sendConfirmation, sendPhoneOtp } from './send.ts';
import { signIn } from './sessions.ts';
import { saveFlowState } from './token.ts';
import {
  confirmEmail,
  confirmPhone,
  createUser,
  findByEmail,
  findById,
  findByPhone,
  identityClaims,
  updateProviders,
  userJson,
  type NewUser,
  type UserRow,
} from './users.ts';

/** The /signup route: no email and no phone is an anonymous sign-in (api.go). */
export const signupRoute =
  (limit: (bucket: 'otp' | 'anonymous') => void): Handler =>
  async (ctx, req, res, url) => {
    const body = await readJson(req);
    if (!str(body.email) && !str(body.phone)) {
      if (!ctx.config.enableAnonymousSignIns)
        throw new AuthError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
      limit('anonymous');
      return signupAnonymously(ctx, req, res, body);
    }
    limit('otp');
    return signup(ctx, req, res, url, body);
  };

/**
 * hooks.go triggerBeforeUserCreated: the user about to be made, as GoTrue's model serializes it
 * before its insert (no role yet, zero timestamps). A hook's error object refuses the signup.
 */
export async function beforeUserCreated(ctx: AuthContext, req: IncomingMessage, u: NewUser & { id: string }) {
  if (!hookEnabled(ctx, 'before_user_created')) return;
  const zero = '0001-01-01T00:00:00Z';
  const providers = [...(u.email ? ['email'] : []), ...(u.phone ? ['phone'] : [])];
  await runHook(ctx, 'before_user_created', req, {
    user: {
      id: u.id,
      aud: 'authenticated',
      role: '',
      email: u.email ?? '',
      phone: u.phone ?? '',
      app_metadata: u.anonymous ? {} : { provider: providers[0], providers, ...(u.appMetadata ?? {}) },
      user_metadata: u.userMetadata ?? {},
      identities: [],
      created_at: zero,
      updated_at: zero,
      is_anonymous: !!u.anonymous,
    },
  });
}

const UserExists = Symbol('user exists');

async function signup(
  ctx: AuthContext,
  req: IncomingMessage,
  res: Parameters<Handler>[2],
  url: URL,
  body: Record<string, unknown>,
) {
  const config = ctx.config;
  if (!config.enableSignup) throw errors.signupDisabled();
  const password = str(body.password) ?? '';
  if (!password) throw errors.validation('Signup requires a valid password');
  checkPasswordStrength(config, password);
  const rawEmail = str(body.email) ?? '';
  const rawPhone = str(body.phone) ?? '';
  if (rawEmail && rawPhone)
    throw errors.validation('Only an email address or phone number should be provided on signup.');
  const provider = rawEmail ? 'email' : 'phone';
  if (provider === 'phone' && (str(body.channel) ?? 'sms') !== 'sms')
    throw errors.validation(
      "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.",
    );
  if (provider === 'phone' && body.code_challenge) throw errors.validation('PKCE not supported for phone signups');
  const pkce = pkceParams(body);
  let email: string | undefined;
  let phone: string | undefined;
  if (provider === 'email') {
    if (!config.email.enableSignup) throw new AuthError(400, 'email_provider_disabled', 'Email signups are disabled');
    email = validateEmail(rawEmail);
  } else {
    if (!config.sms.enableSignup) throw new AuthError(400, 'phone_provider_disabled', 'Phone signups are disabled');
    phone = validatePhone(rawPhone);
  }
  const data = obj(body.data) ?? {};
  const redirectTo = allowedRedirect(config, url.searchParams.get('redirect_to') ?? undefined);
  const find = (db: pg.Pool | pg.PoolClient, lock = false) =>
    email ? findByEmail(db, email, lock) : findByPhone(db, phone!, lock);

  // signup.go: the password is hashed and before_user_created asked outside the transaction.
  const passwordHash = await hashPassword(password);
  const draft = { id: randomUUID(), email, phone, passwordHash, userMetadata: data, metadata: 'signup' as const };
  if (!(await find(ctx.pool))) await beforeUserCreated(ctx, req, draft);

  let user: UserRow;
  try {
    user = await tx(ctx.pool, async (c) => {
      await c.query('select pg_advisory_xact_lock(hashtext($1))', [email ?? phone]);
      let u = await find(c, true);
      if (u) {
        if (email ? u.email_confirmed_at : u.phone_confirmed_at) throw UserExists;
        u = await adoptIdentity(c, u, provider, data); // a repeat signup keeps the stored password
      } else u = await createUser(c, draft);
      if (email && !u.email_confirmed_at) {
        if (!config.email.enableConfirmations) return confirmEmail(c, u.id);
        if (pkce) await saveFlowState(c, u.id, pkce, 'email', 'email/signup');
        await sendConfirmation(c, ctx, req, u, redirectTo, !!pkce);
      } else if (phone && !u.phone_confirmed_at) {
        if (!config.sms.enableConfirmations) return confirmPhone(c, u.id);
        await sendPhoneOtp(c, ctx, req, u, phone, 'confirmation_token');
      }
      return (await findById(c, u.id))!; // with confirmation_sent_at
    });
  } catch (err) {
    if (err !== UserExists) throw err;
    // signup.go: a confirmed address is refused outright under autoconfirm, else answered with a made-up user.
    if (!config.email.enableConfirmations || !config.sms.enableConfirmations)
      throw new AuthError(422, 'user_already_exists', 'User already registered');
    return sendJson(res, 200, obfuscatedUser(provider, email, phone, data));
  }
  if (user.email_confirmed_at || user.phone_confirmed_at) {
    const session = await tx(ctx.pool, (c) => signIn(c, ctx, req, user, 'password'));
    return sendJson(res, 200, session);
  }
  const json = await userJson(ctx.pool, user);
  // signup.go: an invited user's details stay hidden from whoever signs up with the address.
  if (user.invited_at) Object.assign(json, { user_metadata: {}, identities: [] });
  sendJson(res, 200, json);
}

/**
 * A repeat signup of an unconfirmed user: the row is kept; without an identity for this provider one
 * is made and user_metadata becomes its data (User.RemoveUnconfirmedIdentities).
 */
async function adoptIdentity(c: pg.PoolClient, u: UserRow, provider: string, data: Record<string, unknown>) {
  const has = (await c.query('select 1 from auth.identities where user_id = $1 and provider = $2', [u.id, provider]))
    .rowCount;
  if (has) return u;
  const claims = identityClaims(u.id, { email: u.email ?? undefined, phone: u.phone ?? undefined });
  const identityData = { ...data, ...claims };
  await c.query('delete from auth.identities where user_id = $1', [u.id]);
  await c.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at, last_sign_in_at)
     values ($1::text, $1::uuid, $2, $3, now(), now(), now())`,
    [u.id, identityData, provider],
  );
  await c.query('update auth.users set raw_user_meta_data = $2 where id = $1', [u.id, identityData]);
  return updateProviders(c, u.id);
}

/** signup.go sanitizeUser: what a repeat signup of a confirmed address gets, so it tells nothing. */
function obfuscatedUser(provider: string, email: string | undefined, phone: string | undefined, data: object) {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    aud: 'authenticated',
    role: '',
    email: email ?? '',
    phone: phone ?? '',
    confirmation_sent_at: now,
    app_metadata: { provider, providers: [provider] },
    user_metadata: data,
    identities: [],
    created_at: now,
    updated_at: now,
    is_anonymous: false,
  };
}

/** anonymous.go SignupAnonymously: a user without email, phone or identity, signed in at once. */
async function signupAnonymously(
  ctx: AuthContext,
  req: IncomingMessage,
  res: Parameters<Handler>[2],
  body: Record<string, unknown>,
) {
  if (!ctx.config.enableSignup) throw errors.signupDisabled();
  const draft = {
    id: randomUUID(),
    passwordHash: '',
    userMetadata: obj(body.data) ?? {},
    metadata: 'given' as const,
    anonymous: true,
  };
  await beforeUserCreated(ctx, req, draft);
  const session = await tx(ctx.pool, async (c) => signIn(c, ctx, req, await createUser(c, draft), 'anonymous'));
  sendJson(res, 200, session);
}
