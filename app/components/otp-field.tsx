// The one-time-code input (docs/product.md §5). Server-rendered (and without JavaScript) it is one
// plain numeric input; once hydrated it becomes input-otp's six boxes over the same named input,
// which drops non-digits from a paste and submits the form when the sixth digit arrives.
// Digits typed before the JavaScript arrived are carried over to the boxes.
import { OTPInput, OTPInputContext, REGEXP_ONLY_DIGITS } from 'input-otp';
import { useContext, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { OTP_LENGTH } from '~/lib/constants.ts';
import { CODE_INPUT_MAX_LENGTH, CODE_INPUT_PATTERN, normalizeCode } from '~/lib/forms/fields.ts';
import { useHydrated } from './form-controls.tsx';

// The server renders no effects; React warns for a layout effect there, so the server gets a plain one.
const useHydrationLayoutEffect = typeof document === 'undefined' ? useEffect : useLayoutEffect;

interface OtpFieldProps {
  id: string;
  name: string;
  describedBy?: string;
  invalid?: boolean;
  /** Submit the surrounding form once all digits are entered (JavaScript only). */
  autoSubmit?: boolean;
}

function Slots() {
  const { slots } = useContext(OTPInputContext);
  return (
    <div className="otp__slots">
      {slots.map((slot, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a slot is its position in the code
        <div key={i} className="otp__slot" data-active={slot.isActive || undefined}>
          {slot.char ?? slot.placeholderChar}
          {slot.hasFakeCaret ? <span className="otp__caret" /> : null}
        </div>
      ))}
    </div>
  );
}

export function OtpField({ id, name, describedBy, invalid, autoSubmit = true }: OtpFieldProps) {
  const hydrated = useHydrated();
  const ref = useRef<HTMLInputElement>(null);
  const plainRef = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState('');
  const carried = useRef(false);

  // Runs in the hydration commit, before the swap to the boxes re-renders: keep what was typed.
  useHydrationLayoutEffect(() => {
    const typed = normalizeCode(plainRef.current?.value ?? '').slice(0, OTP_LENGTH);
    if (typed) {
      carried.current = typed.length === OTP_LENGTH;
      setValue(typed);
    }
  }, []);
  // A complete code typed before hydration is submitted as soon as the boxes are there.
  useEffect(() => {
    if (hydrated && carried.current && autoSubmit) {
      carried.current = false;
      ref.current?.form?.requestSubmit();
    }
  }, [hydrated, autoSubmit]);
  const common = {
    id,
    name,
    required: true,
    autoComplete: 'one-time-code',
    inputMode: 'numeric' as const,
    maxLength: OTP_LENGTH,
    'aria-invalid': invalid || undefined,
    'aria-describedby': describedBy,
  };

  if (!hydrated) {
    return (
      <input
        {...common}
        ref={plainRef}
        type="text"
        maxLength={CODE_INPUT_MAX_LENGTH}
        pattern={CODE_INPUT_PATTERN}
        className="input input--code"
        spellCheck={false}
      />
    );
  }
  return (
    <OTPInput
      {...common}
      ref={ref}
      value={value}
      onChange={setValue}
      autoFocus
      pattern={REGEXP_ONLY_DIGITS}
      pasteTransformer={normalizeCode}
      noScriptCSSFallback={null}
      containerClassName="otp"
      onComplete={() => {
        if (autoSubmit) ref.current?.form?.requestSubmit();
      }}
    >
      <Slots />
    </OTPInput>
  );
}
