// POST /resend — the signup confirmation, email change, or SMS code again (GoTrue resend.go; supabase-fidelity.md §1.4).
import { tx, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { pkceParams, readJson, str, validateEmail, validatePhone } from './http.ts';
import { allowedRedirect } from './redirect.ts';
import { sendConfirmation, sendEmailChange, sendPhoneOtp } from './send.ts';
import { saveFlowState } from './token.ts';
import { findByEmail, findByPhone } from './users.ts';

export const resend: Handler = async (ctx, req, res, url) => {
  const body = await readJson(req);
  const type = str(body.type) ?? '';
  const pkce = type === 'signup' || type === 'email_change' ? pkceParams(body) : undefined;
  if (!['signup', 'email_change', 'sms', 'phone_change'].includes(type))
    throw errors.validation('Missing one of these types: signup, email_change, sms, phone_change');
  const rawEmail = str(body.email) ?? '';
  const rawPhone = str(body.phone) ?? '';
  if (!rawEmail && type === 'signup') throw errors.validation('Type provided requires an email address');
  if (!rawPhone && type === 'sms') throw errors.validation('Type provided requires a phone number');
  let email: string | undefined;
  let phone: string | undefined;
  if (rawEmail && rawPhone) throw errors.validation('Only an email address or phone number should be provided.');
  else if (rawEmail) {
    if (!ctx.config.email.enableSignup)
      throw new AuthError(400, 'email_provider_disabled', 'Email logins are disabled');
    email = validateEmail(rawEmail);
  } else if (rawPhone) {
    if (!ctx.config.sms.enableSignup) throw new AuthError(400, 'phone_provider_disabled', 'Phone logins are disabled');
    phone = validatePhone(rawPhone);
  } else throw errors.validation('Missing email address or phone number');
  const redirectTo = allowedRedirect(ctx.config, url.searchParams.get('redirect_to') ?? undefined);

  const messageId = await tx(ctx.pool, async (c) => {
    const user = email ? await findByEmail(c, email, true) : await findByPhone(c, phone!, true);
    // resend.go: an unknown user, one already confirmed, or no pending change gets {} and nothing is sent.
    if (!user) return '';
    if (type === 'signup') {
      if (user.email_confirmed_at) return '';
      if (pkce) await saveFlowState(c, user.id, pkce, 'email', 'email/signup');
      await sendConfirmation(c, ctx, req, user, redirectTo, !!pkce);
    } else if (type === 'email_change') {
      if (!user.email_change) return '';
      if (pkce) await saveFlowState(c, user.id, pkce, 'email_change', 'email_change');
      await sendEmailChange(c, ctx, req, user, user.email_change, redirectTo, !!pkce);
    } else if (type === 'sms') {
      if (user.phone_confirmed_at) return '';
      return sendPhoneOtp(c, ctx, req, user, phone!, 'confirmation_token');
    } else {
      if (!user.phone_change) return '';
      return sendPhoneOtp(c, ctx, req, user, user.phone_change, 'phone_change_token');
    }
    return '';
  });
  sendJson(res, 200, messageId ? { message_id: messageId } : {});
};
