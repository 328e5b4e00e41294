// A message box (the composer, the requester's reply, a new request). Nothing typed or pasted is cut:
// near the limit a counter appears (with JavaScript; read out politely), past it it turns into the
// catalogue's error, and the server refuses a longer message with the same words, the text kept.
// With `keep`, what is typed is also kept in this browser until it is sent (kept-draft.ts).
import { type TextareaHTMLAttributes, useEffect, useState } from 'react';
import { FieldFrame } from '~/components/forms.tsx';
import { MESSAGE_COUNTER_FROM, MESSAGE_MAX_LENGTH } from '~/lib/constants.ts';
import { errorMessage } from '~/lib/errors/catalogue.ts';

const count = (n: number) => n.toLocaleString('en');

export function MessageField({
  id,
  label,
  hint,
  errors,
  describedBy,
  defaultValue = '',
  keep,
  ...props
}: {
  id: string;
  label: string;
  hint?: string;
  errors?: string[];
  /** More text that describes the box (the composer's note banner). */
  describedBy?: string;
  defaultValue?: string;
  /** The draft's key in this browser (one per ticket), and how many of my messages the thread holds. */
  keep?: { key: string; sent: number };
} & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'defaultValue' | 'maxLength' | 'id'>) {
  const [length, setLength] = useState(defaultValue.length);
  const over = length > MESSAGE_MAX_LENGTH;
  const { key, sent } = keep ?? {};
  useEffect(() => {
    let stop: (() => void) | undefined;
    let gone = false;
    if (key)
      void import('./kept-draft.ts').then(({ keepDraft }) => {
        const field = document.getElementById(id);
        if (!gone && field instanceof HTMLTextAreaElement) stop = keepDraft(field, key, sent ?? 0);
      });
    return () => {
      gone = true;
      stop?.();
    };
  }, [id, key, sent]);
  return (
    <FieldFrame id={id} label={label} hint={hint} errors={errors}>
      {(aria) => (
        <>
          <textarea
            {...props}
            id={id}
            defaultValue={defaultValue}
            className="input hd-textarea"
            aria-invalid={aria['aria-invalid'] || (over ? true : undefined)}
            aria-describedby={[describedBy, aria['aria-describedby'], `${id}-counter`].filter(Boolean).join(' ')}
            onInput={(event) => setLength(event.currentTarget.value.length)}
          />
          <p
            id={`${id}-counter`}
            className={over ? 'hd-counter hd-counter--over' : 'hd-counter'}
            aria-live="polite"
            data-testid={`${id}-counter`}
          >
            {length < MESSAGE_COUNTER_FROM
              ? null
              : `${count(length)} of ${count(MESSAGE_MAX_LENGTH)} characters${over ? `. ${errorMessage('message_too_long')}` : ''}`}
          </p>
        </>
      )}
    </FieldFrame>
  );
}
