// Plain <a href> for long lists, with client-side navigation kept: one click listener on the list
// instead of a <Link> per row. Each <Link> resolves its path against the route matches while the
// server renders (≈ 50 µs apiece; 25 rows were a fifth of the inbox's render time).
import { useNavigate } from '@remix-run/react';
import { useCallback, type MouseEvent } from 'react';

/** onClick for a container: same-origin, unmodified primary clicks on its links navigate in the app. */
export function useDelegatedLinks() {
  const navigate = useNavigate();
  return useCallback(
    (event: MouseEvent<HTMLElement>) => {
      if (
        event.defaultPrevented ||
        event.button !== 0 ||
        event.metaKey ||
        event.ctrlKey ||
        event.shiftKey ||
        event.altKey
      )
        return;
      const anchor = (event.target as Element).closest?.('a[href]') as HTMLAnchorElement | null;
      if (!anchor || anchor.target || anchor.hasAttribute('download') || anchor.origin !== window.location.origin)
        return;
      event.preventDefault();
      navigate(`${anchor.pathname}${anchor.search}${anchor.hash}`);
    },
    [navigate],
  );
}
