// A file of one of the ticket's messages, for its workspace's members, sent as a download
// (attachments.server.ts).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { sendFile } from '~/lib/helpdesk/attachments.server.ts';
import { requireMemberTicket } from '~/lib/helpdesk/workspace-access.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const ticket = await requireMemberTicket(request, supabase, user.id, params.slug ?? '', params.number);
  return sendFile(request, supabase, { id: params.id, ticketId: ticket.id, repliesOnly: false });
}
