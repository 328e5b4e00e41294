// GET /user, PUT /user and GET /reauthenticate (GoTrue user.go, reauthenticate.go; docs/reference/auth.md §1.8,
// supabase-fidelity.md §1.5–1.6).
import { tx, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { requireUser } from './guard.ts';
import { obj, pkceParams, readJson, str, validateEmail, validatePhone } from './http.ts';
import { checkPasswordStrength, hashPassword, verifyPassword } from './password.ts';
import { allowedRedirect } from './redirect.ts';
import { sendEmailChange, sendPhoneOtp, sendReauthentication, tokenHash } from './send.ts';
import { saveFlowState } from './token.ts';
import { findByEmail, findById, findByPhone, mergeUserMetadata, userJson } from './users.ts';
import { changeEmail, changePhone } from './verify.ts';

export const getUser: Handler = async (ctx, req, res) => {
  const { user } = await requireUser(ctx, req);
  sendJson(res, 200, await userJson(ctx.pool, user));
};

const DAY_MS = 24 * 3600 * 1000;

export const putUser: Handler = async (ctx, req, res, url) => {
  const { user, sessionId, session } = await requireUser(ctx, req);
  const body = await readJson(req);
  const config = ctx.config;
  // user.go validateUserUpdateParams
  const email = str(body.email) ? validateEmail(body.email) : undefined;
  const phone = str(body.phone) ? validatePhone(body.phone) : undefined;
  const password = typeof body.password === 'string' ? body.password : undefined;
  if (password !== undefined) checkPasswordStrength(config, password);
  if (body.app_metadata !== undefined && body.app_metadata !== null)
    throw new AuthError(403, 'not_admin', 'Updating app_metadata requires admin privileges');
  const data = obj(body.data);
  if (body.data !== undefined && body.data !== null && !data) throw errors.validation('data must be an object');
  const changesEmail = !!email && email !== user.email;
  const changesPhone = !!phone && phone !== user.phone;
  if ((password || changesEmail || changesPhone) && session.aal !== 'aal2') {
    const verified = await ctx.pool.query("select 1 from auth.mfa_factors where user_id = $1 and status = 'verified'", [
      user.id,
    ]);
    if (verified.rowCount)
      throw new AuthError(
        401,
        'insufficient_aal',
        'AAL2 session is required to update email or password when MFA is enabled.',
      );
  }
  if (user.is_anonymous && password && !email && !phone)
    throw errors.validation('Updating password of an anonymous user without an email or phone is not allowed', 422);
  if (changesEmail) {
    const other = await findByEmail(ctx.pool, email);
    if (other && other.id !== user.id) throw errors.emailExists();
  }
  if (changesPhone && (await findByPhone(ctx.pool, phone))) throw errors.phoneExists();

  let passwordHash: string | undefined;
  if (password !== undefined) {
    // user.go: with secure_password_change, a session older than a day needs the emailed nonce.
    if (
      config.email.securePasswordChange &&
      (!sessionId || Date.now() - new Date(session.created_at).getTime() > DAY_MS)
    ) {
      const nonce = str(body.nonce) ?? '';
      if (!nonce) throw new AuthError(400, 'reauthentication_needed', 'Password update requires reauthentication');
      const invalid = new AuthError(422, 'reauthentication_not_valid', 'Nonce has expired or is invalid');
      const address = user.email || user.phone;
      if (!user.reauthentication_token || !user.reauthentication_sent_at || !address) throw invalid;
      const exp = user.email ? config.email.otpExpiry : 6000;
      const fresh = Date.now() - new Date(user.reauthentication_sent_at).getTime() <= exp * 1000;
      if (!fresh || tokenHash(address, nonce) !== user.reauthentication_token) throw invalid;
    }
    if (password && (await verifyPassword(user.encrypted_password, password)))
      throw new AuthError(422, 'same_password', 'New password should be different from the old password.');
    passwordHash = password ? await hashPassword(password) : '';
  }
  const redirectTo = allowedRedirect(config, url.searchParams.get('redirect_to') ?? undefined);
  const pkce = pkceParams(body);

  await tx(ctx.pool, async (c) => {
    await c.query('select 1 from auth.users where id = $1 for update', [user.id]);
    if (passwordHash !== undefined) {
      // User.UpdatePassword: every pending code cleared, every other session signed out.
      await c.query(
        `with ott as (delete from auth.one_time_tokens where user_id = $1),
              sessions as (delete from auth.sessions where user_id = $1 and ($3::uuid is null or id <> $3))
         update auth.users set encrypted_password = $2, confirmation_token = '', confirmation_sent_at = null, recovery_token = '',
           recovery_sent_at = null, email_change_token_current = '', email_change_token_new = '', email_change_sent_at = null,
           phone_change_token = '', phone_change_sent_at = null, reauthentication_token = '', reauthentication_sent_at = null,
           updated_at = now()
         where id = $1`,
        [user.id, passwordHash, sessionId ?? null],
      );
    }
    if (data) await mergeUserMetadata(c, user.id, data);
    const current = (await findById(c, user.id))!;
    if (changesEmail) {
      // user.go: an anonymous user adds an email at once under autoconfirm; anyone else confirms it by email.
      if (current.is_anonymous && !config.email.enableConfirmations)
        await changeEmail(c, { ...current, email_change: email });
      else {
        if (pkce) await saveFlowState(c, user.id, pkce, 'email_change', 'email_change');
        await sendEmailChange(c, ctx, req, current, email, redirectTo, !!pkce);
      }
    }
    if (changesPhone) {
      // user.go: under SMS autoconfirm (the CLI's default) the number changes at once.
      if (!config.sms.enableConfirmations) await changePhone(c, user.id, phone);
      else await sendPhoneOtp(c, ctx, req, current, phone, 'phone_change_token');
    }
  });
  sendJson(res, 200, await userJson(ctx.pool, (await findById(ctx.pool, user.id))!));
};

/** GET /reauthenticate: a code to the user's confirmed email (or phone), the nonce for PUT /user. */
export const reauthenticate: Handler = async (ctx, req, res) => {
  const { user } = await requireUser(ctx, req);
  if (!user.email && !user.phone)
    throw errors.validation('Reauthentication requires the user to have an email or a phone number');
  if (user.email && !user.email_confirmed_at)
    throw new AuthError(422, 'email_not_confirmed', 'Please verify your email first.');
  if (!user.email && !user.phone_confirmed_at)
    throw new AuthError(422, 'phone_not_confirmed', 'Please verify your phone first.');
  const messageId = await tx(ctx.pool, async (c) => {
    const locked = (await findById(c, user.id, true))!;
    if (user.email) return void (await sendReauthentication(c, ctx, req, locked));
    return sendPhoneOtp(c, ctx, req, locked, user.phone!, 'reauthentication_token');
  });
  sendJson(res, 200, messageId ? { message_id: messageId } : {});
};
