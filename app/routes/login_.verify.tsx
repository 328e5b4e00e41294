// Sign-in, step 2: the one-time code (docs/product.md §2, §5). Also "send a new code" (cooldown from
// the server) and "use a different email". Limits: docs/decisions/003-abuse-limits.md.
// An island page: no Remix runtime in the browser, only app/islands/verify.tsx, which hydrates the
// parts in verify-parts.tsx; its forms post as plain HTML forms (docs/decisions/006-javascript-budget.md).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { replyErrors } from '~/components/forms.tsx';
import { Island, type IslandHandle } from '~/components/island.tsx';
import { verifyIslands } from '~/components/verify-parts.tsx';
import {
  allowCodeRequest,
  codeSent,
  codeSpent,
  reserveVerify,
  settleVerify,
} from '~/lib/auth/sign-in-limits.server.ts';
import { mapAuthError, mappedMessage } from '~/lib/errors/from-auth.server.ts';
import { redirectIfSignedIn } from '~/lib/auth/session.server.ts';
import { signInLink } from '~/lib/auth/sign-in-link.server.ts';
import {
  FLASH,
  clearPendingLogin,
  readPendingLogin,
  setFlash,
  takeFlash,
  writePendingLogin,
  type PendingLogin,
} from '~/lib/auth/cookies.server.ts';
import { OTP_LENGTH, OTP_VALID_SECONDS, RESEND_COOLDOWN_SECONDS } from '~/lib/constants.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import {
  combineHeaders,
  dataWithSession,
  redirectWithSession,
  readFormData,
  requireSameOrigin,
  responseHeaders,
} from '~/lib/http/responses.server.ts';
import { log } from '~/lib/http/log.server.ts';
import { clientIp } from '~/lib/http/request-info.server.ts';
import { loginPath, safeRedirect } from '~/lib/http/safe-redirect.ts';
import { landingPage } from '~/lib/auth/landing.server.ts';
import { ResendSchema, VerifySchema, parseSubmission } from '~/lib/forms/schemas.server.ts';
import { getSupabase } from '~/lib/supabase/client.server.ts';

export const meta: MetaFunction = () => [
  { title: 'Enter your code · Tend' },
  { name: 'description', content: 'Enter the six-digit code from your email to sign in to Tend.' },
];

export const handle: IslandHandle = { island: 'verify' };

function cooldownLeft(pending: PendingLogin): number {
  return Math.max(0, Math.ceil(RESEND_COOLDOWN_SECONDS - (Date.now() - pending.sentAt) / 1000));
}

