// The header's bell (docs/product.md §2.4): a link to /notifications with the unread count, which works
// without JavaScript. With it, the count follows the member's notifications live: the code that listens
// is loaded after the page (notification-bell-live.tsx), so it adds nothing to a page's first JavaScript.
import { Link } from '@remix-run/react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useHydrated } from './form-controls.tsx';

const BellLive = lazy(() => import('./live/notification-bell-live.tsx'));

export function NotificationBell({ unread, userId }: { unread: number; userId: string }) {
  const [count, setCount] = useState(unread);
  // A navigation brings the root's count again.
  useEffect(() => setCount(unread), [unread]);
  const hydrated = useHydrated();
  const shown = count > 99 ? '99+' : String(count);
  return (
    <Link to="/notifications" className="site-header__bell" data-testid="bell">
      <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
        <path
          fill="currentColor"
          d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z"
        />
      </svg>
      <span className="visually-hidden">Notifications{count ? `, ${count} unread` : ''}</span>
      {count ? (
        <span className="site-header__count" aria-hidden="true" data-testid="bell-count">
          {shown}
        </span>
      ) : null}
      {hydrated ? (
        <Suspense fallback={null}>
          <BellLive userId={userId} onCount={setCount} />
        </Suspense>
      ) : null}
    </Link>
  );
}
