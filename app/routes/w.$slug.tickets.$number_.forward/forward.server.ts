// Forward: its loader and action (route.tsx). forward_ticket records the forward and a note saying so
// in the thread, and has notify send it (88_rich_mail.sql); the outside party's answer comes back
// into the ticket as an internal note (inbound-email).
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { ForwardSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { requireMembership, requireMemberTicket } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';

/** The ticket and its public messages, newest first (what may be forwarded: notes never), dated in `zone`. */
async function forwardable(request: Request, supabase: Supabase, ticketId: string, zone: string) {
  const [{ data: ticket, error }, { data: messages, error: e2 }] = await Promise.all([
    supabase.from('tickets').select('id, number, subject').eq('id', ticketId).single(),
    supabase
      .from('messages')
      .select('id, body, created_at')
      .eq('ticket_id', ticketId)
      .eq('kind', 'reply')
      .order('created_at', { ascending: false })
      .order('id', { ascending: false }),
  ]);
  if (error) throwDbError(request, error, 'forward ticket');
  if (e2) throwDbError(request, e2, 'forward messages');
  // Each named by when and its first words.
  const shown = messages.map((m) => ({
    id: m.id,
    label: `${formatDateIn(m.created_at, zone)}: ${m.body.replace(/\s+/g, ' ').trim().slice(0, 60)}`,
  }));
  return { ticket, messages: shown };
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const [{ workspace }, { id }, zoneOf] = await Promise.all([
    requireMembership(request, supabase, user.id, params.slug ?? ''),
    requireMemberTicket(request, supabase, user.id, params.slug ?? '', params.number),
    viewerZones({ request, context }, supabase),
  ]);
  const { ticket, messages } = await forwardable(request, supabase, id, zoneOf(workspace.time_zone));
  // "Forward" from a message preselects it.
  const chosen = new URL(request.url).searchParams.get('message');
  return dataWithSession(request, {
    workspace,
    ticket,
    messages,
    chosen: messages.some((m) => m.id === chosen) ? (chosen ?? '') : '',
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const slug = params.slug ?? '';
  const ticket = await requireMemberTicket(request, supabase, user.id, slug, params.number);
  const submission = parseSubmission(await request.formData(), ForwardSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const { error } = await supabase.rpc('forward_ticket', {
    p_ticket_id: ticket.id,
    p_to: submission.value.to,
    p_note: submission.value.note,
    p_message_id: submission.value.message,
  });
  if (error) {
    const mapped = mapDbError(error, 'forward_ticket');
    const field = mapped.code === 'email_invalid' ? 'to' : '';
    return dataWithSession(
      request,
      { result: submission.reply({ fieldErrors: { [field]: [mapped.message] } }) },
      { status: mapped.status },
    );
  }
  return redirectWithSession(request, `/w/${slug}/tickets/${params.number}`);
}
