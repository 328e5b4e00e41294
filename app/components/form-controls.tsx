// Form pieces that need no Remix runtime, so island pages (docs/decisions/006-javascript-budget.md)
// can hydrate them too: the error list, the submit button that shows progress, and the pending
// state of a form that posts as a plain HTML form. forms.tsx re-exports the first two.
import { useEffect, useRef, useState, type ButtonHTMLAttributes, type FormEvent, type ReactNode } from 'react';

export function ErrorList({ id, errors }: { id?: string; errors?: string[] | null }) {
  const list = errors?.filter(Boolean) ?? [];
  if (!list.length) return null;
  return (
    <div id={id} className="error-list" role="alert">
      {list.map((e) => (
        <p key={e}>{e}</p>
      ))}
    </div>
  );
}

export function SubmitButton({
  pending,
  children,
  className = 'button',
  ...props
}: { pending?: boolean; children: ReactNode; className?: string } & ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button type="submit" className={className} aria-disabled={pending || undefined} {...props}>
      {children}
      {pending ? <span className="spinner" aria-hidden="true" /> : null}
    </button>
  );
}

/** A form that was sent may be sent again after this long (the user stopped the page load). */
const RESUBMIT_AFTER_MS = 10_000;

/**
 * A plain HTML form's submit, once: `pending` from the submit until the next document arrives,
 * and a second submit meanwhile (a click on the button while the code field submits itself) is
 * dropped. The browser would cancel the first request for the second, and a sign-in code works once.
 */
export function useSubmitOnce(): { pending: boolean; onSubmit: (event: FormEvent<HTMLFormElement>) => void } {
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
