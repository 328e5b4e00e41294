// Keyboard shortcuts for agents (docs/product.md §2), and their help sheet behind `?` (a modal
// <dialog>: focus moves in and back, Escape closes it). A page marks what a key acts on:
// `data-shortcut="c"` is clicked, `data-shortcut="/"` focused, the rows of `data-shortcut-list` are
// what j/k select and Enter/o open (their first link); r and n pick the composer's kind radio. Keys
// never act while the agent types in a field, nor with Ctrl, Alt or Meta held.
import { useNavigate } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';

const KEYS = [
  ['j / k', 'Inbox: select the next / previous request'],
  ['Enter / o', 'Inbox: open the selected request'],
  ['/', 'Inbox: search'],
  ['c', 'Inbox: claim the next request'],
  ['r', 'Ticket: reply to the customer'],
  ['n', 'Ticket: write an internal note'],
  ['g then i', 'Go to the inbox'],
  ['?', 'Show these shortcuts'],
];

export function Shortcuts({ inbox }: { inbox: string }) {
  const navigate = useNavigate();
  const sheet = useRef<HTMLDialogElement>(null);
  // The sheet's button shows once JavaScript runs (the keys need it).
  const [ready, setReady] = useState(false);
  useEffect(() => {
    setReady(true);
    let selected = -1;
    let gAt = 0;
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (
        event.defaultPrevented ||
        event.ctrlKey ||
        event.metaKey ||
        event.altKey ||
        sheet.current?.open ||
        target.isContentEditable ||
        target.closest?.('input, textarea, select')
      )
        return;
      const key = event.key;
      // `g i`: the i within 1.5 s of the g.
      const afterG = Date.now() - gAt < 1500;
      gAt = key === 'g' ? Date.now() : 0;
      const rows = [...document.querySelectorAll('[data-shortcut-list] > *')];
      const focused = rows.findIndex((row) => row.contains(document.activeElement));
      const link = (i: number) => rows[i]?.querySelector<HTMLElement>('a[href]');
      const marked = document.querySelector<HTMLElement>(`[data-shortcut="${key}"]`);
      const radio = document.querySelector<HTMLInputElement>(
        `input[name="kind"][value="${key === 'n' ? 'note' : 'reply'}"]`,
      );
      let act: (() => void) | undefined;
      if (key === 'i' && afterG) act = () => navigate(inbox);
      else if ((key === 'j' || key === 'k') && rows.length) {
        act = () => {
          const from = focused >= 0 ? focused : selected;
          selected = from < 0 ? 0 : Math.min(rows.length - 1, Math.max(0, from + (key === 'j' ? 1 : -1)));
          link(selected)?.focus();
        };
      }
      // Enter on a focused link or button is the browser's own.
      else if (key === 'o' || (key === 'Enter' && document.activeElement === document.body))
        act = link(focused >= 0 ? focused : selected)
          ? () => link(focused >= 0 ? focused : selected)?.click()
          : undefined;
      else if ((key === 'r' || key === 'n') && radio)
        act = () => {
          radio.checked = true;
          radio.form?.querySelector('textarea')?.focus();
        };
      else if (key === '?') act = () => sheet.current?.showModal();
      else if (marked) act = () => (key === '/' ? marked.focus() : marked.click());
      if (!act) return;
      event.preventDefault();
      act();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [inbox, navigate]);
  if (!ready) return null;
  return (
    <>
      <button
        type="button"
        className="button button--ghost hd-shortcuts-open"
        onClick={() => sheet.current?.showModal()}
      >
        Keyboard shortcuts <kbd>?</kbd>
      </button>
      <dialog ref={sheet} className="hd-shortcuts card" aria-labelledby="shortcuts-title">
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
