// The signed-in member's notifications (docs/product.md#notifications): newest first, the unread ones marked,
// each a link that marks it read and opens its ticket (/notifications/:id); "Mark all as read". The
// header's bell links here, so everything works without JavaScript.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { requireUser } from '~/lib/auth/session.server.ts';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import {
  dataWithSession,
  errorResponse,
  readFormData,
  redirectWithSession,
  requireSameOrigin,
} from '~/lib/http/responses.server.ts';
import { NOTIFICATIONS_PAGE } from '~/lib/constants.ts';
import { listNotifications } from '~/lib/notifications/notifications.server.ts';

export const meta: MetaFunction = () => [{ title: 'Notifications · Tend' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  const notifications = await listNotifications({ request, context }, supabase);
  return dataWithSession(request, { notifications, done: new URL(request.url).searchParams.get('done') === 'read' });
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const form = await readFormData(request);
  if (form.get('intent') !== 'read_all') throw errorResponse(request, 'bad_request');
  // The database sets the time (notifications_read); row-level security limits it to mine.
  const { error } = await supabase
    .from('notifications')
    .update({ read_at: new Date().toISOString() })
    .eq('recipient_id', user.id)
    .is('read_at', null);
  if (error) throwDbError(request, error, 'notifications');
  return redirectWithSession(request, '/notifications?done=read');
}

export default function NotificationsPage() {
  const { notifications, done } = useLoaderData<typeof loader>();
  const unread = notifications.filter((n) => n.unread).length;
  return (
    <section className="card stack" aria-labelledby="notifications-title">
      <div className="hd-inbox__head">
        <h1 id="notifications-title">Notifications</h1>
        {unread ? (
          <Form method="post">
            <button type="submit" name="intent" value="read_all" className="button button--secondary">
              Mark all as read
            </button>
          </Form>
        ) : null}
      </div>
      {done ? (
        <p className="notice notice--success" role="status">
          All marked as read.
        </p>
      ) : null}
      {notifications.length ? (
        <ul className="hd-list" aria-label={`${unread} unread`}>
          {notifications.map((n) => (
            <li key={n.id} className={`hd-list__item notify-item${n.unread ? ' notify-item--unread' : ''}`}>
              <Link to={`/notifications/${n.id}`} className="notify-item__link">
                {n.unread ? <span className="visually-hidden">Unread: </span> : null}
                {n.text}
              </Link>
              <span className="muted">
                {n.workspace} · <time dateTime={n.created_at}>{n.when}</time>
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">Nothing yet. New requests, assignments and replies on your tickets show up here.</p>
      )}
      <p className="muted">
        The latest {NOTIFICATIONS_PAGE} are listed. Choose what you hear of in{' '}
        <Link to="/account#notifications">your account</Link>.
      </p>
    </section>
  );
}
