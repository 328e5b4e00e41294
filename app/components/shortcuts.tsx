// Keyboard shortcuts for agents (docs/product.md#the-agents-pages): j/k, Enter/o, /, c in the inbox, r, n and t on a
// ticket, g i on any workspace page, ? for the help sheet. The site header mounts this on workspace
// pages (it listens, and shows the sheet's button); what a key does, and the sheet, load on the first
// shortcut (shortcut-keys.ts), so a page that never uses them never loads that
// (docs/decisions/006-javascript-budget.md). Keys never act while the agent types in a field, nor with
// Ctrl, Alt or Meta held, nor while the sheet is open.
import { useNavigate } from '@remix-run/react';
import { useEffect, useState } from 'react';

const load = () => import('./shortcut-keys.ts');

export function Shortcuts({ inbox }: { inbox: string }) {
  const navigate = useNavigate();
  // The sheet's button shows once JavaScript runs (the keys need it).
  const [ready, setReady] = useState(false);
  useEffect(() => {
    setReady(true);
    const onKey = (event: KeyboardEvent) => {
      const { key, target } = event;
      if (
        event.defaultPrevented ||
        event.ctrlKey ||
        event.metaKey ||
        event.altKey ||
        !('jkocrngit/?'.includes(key) || (key === 'Enter' && document.activeElement === document.body)) ||
        document.querySelector('dialog[open]') ||
        (target as HTMLElement).isContentEditable ||
        (target as HTMLElement).closest?.('input, textarea, select')
      )
        return;
      event.preventDefault();
      void load().then((keys) => keys.press(key, () => navigate(inbox)));
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [inbox, navigate]);
  return ready ? (
    <button
      type="button"
      className="button button--ghost hd-shortcuts-open"
      onClick={() => void load().then((keys) => keys.openSheet())}
    >
      Keyboard shortcuts <kbd>?</kbd>
    </button>
  ) : null;
}
