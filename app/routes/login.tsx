// Sign-in, step 1: the email address. Sends a one-time code (docs/product.md §2, §7) and moves on to
// /login/verify; the address travels in a signed cookie, not the URL.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import {
  ErrorList,
  Field,
  HoneypotInput,
  SubmitButton,
  replyErrors,
  replyValue,
  useIsPending,
} from '~/components/forms.tsx';
import { allowCodeRequest, codeSent } from '~/lib/auth/sign-in-limits.server.ts';
import { mapAuthError, mappedMessage } from '~/lib/errors/from-auth.server.ts';
import { redirectIfSignedIn } from '~/lib/auth/session.server.ts';
import { signInLink } from '~/lib/auth/sign-in-link.server.ts';
import { FLASH, takeFlash, writePendingLogin } from '~/lib/auth/cookies.server.ts';
import { EMAIL_MAX_LENGTH, OTP_LENGTH, RESEND_COOLDOWN_SECONDS } from '~/lib/constants.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { dataWithSession, redirectWithSession, readFormData, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { log } from '~/lib/http/log.server.ts';
import { clientIp } from '~/lib/http/request-info.server.ts';
import { safeRedirect } from '~/lib/http/safe-redirect.ts';
import { HONEYPOT_FIELD } from '~/lib/forms/fields.ts';
import { LoginSchema, parseSubmission } from '~/lib/forms/schemas.server.ts';
import { getSupabase } from '~/lib/supabase/client.server.ts';

export const meta: MetaFunction = () => [
  { title: 'Sign in · Tend' },
  { name: 'description', content: 'Sign in to Tend with a code sent to your email: no password.' },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const redirectTo = safeRedirect(url.searchParams.get('redirectTo'), '/');
  await redirectIfSignedIn(request, redirectTo);
  const { flash, setCookie } = await takeFlash(request);
  const notice = flash === FLASH.sessionExpired ? errorMessage('session_expired') : null;
  return dataWithSession(
    request,
    { redirectTo: redirectTo === '/' ? '' : redirectTo, notice },
    { headers: setCookie ? { 'Set-Cookie': setCookie } : undefined },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const submission = parseSubmission(await readFormData(request), LoginSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });

  const { email } = submission.value;
  const redirectTo = safeRedirect(submission.value.redirectTo, '/');
  // /login/verify is an island page without Remix's runtime: Remix's client (this page's form)
  // follows this redirect with a document load (X-Remix-Reload-Document, as redirectDocument sets it).
  const toVerify = async (sentAt: number, earlier = false) =>
    redirectWithSession(request, '/login/verify', {
      headers: [
        ['Set-Cookie', await writePendingLogin(request, { email, redirectTo, sentAt, earlier })],
        ['X-Remix-Reload-Document', 'true'],
      ],
    });

  // A bot filled the hidden field: look like success, send nothing.
  if (submission.value[HONEYPOT_FIELD]) {
    log.warn('honeypot filled', { path: '/login' });
    return toVerify(Date.now());
  }
  if (!(await allowCodeRequest(clientIp(request)))) {
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [errorMessage('too_many_attempts')] }) },
      { status: errorStatus('too_many_attempts') },
    );
  }

  const { supabase } = getSupabase(request);
  const { error } = await supabase.auth.signInWithOtp({
    email,
    options: { shouldCreateUser: true, emailRedirectTo: signInLink(request, redirectTo) },
  });
  if (!error) {
    await codeSent(email);
    return toVerify(Date.now());
  }

  const mapped = mapAuthError(error);
  // A code went to this address moments ago and no new one now: go on and enter that one (the page
  // says no new code was sent); the countdown shows the wait.
  if (mapped.code === 'code_rate_limited' && mapped.seconds)
    return toVerify(Date.now() - (RESEND_COOLDOWN_SECONDS - mapped.seconds) * 1000, true);
  log.warn('sign-in code not sent', { code: mapped.code, auth_code: error.code, status: error.status });
  const message = mappedMessage(mapped);
  const reply =
    mapped.code === 'email_invalid'
      ? submission.reply({ fieldErrors: { email: [message] } })
      : submission.reply({ formErrors: [message] });
  return dataWithSession(request, { result: reply }, { status: errorStatus(mapped.code) });
}

export default function LoginPage() {
  const { redirectTo, notice } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const result = actionData?.result;

  return (
    <section className="card card--narrow" aria-labelledby="login-title">
      <h1 id="login-title">Sign in to Tend</h1>
      <p className="lead">We'll email you a {OTP_LENGTH}-digit code. No password needed.</p>
      {notice ? (
        <p className="notice notice--warning" role="status">
          {notice}
        </p>
      ) : null}
      {/* The server checks the address and answers with the catalogue message (noValidate). */}
      <Form method="post" id="login" noValidate className="stack">
        <input type="hidden" name="redirectTo" defaultValue={replyValue(result, 'redirectTo') ?? redirectTo} />
        <HoneypotInput />
        <Field
          label="Email address"
          errors={replyErrors(result, 'email')}
          inputProps={{
            id: 'login-email',
            name: 'email',
            type: 'email',
            defaultValue: replyValue(result, 'email'),
            required: true,
            autoComplete: 'email',
            autoFocus: true,
            maxLength: EMAIL_MAX_LENGTH,
            spellCheck: false,
            placeholder: 'you@example.com',
          }}
        />
        <ErrorList id="login-error" errors={replyErrors(result)} />
        <SubmitButton pending={pending}>Email me a code</SubmitButton>
      </Form>
    </section>
  );
}
