// A notification followed: marked read, then its ticket. A GET (a plain link from the bell's page and
// the list), which only ever marks the reader's own notification read; one that isn't theirs is 404.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { errorResponse, redirectWithSession } from '~/lib/http/responses.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  if (!UUID_RE.test(params.id ?? '')) throw errorResponse(request, 'not_found');
  const { data, error } = await supabase
    .from('notifications')
    .update({ read_at: new Date().toISOString() })
    .eq('id', params.id!)
    .select('ticket:tickets(number), workspace:workspaces(slug)')
    .maybeSingle();
  if (error) throwDbError(request, error, 'notification');
  if (!data) throw errorResponse(request, 'not_found');
  const path = `/w/${data.workspace.slug}${data.ticket ? `/tickets/${data.ticket.number}` : ''}`;
  return redirectWithSession(request, path);
}
