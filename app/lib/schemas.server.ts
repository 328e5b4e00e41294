// Form schemas (product.md §5), shared by the browser (Conform) and the server (actions).
// The database repeats the rules as check constraints; these give the messages.
import { z } from 'zod';
import { DISPLAY_NAME_MAX_LENGTH, EMAIL_MAX_LENGTH, OTP_LENGTH } from './constants.ts';
import { errorMessage } from './errors.ts';

const emailMessage = errorMessage('email_invalid');
const codeMessage = errorMessage('code_invalid');

/** Trimmed, lower-cased, at most 254 characters, a valid address. */
export const EmailSchema = z
  .string({ error: emailMessage })
  .trim()
  .toLowerCase()
  .max(EMAIL_MAX_LENGTH, { error: emailMessage })
  .check(z.email({ error: emailMessage }));

/** Anything that is not a digit is dropped first, so a pasted "123 456" is "123456". */
export function normalizeCode(value: string): string {
  return value.replace(/\D/g, '');
}

export const CODE_PATTERN = `[0-9]{${OTP_LENGTH}}`;

export const CodeSchema = z.preprocess(
  (v) => (typeof v === 'string' ? normalizeCode(v) : v),
  z.string({ error: codeMessage }).regex(new RegExp(`^${CODE_PATTERN}$`), { error: codeMessage }),
);

/** A redirect target from the user; checked again with safeRedirect() where it is used. */
const RedirectToSchema = z.string().max(2048).optional();

/** The honeypot: people never see it, so it stays empty (docs/decisions/004-abuse-limits.md). */
export const HONEYPOT_FIELD = 'company';

export const LoginSchema = z.object({
  email: EmailSchema,
  redirectTo: RedirectToSchema,
  [HONEYPOT_FIELD]: z.string().optional(),
});

export const VerifySchema = z.object({
  intent: z.literal('verify'),
  code: CodeSchema,
});

export const ResendSchema = z.object({
  intent: z.literal('resend'),
});

export const ConfirmSchema = z.object({
  token_hash: z.string().min(1).max(512),
  type: z.enum(['email', 'magiclink', 'signup', 'invite', 'recovery', 'email_change']),
  next: RedirectToSchema,
});

const displayNameMessage = errorMessage('display_name_invalid');

export const DisplayNameSchema = z
  .string({ error: displayNameMessage })
  .trim()
  .min(1, { error: displayNameMessage })
  .max(DISPLAY_NAME_MAX_LENGTH, { error: displayNameMessage });

export const AccountSchema = z.object({ displayName: DisplayNameSchema });
