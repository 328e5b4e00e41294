// The workspace's canned replies filled in for this ticket, as JSON, for the composer's picker, which
// asks once when it is first used (the ticket page itself carries only their titles). Members only:
// anyone else gets 404 as for the ticket. `articles`: where the picker looks up help center articles.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { filledCannedReplies } from '~/lib/helpdesk/canned-replies.server.ts';
import { requireMemberTicket } from '~/lib/helpdesk/workspace-access.server.ts';
import { jsonResponse } from '~/lib/http/responses.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const ticket = await requireMemberTicket(request, supabase, user.id, params.slug ?? '', params.number);
  const replies = await filledCannedReplies(request, supabase, user, ticket);
  const articles = `/w/${params.slug}/help/lookup`;
  return jsonResponse(request, { replies, articles }, { headers: { 'Cache-Control': 'private, no-store' } });
}
