// The header's bell (docs/product.md#notifications): a link to /notifications with the unread count, which works
// without JavaScript. With it, the count follows the member's notifications live: the code that listens
// is loaded after the page (live/notification-bell-live.ts), so a page's first JavaScript grows only by
// this component.
import { Link } from '@remix-run/react';
import { useEffect, useState } from 'react';
import type { RealtimeEnv } from '~/lib/realtime/client.ts';

export function NotificationBell({ unread, userId, env }: { unread: number; userId: string; env: RealtimeEnv }) {
  const [count, setCount] = useState(unread);
  // A navigation brings the root's count again.
  useEffect(() => setCount(unread), [unread]);
  const { SUPABASE_URL, SUPABASE_ANON_KEY } = env;
  useEffect(() => {
    let stop: (() => void) | undefined;
    let gone = false;
    void import('./live/notification-bell-live.ts').then((m) => {
      if (!gone) stop = m.watchBell({ SUPABASE_URL, SUPABASE_ANON_KEY }, userId, setCount);
    });
    return () => {
      gone = true;
      stop?.();
    };
  }, [SUPABASE_URL, SUPABASE_ANON_KEY, userId]);
  return (
    // The bell itself is drawn by the stylesheet (app.css): no SVG in the page's JavaScript.
    <Link
      to="/notifications"
      className="site-header__bell"
      aria-label={`Notifications${count ? `, ${count} unread` : ''}`}
    >
      {count ? <b aria-hidden="true">{count > 99 ? '99+' : count}</b> : null}
    </Link>
  );
}
