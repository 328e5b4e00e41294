// A subject longer than a ticket takes (docs/product.md §5), as a new request (the portal's, or an email's)
// handles it: cut after the last whole word that fits, the rest kept for the top of the message, so no
// text is lost out of sight. Plain TypeScript: the app and the edge functions share it.
import { SUBJECT_MAX_LENGTH } from './limits.ts';

/** `subject` as it fits (after its last whole word within `max`), and what was cut off (trimmed). */
export function cutSubject(subject: string, max = SUBJECT_MAX_LENGTH): { subject: string; rest: string } {
  const text = subject.trim();
  if (text.length <= max) return { subject: text, rest: '' };
  // The last space within the limit, or the one right after it (a word ending at the limit).
  const space = text.slice(0, max + 1).search(/\s\S*$/);
  // One word longer than the limit: cut inside it, never between the two halves of a character.
  let end = space > 0 ? space : max;
  if (space <= 0 && /[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end -= 1;
  return { subject: text.slice(0, end).trimEnd(), rest: text.slice(end).trim() };
}

/** The message with the subject's cut-off part at its top. */
export const withRest = (rest: string, body: string) => (body.trim() ? `${rest}\n\n${body}` : rest);
