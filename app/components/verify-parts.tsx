// The interactive parts of /login/verify: the code form (six boxes, auto-submit) and the resend
// options (cooldown counting down). The route renders them on the server; its island,
// app/islands/verify.tsx, hydrates them without Remix's runtime (docs/decisions/006-javascript-budget.md).
// Both forms post as plain HTML forms: the answer is the action's document or its redirect.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import { ErrorList, SubmitButton, useHydrated } from './form-controls.tsx';
import { OtpField } from './otp-field.tsx';

/** A form that was sent may be sent again after this long (the user stopped the page load). */
const RESUBMIT_AFTER_MS = 10_000;

/**
 * A plain HTML form's submit, once: `pending` from the submit until the next document arrives,
 * and a second submit meanwhile (a click on the button while the code field submits itself) is
 * dropped. The browser would cancel the first request for the second, and a sign-in code works once.
 */
function useSubmitOnce(): { pending: boolean; onSubmit: (event: FormEvent<HTMLFormElement>) => void } {
  const [pending, setPending] = useState(false);
  const sent = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  // Refs and a state setter only: the same function whichever render made it.
  const release = () => {
    clearTimeout(timer.current);
    sent.current = false;
    setPending(false);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: release touches refs and a state setter only
  useEffect(() => {
    // Back on this page from the browser's back/forward cache: the form can be sent again.
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) release();
    };
    window.addEventListener('pageshow', onPageShow);
    return () => {
      window.removeEventListener('pageshow', onPageShow);
      clearTimeout(timer.current);
    };
  }, []);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    if (sent.current) {
      event.preventDefault();
      return;
    }
    sent.current = true;
    setPending(true);
    timer.current = setTimeout(release, RESUBMIT_AFTER_MS);
  };
  return { pending, onSubmit };
}

/** Seconds left, counting down once per second after hydration (the server knows the start). */
function useCountdown(seconds: number): number {
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    setLeft(seconds);
    if (seconds <= 0) return;
    const startedAt = Date.now();
    const timer = setInterval(() => {
      const next = Math.max(0, seconds - Math.floor((Date.now() - startedAt) / 1000));
      setLeft(next);
      if (next === 0) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [seconds]);
  return left;
}

/** The code and its error; the code is never sent back, so a new attempt starts from empty boxes. */
export function VerifyCodeForm({ errors }: { errors?: string[] }) {
  const { pending, onSubmit } = useSubmitOnce();
  const errorId = errors ? 'verify-code-error' : undefined;
  return (
    <form method="post" id="verify" noValidate className="stack" onSubmit={onSubmit}>
      <input type="hidden" name="intent" value="verify" />
      <div className="field">
        <label htmlFor="verify-code">Sign-in code</label>
        <OtpField id="verify-code" name="code" invalid={!!errorId} describedBy={errorId} />
        <ErrorList id={errorId} errors={errors} />
      </div>
      <SubmitButton pending={pending}>Sign in</SubmitButton>
    </form>
  );
}

/**
 * "Send a new code" (disabled while the cooldown runs, once JavaScript does: without it the
 * server answers a click with the seconds left), the countdown, and the way back to the email step.
 */
export function VerifyOptions({
  cooldown,
  errors,
  differentEmailHref,
}: {
  cooldown: number;
  errors?: string[];
  differentEmailHref: string;
}) {
  const hydrated = useHydrated();
  const secondsLeft = useCountdown(cooldown);
  const { pending, onSubmit } = useSubmitOnce();
  return (
    <>
      <form method="post" id="resend" noValidate className="inline-form" onSubmit={onSubmit}>
        <input type="hidden" name="intent" value="resend" />
        <SubmitButton className="button button--secondary" pending={pending} disabled={hydrated && secondsLeft > 0}>
          Send a new code
        </SubmitButton>
      </form>
      {secondsLeft > 0 ? (
        <p className="muted small" data-testid="resend-cooldown">
          {errorMessage('code_rate_limited', { seconds: secondsLeft })}
        </p>
      ) : null}
      <ErrorList id="resend-error" errors={errors} />
      <p>
        <a href={differentEmailHref}>Use a different email</a>
      </p>
    </>
  );
}

/** What app/islands/verify.tsx hydrates, by the names the route gives its <Island> markers. */
export const verifyIslands = { code: VerifyCodeForm, options: VerifyOptions };
