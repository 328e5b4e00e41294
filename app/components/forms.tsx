// Form pieces shared by every route: labelled fields with their errors, a submit button that
// shows progress, and the honeypot.
import { useFormAction, useNavigation } from '@remix-run/react';
import { useId, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode } from 'react';
import { HONEYPOT_FIELD } from '~/lib/form-fields.ts';

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

export function Field({
  label,
  hint,
  errors,
  inputProps,
}: {
  label: ReactNode;
  hint?: ReactNode;
  errors?: string[];
  inputProps: InputHTMLAttributes<HTMLInputElement> & { key?: string };
}) {
  const fallbackId = useId();
  const id = inputProps.id ?? fallbackId;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const hintId = hint ? `${id}-hint` : undefined;
  const { key, ...rest } = inputProps;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      <input
        key={key}
        {...rest}
        id={id}
        className="input"
        aria-invalid={errorId ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
      />
      <ErrorList id={errorId} errors={errors} />
    </div>
  );
}

/** True while this form (same action URL and method) is being submitted. */
export function useIsPending({ formAction, formMethod = 'POST' }: { formAction?: string; formMethod?: 'POST' | 'GET' } = {}) {
  const contextualAction = useFormAction();
  const navigation = useNavigation();
  return navigation.state !== 'idle' && navigation.formAction === (formAction ?? contextualAction) && navigation.formMethod === formMethod;
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

/** People never see or fill this field; form-filling bots do (docs/decisions/003-abuse-limits.md). */
export function HoneypotInput() {
  return (
    <div className="honeypot" aria-hidden="true">
      <label htmlFor={`hp-${HONEYPOT_FIELD}`}>Leave this field empty</label>
      <input id={`hp-${HONEYPOT_FIELD}`} name={HONEYPOT_FIELD} type="text" tabIndex={-1} autoComplete="off" defaultValue="" />
    </div>
  );
}
