// POST /otp — email one-time code and magic link, and an SMS code when phone sign-in is on (GoTrue otp.go,
// magic_link.go; docs/reference/auth.md §1.4).
import { randomUUID } from 'node:crypto';
import { tx, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { obj, pkceParams, readJson, str, validateEmail, validatePhone } from './http.ts';
import { allowedRedirect } from './redirect.ts';
import { sendConfirmation, sendPhoneOtp, sendRecovery } from './send.ts';
import { beforeUserCreated } from './signup.ts';
import { saveFlowState } from './token.ts';
import {
  confirmEmail,
  confirmPhone,
  createUser,
  findByEmail,
  findByPhone,
  isBanned,
  randomPasswordHash,
} from './users.ts';

export const otp: Handler = async (ctx, req, res, url) => {
  const body = await readJson(req);
  if (body.email && body.phone) throw errors.validation('Only an email address or phone number should be provided');
  const pkce = pkceParams(body);
  const createIfMissing = body.create_user !== false;
  const data = obj(body.data) ?? {};
  if (str(body.phone)) {
    // otp.go SmsOtp: phone sign-in needs [auth.sms] enable_signup.
    if (!ctx.config.sms.enableSignup) throw new AuthError(400, 'phone_provider_disabled', 'Unsupported phone provider');
    const phone = validatePhone(body.phone);
    if (!createIfMissing && !(await findByPhone(ctx.pool, phone)))
      throw new AuthError(422, 'otp_disabled', 'Signups not allowed for otp');
    const messageId = await tx(ctx.pool, async (c) => {
      await c.query('select pg_advisory_xact_lock(hashtext($1))', [phone]);
      let user = await findByPhone(c, phone, true);
      if (!user) {
        if (!ctx.config.enableSignup) throw errors.signupDisabled();
        const draft = {
          id: randomUUID(),
          phone,
          passwordHash: randomPasswordHash(),
          userMetadata: data,
          metadata: 'signup' as const,
        };
        await beforeUserCreated(ctx, req, draft);
        user = await createUser(c, draft);
      }
      // otp.go: an unconfirmed number is signed up first; under autoconfirm it is confirmed, then texted.
      if (!user.phone_confirmed_at && !ctx.config.sms.enableConfirmations) user = await confirmPhone(c, user.id);
      return sendPhoneOtp(c, ctx, req, user, phone, 'confirmation_token');
    });
    return sendJson(res, 200, messageId ? { message_id: messageId } : {});
  }
  const email = validateEmail(body.email);
  if (!createIfMissing && !(await findByEmail(ctx.pool, email)))
    throw new AuthError(422, 'otp_disabled', 'Signups not allowed for otp'); // otp.go shouldCreateUser
  if (!ctx.config.email.enableSignup) throw new AuthError(422, 'email_provider_disabled', 'Email logins are disabled');
  const redirectTo = allowedRedirect(ctx.config, url.searchParams.get('redirect_to') ?? undefined);
  const confirmations = ctx.config.email.enableConfirmations;

  const existing = await findByEmail(ctx.pool, email);
  const draft = {
    id: randomUUID(),
    email,
    passwordHash: randomPasswordHash(),
    userMetadata: data,
    metadata: 'signup' as const,
  };
  if (!existing && ctx.config.enableSignup) await beforeUserCreated(ctx, req, draft);
  await tx(ctx.pool, async (c) => {
    // Serialise requests for one address so two concurrent ones can't both pass the frequency check.
    await c.query('select pg_advisory_xact_lock(hashtext($1))', [email]);
    let user = await findByEmail(c, email);
    if (!user) {
      if (!ctx.config.enableSignup) throw errors.signupDisabled();
      user = await createUser(c, draft);
    }
    if (isBanned(user)) throw errors.userBanned();
    // magic_link.go: a new or unconfirmed user is signed up; under autoconfirm confirmed and sent the
    // magic link, otherwise sent the confirmation (which carries a link and code too).
    if (!user.email_confirmed_at && !confirmations) user = await confirmEmail(c, user.id);
    const type = user.email_confirmed_at ? 'magiclink' : 'signup';
    if (pkce)
      await saveFlowState(
        c,
        user.id,
        pkce,
        type === 'magiclink' ? 'magiclink' : 'email',
        type === 'magiclink' ? 'magiclink' : 'email/signup',
      );
    // GoTrue sends inside the transaction: a mail that can't be sent leaves no code behind.
    if (type === 'magiclink') await sendRecovery(c, ctx, req, user, 'magiclink', redirectTo, !!pkce);
    else await sendConfirmation(c, ctx, req, user, redirectTo, !!pkce);
  });
  sendJson(res, 200, {});
};