async function requirePendingLogin(request: Request): Promise<PendingLogin> {
  const pending = await readPendingLogin(request);
  if (!pending) throw redirect('/login', { headers: responseHeaders(request) });
  return pending;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const pending = await requirePendingLogin(request);
  await redirectIfSignedIn(request, pending.redirectTo);
  const { flash, setCookie } = await takeFlash(request);
  return dataWithSession(
    request,
    {
      email: pending.email,
      earlier: pending.earlier,
      cooldown: cooldownLeft(pending),
      resent: flash === FLASH.codeResent,
      differentEmailHref: loginPath(pending.redirectTo),
    },
    { headers: setCookie ? { 'Set-Cookie': setCookie } : undefined },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const pending = await requirePendingLogin(request);
  const formData = await readFormData(request);
  return formData.get('intent') === 'resend' ? resend(request, formData, pending) : verify(request, formData, pending);
}

async function verify(request: Request, formData: FormData, pending: PendingLogin) {
  const submission = parseSubmission(formData, VerifySchema);
  // The code is never sent back: a new attempt starts from empty boxes.
  const fail = (message: string, status: number) =>
    dataWithSession(
      request,
      {
        intent: 'verify' as const,
        result: submission.reply({ fieldErrors: { code: [message] }, hideFields: ['code'] }),
        retryAfter: null,
      },
      { status },
    );
  if (submission.status !== 'success') return fail(errorMessage('code_invalid'), 400);

  const ip = clientIp(request);
  if (!(await reserveVerify(pending.email, ip))) {
    log.warn('verify attempts limited', { ip: ip ?? 'unknown' });
    // Five wrong tries spent this code: only a new one works ("Send a new code" is below the field).
    const code = (await codeSpent(pending.email)) ? 'code_used_up' : 'too_many_attempts';
    return fail(errorMessage(code), errorStatus(code));
  }
  const { supabase } = getSupabase(request);
  const { data: verified, error } = await supabase.auth.verifyOtp({
    email: pending.email,
    token: submission.value.code,
    type: 'email',
  });
  if (error) {
    const mapped = mapAuthError(error);
    await settleVerify(pending.email, ip, mapped.code === 'code_invalid' ? 'wrong' : 'undecided');
    if (mapped.code !== 'code_invalid')
      log.warn('verify failed', { code: mapped.code, auth_code: error.code, status: error.status });
    return fail(mappedMessage(mapped), errorStatus(mapped.code));
  }
  await settleVerify(pending.email, ip, 'right');
  return redirectWithSession(request, await landingPage(request, safeRedirect(pending.redirectTo), verified.user), {
    headers: { 'Set-Cookie': await clearPendingLogin(request) },
  });
}

async function resend(request: Request, formData: FormData, pending: PendingLogin) {
  const submission = parseSubmission(formData, ResendSchema);
  const fail = (message: string, status: number, retryAfter: number | null = null) =>
    dataWithSession(
      request,
      { intent: 'resend' as const, result: submission.reply({ formErrors: [message] }), retryAfter },
      { status },
    );
  if (submission.status !== 'success') return fail(errorMessage('bad_request'), 400);
  if (!(await allowCodeRequest(clientIp(request))))
    return fail(errorMessage('too_many_attempts'), errorStatus('too_many_attempts'));

  const { supabase } = getSupabase(request);
  const { error } = await supabase.auth.signInWithOtp({
    email: pending.email,
    options: { shouldCreateUser: true, emailRedirectTo: signInLink(request, pending.redirectTo) },
  });
  if (error) {
    // The server decides the cooldown (GoTrue: 429 over_email_send_rate_limit, "…after N seconds").
    const mapped = mapAuthError(error);
    return fail(
      mappedMessage(mapped),
      errorStatus(mapped.code),
      mapped.code === 'code_rate_limited' ? (mapped.seconds ?? null) : null,
    );
  }
  await codeSent(pending.email);
  const headers = combineHeaders(
    [['Set-Cookie', await writePendingLogin(request, { ...pending, sentAt: Date.now(), earlier: false })]],
    [['Set-Cookie', await setFlash(request, FLASH.codeResent)]],
  );
  return redirectWithSession(request, '/login/verify', { headers });
}

export default function VerifyPage() {
  const { email, earlier, cooldown, resent, differentEmailHref } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const verifyResult = actionData?.intent === 'verify' ? actionData.result : undefined;
  const resendResult = actionData?.intent === 'resend' ? actionData.result : undefined;

  return (
    <section className="card card--narrow" aria-labelledby="verify-title">
      <h1 id="verify-title">Check your email</h1>
      {earlier ? (
        // Auth sends an address one code a minute, counted from the last code sent or sign-in link used
        // (docs/decisions/035-email-sign-in-links.md): asked again sooner, it sent nothing (login's action).
        <p className="lead" data-testid="code-not-sent">
          We didn't send a new code: one was sent to <strong data-testid="pending-email">{email}</strong> (or a sign-in
          link used) less than a minute ago. Enter the code from your latest email, or send a new one when the countdown
          ends.
        </p>
      ) : (
        <p className="lead">
          We sent a {OTP_LENGTH}-digit code to <strong data-testid="pending-email">{email}</strong>. It works once and
          for {OTP_VALID_SECONDS / 60} minutes.
        </p>
      )}
      {resent ? (
        <p className="notice notice--success" role="status">
          A new code is on its way. Only the latest code works.
        </p>
      ) : null}
      <Island of={verifyIslands} name="code" props={{ errors: replyErrors(verifyResult, 'code') }} />
      <Island
        of={verifyIslands}
        name="options"
        className="verify-options"
        props={{
          cooldown: actionData?.retryAfter ?? cooldown,
          // A refused resend shows its wait in the countdown line instead.
          errors: actionData?.retryAfter ? undefined : replyErrors(resendResult),
          differentEmailHref,
        }}
      />
    </section>
  );
}
