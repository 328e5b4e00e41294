// Form schemas (docs/product.md §5), used by every action through Conform's parseWithZod. Server-only
// to keep zod out of the browser (docs/decisions/006-javascript-budget.md); the browser gets the
// same rules as HTML constraints. The database repeats them as check constraints.
import { parseWithZod } from '@conform-to/zod/v4';
import { z } from 'zod';
import { DISPLAY_NAME_MAX_LENGTH, EMAIL_MAX_LENGTH } from '../constants.ts';
import { errorMessage } from '../errors/catalogue.server.ts';
import { CODE_PATTERN, HONEYPOT_FIELD, normalizeCode } from './fields.ts';

const emailMessage = errorMessage('email_invalid');
const codeMessage = errorMessage('code_invalid');

/** Trimmed, lower-cased, at most 254 characters, a valid address. */
export const EmailSchema = z
  .string({ error: emailMessage })
  .trim()
  .toLowerCase()
  .max(EMAIL_MAX_LENGTH, { error: emailMessage })
  .check(z.email({ error: emailMessage }));

export const CodeSchema = z.preprocess(
  (v) => (typeof v === 'string' ? normalizeCode(v) : v),
  z.string({ error: codeMessage }).regex(new RegExp(`^${CODE_PATTERN}$`), { error: codeMessage }),
);

/** A redirect target from the user; checked again with safeRedirect() where it is used. */
const RedirectToSchema = z.string().max(2048).optional();

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
  // Hex SHA-224, `pkce_`-prefixed in the PKCE flow (docs/reference/auth.md): URL-safe characters only,
  // so nothing else (a NUL, say) goes on to the Auth server.
  token_hash: z.string().regex(/^[A-Za-z0-9_-]{1,512}$/),
  type: z.enum(['email', 'magiclink', 'signup', 'invite', 'recovery', 'email_change']),
  next: RedirectToSchema,
});

/** The one-click link of a notification email (/auth/confirm?link=…&next=…): its token, 43 base64url characters. */
export const EmailLinkSchema = z.object({
  link: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  next: RedirectToSchema,
});

const displayNameMessage = errorMessage('display_name_invalid');

export const DisplayNameSchema = z
  .string({ error: displayNameMessage })
  .trim()
  .min(1, { error: displayNameMessage })
  .max(DISPLAY_NAME_MAX_LENGTH, { error: displayNameMessage });

export const AccountSchema = z.object({ displayName: DisplayNameSchema });

/** Conform's submission for a form posted to an action. */
export function parseSubmission<S extends z.ZodType>(formData: FormData, schema: S) {
  return parseWithZod(formData, { schema });
}
