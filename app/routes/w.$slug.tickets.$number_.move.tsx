// Where the ticket page's "More" posts (docs/product.md#spam-and-trash): to Spam or Trash, and back
// (public.move_tickets, for one ticket), and "Merge into…" (docs/product.md#merge, public.merge_tickets). Done: back to
// the ticket, which says where it is now (merged: the ticket it went into). Refused: this page says why,
// with a link back. A GET leads to the ticket.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useActionData, useParams } from '@remix-run/react';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { MoveTicketSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { parseNumber, parseSlug, requireMemberTicket } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction = () => [
  { title: 'Move a ticket · Tend' },
  { name: 'description', content: 'A ticket to Spam or Trash, or back.' },
];

export function loader({ request, params }: LoaderFunctionArgs) {
  return redirectWithSession(
    request,
    `/w/${parseSlug(request, params.slug)}/tickets/${parseNumber(request, params.number)}`,
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const number = parseNumber(request, params.number);
  const ticket = await requireMemberTicket(request, supabase, user.id, slug, params.number);
  const submission = parseSubmission(await readFormData(request), MoveTicketSchema);
  if (submission.status !== 'success')
    return dataWithSession(request, { message: errorMessage('bad_request') }, { status: errorStatus('bad_request') });
  const form = submission.value;
  const { data, error } =
    form.intent === 'merge'
      ? await supabase.rpc('merge_tickets', { p_ticket_id: ticket.id, p_into: form.into })
      : await supabase.rpc('move_tickets', { p_ticket_ids: [ticket.id], p_action: form.intent });
  if (error) {
    const mapped = mapDbError(error, `ticket ${form.intent}`);
    return dataWithSession(request, { message: mapped.message }, { status: mapped.status });
  }
  const into = form.intent === 'merge' ? (data as { number: number }).number : number;
  return redirectWithSession(request, `/w/${slug}/tickets/${into}`);
}

export default function MoveTicket() {
  const answer = useActionData<typeof action>();
  const { slug, number } = useParams();
  return (
    <section className="stack-lg" aria-labelledby="move-title">
      <h1 id="move-title">#{number} wasn’t moved</h1>
      <p className="notice notice--error" role="alert">
        {answer?.message}
      </p>
      <p>
        <Link to={`/w/${slug}/tickets/${number}`}>Back to #{number}</Link>
      </p>
    </section>
  );
}
