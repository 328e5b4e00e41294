// A message box (the composer, the requester's reply, a new request). Nothing typed or pasted is cut:
// near the limit a counter appears (with JavaScript; read out politely), past it it turns into the
// catalogue's error, and the server refuses a longer message with the same words, the text kept.
import { type TextareaHTMLAttributes, useState } from 'react';
import { ErrorList } from '~/components/form-controls.tsx';
import { MESSAGE_COUNTER_FROM, MESSAGE_MAX_LENGTH } from '~/lib/constants.ts';
import { errorMessage } from '~/lib/errors/catalogue.ts';

const count = new Intl.NumberFormat('en');

export function MessageField({
  id,
  label,
  hint,
  errors,
  describedBy,
  defaultValue = '',
  ...props
}: {
  id: string;
  label: string;
  hint?: string;
  errors?: string[];
  /** More text that describes the box (the composer's note banner). */
  describedBy?: string;
  defaultValue?: string;
} & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'defaultValue' | 'maxLength' | 'id'>) {
  const [length, setLength] = useState(defaultValue.length);
  const over = length > MESSAGE_MAX_LENGTH;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const counterId = `${id}-counter`;
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      <textarea
        {...props}
        id={id}
        defaultValue={defaultValue}
        className="input hd-textarea"
        aria-invalid={errorId || over ? true : undefined}
        aria-describedby={[describedBy, hintId, counterId, errorId].filter(Boolean).join(' ')}
        onInput={(event) => setLength(event.currentTarget.value.length)}
      />
      <p
        id={counterId}
        className={`hd-counter small${over ? ' hd-counter--over' : ''}`}
        aria-live="polite"
        data-testid={`${id}-counter`}
      >
        {length >= MESSAGE_COUNTER_FROM
          ? `${count.format(length)} of ${count.format(MESSAGE_MAX_LENGTH)} characters${over ? `. ${errorMessage('message_too_long')}` : ''}`
          : null}
      </p>
      <ErrorList id={errorId} errors={errors} />
    </div>
  );
}
