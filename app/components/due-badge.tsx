// A ticket's running promise, as the loader worded it (app/lib/promises/due.ts): the inbox row and
// the ticket header. Plain text from the server, so it costs the page almost no JavaScript.
import type { DueBadge as Due } from '~/lib/promises/due.ts';

export function DueBadge({ due }: { due: Due }) {
  return (
    <span className={`pr-due pr-due--${due.tone}`} title={`Due ${due.when}`} data-testid="due">
      {due.text}
    </span>
  );
}
