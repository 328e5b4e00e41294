// Form pieces shared by every route: labelled fields (input, textarea, select) with their errors, a
// submit button that shows progress, the honeypot, the reading of an action's reply, and the answer
// to a form the network failed to send (OFFLINE).
import { useFormAction, useNavigation } from '@remix-run/react';
import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import { HONEYPOT_FIELD } from '~/lib/forms/fields.ts';
import { ErrorList } from './form-controls.tsx';

// Also usable without Remix's runtime (islands), so they live in form-controls.tsx.
export { ErrorList, SubmitButton } from './form-controls.tsx';

/**
 * An action's answer to a form: Conform's `submission.reply()` from schemas.server.ts. Pages read
 * it with the two helpers below instead of Conform's client, which would add ~9 KB gzip to every
 * page with a form (docs/decisions/006-javascript-budget.md). Errors under '' are the form's own.
 */
export interface FormReply {
  initialValue?: Record<string, unknown> | null;
  error?: Record<string, string[] | null | undefined> | null;
}

/** The messages for one field (or the form's own, name ''), undefined when there are none. */
export function replyErrors(reply: FormReply | null | undefined, name = ''): string[] | undefined {
  const list = reply?.error?.[name]?.filter(Boolean);
  return list?.length ? list : undefined;
}

/**
 * The errors shown at the top of a form: its own, and those of fields a person can't get wrong
 * (the submit button's intent, a radio or select value), which only a hand-made request has.
 */
export function replyFormErrors(reply: FormReply | null | undefined, ...fixedFields: string[]): string[] | undefined {
  const list = ['', 'intent', ...fixedFields].flatMap((name) => replyErrors(reply, name) ?? []);
  return list.length ? [...new Set(list)] : undefined;
}

/**
 * A form sent while the network is down (docs/product.md §4). Remix would turn the failed request
 * into the error page, and the page and the typed text with it; a route's clientAction answers
 * OFFLINE instead, the routes' shouldRevalidate (the root's too) skip the reload that would fail the
 * same way, and the page stays as it was, saying so (the catalogue's `offline`) above its form.
 */
export const OFFLINE = { offline: true } as const;

/** The server's answer, or OFFLINE when it could not be asked (fetch's TypeError). */
export const sendOrKeep = <T,>(serverAction: () => Promise<T>) =>
  serverAction().catch((error) => {
    if (error instanceof TypeError) return OFFLINE;
    throw error;
  });

export const isOffline = (result: unknown): result is typeof OFFLINE =>
  !!(result as Partial<typeof OFFLINE> | null)?.offline;

/** What the user had typed into a field, sent back so the page keeps it (also without JavaScript). */
export function replyValue(reply: FormReply | null | undefined, name: string): string | undefined {
  const value = reply?.initialValue?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** What a control needs to name its hint and errors to screen readers (FieldFrame passes it). */
export interface FieldAria {
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

/** A label, an optional hint and the field's errors around one control (input, textarea). */
export function FieldFrame({
  id,
  label,
  hint,
  errors,
  children,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  errors?: string[];
  children: (aria: FieldAria) => ReactNode;
}) {
  const errorId = errors?.length ? `${id}-error` : undefined;
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      {children({
        'aria-invalid': errorId ? true : undefined,
        'aria-describedby': [hintId, errorId].filter(Boolean).join(' ') || undefined,
      })}
      <ErrorList id={errorId} errors={errors} />
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
  const { key, ...rest } = inputProps;
  return (
    <FieldFrame id={id} label={label} hint={hint} errors={errors}>
      {(aria) => <input key={key} {...rest} id={id} className="input" {...aria} />}
    </FieldFrame>
  );
}

/** True while this form (same action URL and method) is being submitted. */
export function useIsPending({
  formAction,
  formMethod = 'POST',
}: {
  formAction?: string;
  formMethod?: 'POST' | 'GET';
} = {}) {
  const contextualAction = useFormAction();
  const navigation = useNavigation();
  return (
    navigation.state !== 'idle' &&
    navigation.formAction === (formAction ?? contextualAction) &&
    navigation.formMethod === formMethod
  );
}

/** People never see or fill this field; form-filling bots do (docs/decisions/003-abuse-limits.md). */
export function HoneypotInput() {
  return (
    <div className="honeypot" aria-hidden="true">
      <label htmlFor={`hp-${HONEYPOT_FIELD}`}>Leave this field empty</label>
      <input
        id={`hp-${HONEYPOT_FIELD}`}
        name={HONEYPOT_FIELD}
        type="text"
        tabIndex={-1}
        autoComplete="off"
        defaultValue=""
      />
    </div>
  );
}

export function TextareaField({
  id,
  label,
  errors,
  hint,
  ...props
}: {
  id: string;
  label: ReactNode;
  errors?: string[];
  hint?: ReactNode;
} & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <FieldFrame id={id} label={label} hint={hint} errors={errors}>
      {(aria) => <textarea {...props} id={id} className="input hd-textarea" {...aria} />}
    </FieldFrame>
  );
}

export function SelectField({
  id,
  label,
  children,
  ...props
}: { id: string; label: ReactNode; children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select {...props} id={id} className="input">
        {children}
      </select>
    </div>
  );
}
