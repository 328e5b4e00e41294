// Articles that may answer a request, on /support/:slug/new (docs/product.md#the-help-center-public). With JavaScript
// they follow the subject as it is typed (debounced, from …/help/suggest); without it the server shows
// them after the first "Submit request" with "My question is answered" / "Send my request anyway".
// Each opens in a new tab, so the request being written stays; opening one records the click.
import { useRef, useState, type ChangeEvent } from 'react';
import { HELP_SUGGESTIONS } from '~/lib/help/limits.ts';
import type { SuggestedArticle } from '~/lib/help/articles.ts';

/** How long typing must pause before asking. */
const DEBOUNCE_MS = 300;
const MIN_QUERY = 3;

export function SuggestionList({ suggestions }: { suggestions: SuggestedArticle[] }) {
  return (
    <ul className="help-suggestions" data-testid="suggestions">
      {suggestions.slice(0, HELP_SUGGESTIONS).map((s) => (
        <li key={s.id}>
          <a href={s.href} target="_blank" rel="noopener">
            {s.title}
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
          {s.snippet ? <p className="muted small">{s.snippet}</p> : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * The subject's live suggestions: `onSubjectChange` goes on the subject input; `panel` is what to
 * show under it (a polite live region, empty until there is something to say).
 */
export function useSubjectSuggestions(slug: string) {
  const [suggestions, setSuggestions] = useState<SuggestedArticle[]>([]);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const inflight = useRef<AbortController>();

  const onSubjectChange = (event: ChangeEvent<HTMLInputElement>) => {
    const query = event.currentTarget.value.trimStart();
    clearTimeout(timer.current);
    timer.current = setTimeout(async () => {
      inflight.current?.abort();
      if (query.trim().length < MIN_QUERY) return setSuggestions([]);
      const controller = new AbortController();
      inflight.current = controller;
      try {
        const res = await fetch(`/support/${slug}/help/suggest?q=${encodeURIComponent(query)}`, {
          signal: controller.signal,
        });
        if (res.ok) setSuggestions(((await res.json()) as { suggestions: SuggestedArticle[] }).suggestions);
      } catch {
        // Offline or superseded: the form works without suggestions.
      }
    }, DEBOUNCE_MS);
  };

  const panel = (
    <div aria-live="polite" className="help-suggest-panel">
      {suggestions.length ? (
        <div className="notice">
          <p>
            <strong>These articles may answer your question:</strong>
          </p>
          <SuggestionList suggestions={suggestions} />
        </div>
      ) : null}
    </div>
  );
  return { onSubjectChange, panel };
}
