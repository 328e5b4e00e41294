// The link in the sign-in email: /auth/confirm?token_hash=…&type=…&next=…, and the one-click link of a
// notification email: /auth/confirm?link=…&next=… (docs/decisions/035-email-sign-in-links.md). GET only
// shows a button; the POST spends the token, so mail scanners that fetch links can't burn it
// (docs/reference/remix-ssr.md §2.4).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, SubmitButton, replyErrors, useIsPending } from '~/components/forms.tsx';
import { mapAuthError, mappedMessage } from '~/lib/errors/from-auth.server.ts';
import { clearPendingLogin, readPendingLogin } from '~/lib/auth/cookies.server.ts';
import { signInWithEmailLink } from '~/lib/auth/email-link.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { dataWithSession, redirectWithSession, readFormData, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { log } from '~/lib/http/log.server.ts';
import { loginPath, safeRedirect } from '~/lib/http/safe-redirect.ts';
import { landingPage } from '~/lib/auth/landing.server.ts';
import { ConfirmSchema, EmailLinkSchema, parseSubmission } from '~/lib/forms/schemas.server.ts';
import { getSupabase } from '~/lib/supabase/client.server.ts';

export const meta: MetaFunction = () => [
  { title: 'Confirm sign-in · Tend' },
  { name: 'description', content: 'Confirm signing in to Tend.' },
  // No Referer to other sites (the URL holds a token); same-origin keeps the POST's Origin, which a
  // no-referrer policy would send as `null` without JavaScript (and requireSameOrigin refuses).
  { name: 'referrer', content: 'same-origin' },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  if ('link' in params) {
    const link = EmailLinkSchema.safeParse(params);
    if (!link.success)
      return dataWithSession(request, { link: null, problem: errorMessage('link_invalid') }, { status: 400 });
    const { next } = link.data;
    return dataWithSession(request, {
      link: { link: link.data.link, next: next ? safeRedirect(next, '') : '' },
      problem: null,
    });
  }
  const parsed = ConfirmSchema.safeParse(params);
  if (!parsed.success)
    return dataWithSession(request, { link: null, problem: errorMessage('code_invalid') }, { status: 400 });
  const { token_hash, type, next } = parsed.data;
  return dataWithSession(request, {
    link: { token_hash, type, next: next ? safeRedirect(next, '') : '' },
    problem: null,
  });
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const form = await readFormData(request);
  return form.has('link') ? spendEmailLink(request, form) : verifyAuthLink(request, form);
}

/** A notification email's link: where it leads comes from the link itself, not from the URL. */
async function spendEmailLink(request: Request, form: FormData) {
  const submission = parseSubmission(form, EmailLinkSchema);
  // A used, expired or unknown link is done with: the page says so instead of offering its button again.
  const refuse = (code: Parameters<typeof errorStatus>[0]) =>
    dataWithSession(
      request,
      { result: submission.reply({ formErrors: [errorMessage(code)] }), spent: code.startsWith('link_') },
      { status: errorStatus(code) },
    );
  if (submission.status !== 'success') return refuse('link_invalid');
  const signedIn = await signInWithEmailLink(request, submission.value.link);
  if (signedIn.code) return refuse(signedIn.code);
  return redirectWithSession(request, signedIn.next, { headers: { 'Set-Cookie': await clearPendingLogin(request) } });
}

/** Auth's own sign-in email link (the template's {{ .RedirectTo }}). */
async function verifyAuthLink(request: Request, form: FormData) {
  const submission = parseSubmission(form, ConfirmSchema);
  if (submission.status !== 'success')
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [errorMessage('code_invalid')] }) },
      { status: 400 },
    );

  const { token_hash, type, next } = submission.value;
  const { supabase } = getSupabase(request);
  const { data: verified, error } = await supabase.auth.verifyOtp({ token_hash, type });
  if (error) {
    const mapped = mapAuthError(error);
    if (mapped.code !== 'code_invalid')
      log.warn('link sign-in failed', { code: mapped.code, auth_code: error.code, status: error.status });
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mappedMessage(mapped)] }) },
      { status: errorStatus(mapped.code) },
    );
  }
  // The email link has no `next` of its own; in the browser that asked for it, go where sign-in started.
  const pending = await readPendingLogin(request);
  const to = await landingPage(request, safeRedirect(next || pending?.redirectTo, '/'), verified.user);
  return redirectWithSession(request, to, { headers: { 'Set-Cookie': await clearPendingLogin(request) } });
}

export default function ConfirmPage() {
  const loaded = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const spent = actionData && 'spent' in actionData && actionData.spent ? replyErrors(actionData.result) : undefined;
  const link = spent ? null : loaded.link;
  const problem = spent?.[0] ?? loaded.problem;

  return (
    <section className="card card--narrow" aria-labelledby="confirm-title">
      <h1 id="confirm-title">Sign in to Tend</h1>
      {link ? (
        <>
          <p className="lead">Press the button to finish signing in on this device.</p>
          <Form method="post" id="confirm" noValidate className="stack">
            {'link' in link ? (
              <input type="hidden" name="link" value={link.link} />
            ) : (
              <>
                <input type="hidden" name="token_hash" value={link.token_hash} />
                <input type="hidden" name="type" value={link.type} />
              </>
            )}
            <input type="hidden" name="next" value={link.next} />
            <ErrorList id="confirm-error" errors={replyErrors(actionData?.result)} />
            <SubmitButton pending={pending}>Confirm sign-in</SubmitButton>
          </Form>
        </>
      ) : (
        <p className="notice notice--error" role="alert">
          {problem}
        </p>
      )}
      <p className="muted">
        {/* An invitation's link outlives its 10-minute code: a new code still leads on to `next`. */}
        <Link to={loginPath(loaded.link?.next)}>Sign in with a new code instead</Link>
      </p>
    </section>
  );
}
