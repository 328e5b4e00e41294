// GET /notifications/unread: the bell's number as JSON ({unread}: a count up to 100, or null for someone
// in no workspace), asked by the live bell when its notifications change. Never cached.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { jsonResponse } from '~/lib/http/responses.server.ts';
import { unreadCount } from '~/lib/notifications/notifications.server.ts';

export async function loader({ request }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  return jsonResponse(request, { unread: await unreadCount(supabase) }, { headers: { 'Cache-Control': 'no-store' } });
}
