// Keyboard shortcuts for agents (docs/product.md §2), and their help sheet behind `?` (a modal
// <dialog>: focus moves in and back, Escape closes it). A page marks what a key acts on:
// `data-shortcut="c"` (clicked), `data-shortcut="/"` (focused), `data-shortcut-list` (its rows:
// j/k select, Enter/o open the row's link); the composer's radios (r, n) by their name. Keys never
// act while the agent types in a field or holds Ctrl, Alt or Meta.
import { useNavigate } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { useHydrated } from '~/components/use-hydrated.ts';

const KEYS: [keys: string, what: string][] = [
  ['j / k', 'Inbox: select the next / previous request'],
  ['Enter / o', 'Inbox: open the selected request'],
  ['/', 'Inbox: search'],
  ['c', 'Inbox: claim the next request'],
  ['r', 'Ticket: reply to the customer'],
  ['n', 'Ticket: write an internal note'],
  ['g then i', 'Go to the inbox'],
  ['?', 'Show these shortcuts'],
];

/** After `g`, the next key counts for this long. */
const SEQUENCE_MS = 1500;

function typing(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || !!target.closest('input, textarea, select, [contenteditable="true"]'))
  );
}

/** The rows j/k move through, and the one holding the focus (else the last one selected). */
function moveSelection(step: 1 | -1, last: { current: number }) {
  const rows = [...document.querySelectorAll<HTMLElement>('[data-shortcut-list] > *')];
  if (!rows.length) return;
  const focused = rows.findIndex((row) => row.contains(document.activeElement));
  const from = focused >= 0 ? focused : last.current;
  const next = from < 0 ? 0 : Math.min(rows.length - 1, Math.max(0, from + step));
  last.current = next;
  rows[next].querySelector<HTMLElement>('a[href]')?.focus();
}

/** The composer in reply or note mode, its message box focused. */
function compose(kind: 'reply' | 'note') {
  const radio = document.querySelector<HTMLInputElement>(`input[name="kind"][value="${kind}"]`);
  if (!radio) return;
  radio.checked = true;
  radio.form?.querySelector<HTMLTextAreaElement>('textarea')?.focus();
}

export function Shortcuts({ inbox }: { inbox: string }) {
  const navigate = useNavigate();
  const dialog = useRef<HTMLDialogElement>(null);
  const hydrated = useHydrated();
  const selected = useRef(-1);
  useEffect(() => {
    let gAt = 0;
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (typing(event.target) || dialog.current?.open) return;
      const sequence = Date.now() - gAt < SEQUENCE_MS;
      gAt = 0;
      const act = (action: () => void) => {
        event.preventDefault();
        action();
      };
      const marked = (key: string) => document.querySelector<HTMLElement>(`[data-shortcut="${key}"]`);
      switch (event.key) {
        case 'i':
          if (sequence) act(() => navigate(inbox));
          return;
        case 'g':
          gAt = Date.now();
          return;
        case 'j':
        case 'k':
          return act(() => moveSelection(event.key === 'j' ? 1 : -1, selected));
        case 'o':
        case 'Enter': {
          // Enter on a focused link or button is the browser's own.
          if (event.key === 'Enter' && document.activeElement !== document.body) return;
          const rows = document.querySelectorAll('[data-shortcut-list] > *');
          const row = [...rows].find((r) => r.contains(document.activeElement)) ?? rows[selected.current];
          const link = row?.querySelector<HTMLElement>('a[href]');
          if (link) act(() => link.click());
          return;
        }
        case 'r':
        case 'n':
          return act(() => compose(event.key === 'r' ? 'reply' : 'note'));
        case 'c': {
          const claim = marked('c');
          if (claim) act(() => claim.click());
          return;
        }
        case '/': {
          const search = marked('/');
          if (search) act(() => search.focus());
          return;
        }
        case '?':
          return act(() => dialog.current?.showModal());
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [inbox, navigate]);
  // Shortcuts need JavaScript: without it there is nothing to show.
  if (!hydrated) return null;
  return (
    <>
      <button
        type="button"
        className="button button--ghost hd-shortcuts-open"
        onClick={() => dialog.current?.showModal()}
      >
        Keyboard shortcuts <kbd>?</kbd>
      </button>
      <dialog ref={dialog} className="hd-shortcuts card" aria-labelledby="shortcuts-title">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <dl>
          {KEYS.map(([keys, what]) => (
            <div key={keys}>
              <dt>
                <kbd>{keys}</kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
        <form method="dialog">
          <button type="submit" className="button button--secondary">
            Close
          </button>
        </form>
      </dialog>
    </>
  );
}
