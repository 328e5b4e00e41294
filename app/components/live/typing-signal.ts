// The composer's keystrokes as typing signals, loaded on demand by the agent's ticket page (its
// JavaScript budget, docs/decisions/006-javascript-budget.md). Imports nothing: its own small chunk.

/** At most one typing signal per this while the agent types. */
export const TYPING_SIGNAL_EVERY_MS = 2_000;

/** The composer's text field and its kind radios (the route's form.hd-composer). */
const COMPOSER = 'form.hd-composer';

/**
 * Calls `send` as the agent types in the composer, at most once per TYPING_SIGNAL_EVERY_MS; a switch
 * between reply and note, or a new message after sending one, is told at once. Returns the way to stop.
 */
export function listenForTyping(send: (kind: 'reply' | 'note') => boolean): () => void {
  let last = 0;
  let lastKind: string | null = null;
  const onInput = (event: Event) => {
    const field = event.target as HTMLElement;
    const form = field.closest?.(COMPOSER) as HTMLFormElement | null;
    if (!form || field.tagName !== 'TEXTAREA') return;
    const kind = (form.elements.namedItem('kind') as RadioNodeList | null)?.value === 'note' ? 'note' : 'reply';
    if ((kind === lastKind && Date.now() - last < TYPING_SIGNAL_EVERY_MS) || !send(kind)) return;
    last = Date.now();
    lastKind = kind;
  };
  const onSubmit = (event: Event) => {
    if ((event.target as HTMLElement).closest?.(COMPOSER)) lastKind = null;
  };
  document.addEventListener('input', onInput);
  document.addEventListener('submit', onSubmit);
  return () => {
    document.removeEventListener('input', onInput);
    document.removeEventListener('submit', onSubmit);
  };
}
