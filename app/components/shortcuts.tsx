// Keyboard shortcuts for agents (docs/product.md#the-agents-pages): j/k, Enter/o, /, c in the inbox, r, n and t on a
// ticket, g i on any workspace page, ? for the help sheet. The site header mounts this on workspace
// pages (it listens, and shows the sheet's button); what a key does, and the sheet, load on the first
// shortcut (shortcut-keys.ts), so a page that never uses them never loads that
// (docs/decisions/006-javascript-budget.md). Keys never act while the agent types in a field, nor with
// Ctrl, Alt or Meta held, nor while the sheet is open. A key pressed while a navigation is under way waits for
// the page it leads to: `g i /` typed at speed searches the inbox instead of reaching the page being left.
import { useLocation, useNavigate, useNavigation } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';

const load = () => import('./shortcut-keys.ts');

/** The keys one navigation may hold back (an agent typing ahead; more is a held-down key). */
const HELD_KEYS = 8;

/** Remix's router (set by RemixBrowser): its state changes at once, while React renders the page it leads to later
 * (in a transition), so the URL can be the new page's while the old page is still on screen. */
type RouterState = { navigation: { state: string }; location: { key: string } };
const routerState = () => (window as { __remixRouter?: { state: RouterState } }).__remixRouter?.state;

/** Whether a navigation is under way: started, or done in the router but its page not yet rendered. */
function busy(onScreen: { key: string; idle: boolean }) {
  const router = routerState();
  return (
    !onScreen.idle ||
    (router !== undefined && (router.navigation.state !== 'idle' || router.location.key !== onScreen.key))
  );
}

export function Shortcuts({ inbox }: { inbox: string }) {
  const navigate = useNavigate();
  const navigation = useNavigation();
  const location = useLocation();
  // The page on screen: its location and whether React has rendered a navigation under way.
  const onScreen = useRef({ key: location.key, idle: navigation.state === 'idle' });
  const held = useRef<string[]>([]);
  const flushHeld = useRef(async () => {});
  // The sheet's button shows once JavaScript runs (the keys need it).
  const [ready, setReady] = useState(false);

  useEffect(() => {
    const goToInbox = () => navigate(inbox);
    // Held keys act in order while the page stays put; one that navigates (o, Enter, c, g i) holds the rest for
    // the page it leads to.
    const flush = async () => {
      const keys = await load();
      while (held.current.length && !busy(onScreen.current)) {
        keys.press(held.current.shift()!, goToInbox);
        // A key that put the cursor in a field (/, r, n, t): what was typed after it was text, not shortcuts.
        if (document.activeElement?.closest('input, textarea, select, [contenteditable]')) held.current.length = 0;
      }
    };
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
      if (held.current.length < HELD_KEYS) held.current.push(key);
      if (!busy(onScreen.current)) void flush();
    };
    flushHeld.current = flush;
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [inbox, navigate]);

  // After React has put the new page on screen, the keys typed on the way act on it.
  useEffect(() => {
    onScreen.current = { key: location.key, idle: navigation.state === 'idle' };
    if (held.current.length && !busy(onScreen.current)) void flushHeld.current();
  }, [location.key, navigation.state]);

  useEffect(() => setReady(true), []);
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
