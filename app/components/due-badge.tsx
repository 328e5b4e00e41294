// A ticket's running promise, as the loader worded it (app/lib/promises/due.ts): the inbox row and
// the ticket header. Plain text from the server, so it costs the page almost no JavaScript.
import { html } from '~/lib/markup.ts';
import type { DueBadge as Due } from '~/lib/promises/due.ts';

export function DueBadge({ due }: { due: Due }) {
  return (
    <span className={`pr-due pr-due--${due.tone}`} title={`Due ${due.when}`} data-testid="due">
      {due.text}
    </span>
  );
}

/** DueBadge's markup, for rows written as markup (docs/decisions/115-rows-as-markup.md). */
export const dueBadgeHtml = (due: Due) =>
  html`<span class="pr-due pr-due--${due.tone}" title="Due ${due.when}" data-testid="due">${due.text}</span>`;
