// POST /recover — the password reset email (GoTrue recover.go; docs/reference/supabase-fidelity.md §1.3).
import { tx, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { pkceParams, readJson, validateEmail } from './http.ts';
import { allowedRedirect } from './redirect.ts';
import { sendRecovery } from './send.ts';
import { saveFlowState } from './token.ts';
import { findByEmail } from './users.ts';

export const recover: Handler = async (ctx, req, res, url) => {
  // middleware.go requireEmailProvider
  if (!ctx.config.email.enableSignup) throw new AuthError(400, 'email_provider_disabled', 'Email logins are disabled');
  const body = await readJson(req);
  if (!body.email) throw errors.validation('Password recovery requires an email');
  const email = validateEmail(body.email);
  const pkce = pkceParams(body);
  const redirectTo = allowedRedirect(ctx.config, url.searchParams.get('redirect_to') ?? undefined);
  await tx(ctx.pool, async (c) => {
    const user = await findByEmail(c, email, true);
    if (!user) return; // recover.go: an unknown address gets the same {} (no enumeration)
    if (pkce) await saveFlowState(c, user.id, pkce, 'recovery', 'recovery');
    await sendRecovery(c, ctx, req, user, 'recovery', redirectTo, !!pkce);
  });
  sendJson(res, 200, {});
};
