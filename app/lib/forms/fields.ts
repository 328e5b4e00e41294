// Field names and input rules the browser needs without zod (schemas.server.ts holds the zod
// schemas; keeping zod out of the browser bundle is docs/decisions/006-javascript-budget.md).
import { OTP_LENGTH } from '../constants.ts';

/** The honeypot: people never see it, so it stays empty (docs/decisions/003-abuse-limits.md). */
export const HONEYPOT_FIELD = 'company';

/** The code input's HTML pattern (docs/product.md §5). */
export const CODE_PATTERN = `[0-9]{${OTP_LENGTH}}`;

/**
 * The plain (no JavaScript) code input: room and a pattern for a code pasted with spaces or a dash
 * ("123 456"); the server strips them (normalizeCode), so nothing is cut off at six characters.
 */
export const CODE_INPUT_MAX_LENGTH = OTP_LENGTH * 3;
export const CODE_INPUT_PATTERN = `[^0-9]*([0-9][^0-9]*){${OTP_LENGTH}}`;

/** Anything that is not a digit is dropped, so a pasted "123 456" is "123456". */
export function normalizeCode(value: string): string {
  return value.replace(/\D/g, '');
}

/** A workspace address (its slug): lower-case letters and digits in hyphen-joined runs (HTML pattern). */
export const SLUG_PATTERN = '[a-z0-9]+(-[a-z0-9]+)*';
export const SLUG_MIN_LENGTH = 3;
export const SLUG_MAX_LENGTH = 40;
const SLUG_RE = new RegExp(`^(?:${SLUG_PATTERN})$`);
/** Whether a value from a URL could be a workspace's slug at all (else: not found, without a query). */
export const isWorkspaceSlug = (slug: string) =>
  slug.length >= SLUG_MIN_LENGTH && slug.length <= SLUG_MAX_LENGTH && SLUG_RE.test(slug);
