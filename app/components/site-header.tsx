import { Form, isRouteErrorResponse, Link, useLocation, useMatches, useRouteError } from '@remix-run/react';
import type { SessionUser } from '~/lib/auth/user.ts';
import type { RealtimeEnv } from '~/lib/realtime/client.ts';
import { NotificationBell } from './notification-bell.tsx';
import { Shortcuts } from './shortcuts.tsx';

export function SiteHeader({
  user,
  unread,
  env,
}: {
  user: SessionUser | null;
  unread: number | null;
  env: RealtimeEnv | null;
}) {
  const location = useLocation();
  const onSignInPages = location.pathname.startsWith('/login') || location.pathname.startsWith('/auth/');
  // A workspace page says when the reader is its admin (its loader's `adminOf`, the workspace's slug).
  const adminOf = useMatches()
    .map((m) => (m.data as { adminOf?: string | null } | undefined)?.adminOf)
    .find(Boolean);
  // A workspace's pages (members only) have the keyboard shortcuts and its links; a page not found, which is
  // also what someone outside the workspace gets, has neither.
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const workspace = notFound ? undefined : /^\/w\/([^/]+)/.exec(location.pathname)?.[1];
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <Link to="/" className="brand">
          <span className="brand__mark" aria-hidden="true">
            T
          </span>
          Tend
        </Link>
        <nav aria-label="Account" className="site-header__nav">
          {user ? (
            <>
              {workspace ? <Shortcuts inbox={`/w/${workspace}`} /> : null}
              {/* Every member writes articles (docs/product.md#the-help-center-for-the-team), so agents find the
                  editor here too. */}
              {workspace ? (
                <Link to={`/w/${workspace}/customers`} className="site-header__link">
                  Customers
                </Link>
              ) : null}
              {workspace ? (
                <Link to={`/w/${workspace}/help`} className="site-header__link">
                  Help center
                </Link>
              ) : null}
              {adminOf ? (
                <>
                  <Link to={`/w/${adminOf}/settings/members`} className="site-header__link">
                    Members
                  </Link>
                  <Link to={`/w/${adminOf}/settings`} className="site-header__link">
                    Settings
                  </Link>
                  <Link to={`/w/${adminOf}/reports`} className="site-header__link">
                    Reports
                  </Link>
                </>
              ) : null}
              {unread === null || !env ? null : <NotificationBell unread={unread} userId={user.id} env={env} />}
              <Link to="/account" className="site-header__user">
                <span className="visually-hidden">Signed in as </span>
                {user.displayName ?? user.email}
              </Link>
              <Form method="post" action="/logout" className="inline-form">
                <button type="submit" className="button button--ghost">
                  Sign out
                </button>
              </Form>
            </>
          ) : onSignInPages ? null : (
            <Link to="/login" className="button button--ghost">
              Sign in
            </Link>
          )}
        </nav>
      </div>
    </header>
  );
}
