// A file of a public reply on the requester's own request, sent as a download
// (attachments.server.ts). A note's file is not found here, for anyone.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { sendFile } from '~/lib/helpdesk/attachments.server.ts';
import { requireRequesterTicket } from '~/lib/helpdesk/workspace-access.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { ticket } = await requireRequesterTicket(request, supabase, user.id, params.slug ?? '', params.number);
  return sendFile(request, supabase, { id: params.id, ticketId: ticket.id, repliesOnly: true });
}
