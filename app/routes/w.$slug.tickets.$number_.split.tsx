// "Split into a new ticket" (docs/product.md#split): the confirmation for one requester's message
// (?message=<id>), then the split (public.split_message): the message and its files become a new ticket
// of the same requester, which opens. Refused (not the requester's, the only message, moved meanwhile):
// this page again with the reason. Members only; a message not on this ticket is 404. A page of its
// own, so the ticket page carries no code for it, with JavaScript or without.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, SubmitButton } from '~/components/forms.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { SplitSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { parseNumber, parseSlug, requireMemberTicket, throwNotFound } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Split a message of #${data.number} · Tend` : 'Split a message · Tend' },
  { name: 'description', content: 'A customer’s message becomes a ticket of its own.' },
];

/** How much of the message the confirmation quotes. */
const QUOTED = 600;

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const number = parseNumber(request, params.number);
  const ticket = await requireMemberTicket(request, supabase, user.id, slug, params.number);
  const id = new URL(request.url).searchParams.get('message') ?? '';
  if (!UUID_RE.test(id)) return throwNotFound(request, supabase, slug);
  const [{ data: message, error }, zoneOf] = await Promise.all([
    supabase
      .from('messages')
      .select(
        'id, body, created_at, author:profiles!messages_author_profile_fkey(display_name), attachments(file_name), tickets!inner(subject, workspaces!inner(time_zone))',
      )
      .eq('id', id)
      .eq('ticket_id', ticket.id)
      .maybeSingle(),
    viewerZones({ request, context }, supabase),
  ]);
  if (error) throwDbError(request, error, 'split message');
  if (!message) return throwNotFound(request, supabase, slug);
  const cut = message.body.length > QUOTED;
  return dataWithSession(request, {
    slug,
    number,
    subject: message.tickets.subject,
    message: {
      id: message.id,
      author: message.author?.display_name ?? 'Unknown',
      when: formatDateIn(message.created_at, zoneOf(message.tickets.workspaces.time_zone)),
      text: cut ? `${message.body.slice(0, QUOTED)}…` : message.body,
      files: message.attachments.map((a) => a.file_name),
    },
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const ticket = await requireMemberTicket(request, supabase, user.id, slug, params.number);
  const submission = parseSubmission(await readFormData(request), SplitSchema);
  if (submission.status !== 'success')
    return dataWithSession(request, { message: errorMessage('bad_request') }, { status: errorStatus('bad_request') });
  const { data, error } = await supabase.rpc('split_message', {
    p_ticket_id: ticket.id,
    p_message_id: submission.value.message,
  });
  if (error) {
    const mapped = mapDbError(error, 'split_message');
    return dataWithSession(request, { message: mapped.message }, { status: mapped.status });
  }
  return redirectWithSession(request, `/w/${slug}/tickets/${(data as { number: number }).number}`);
}

export default function SplitMessage() {
  const { slug, number, subject, message } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return (
    <section className="stack-lg" aria-labelledby="split-title">
      <div>
        <p className="eyebrow">
          <Link to={`/w/${slug}/tickets/${number}`}>Back to #{number}</Link>
        </p>
        <h1 id="split-title">Split into a new ticket?</h1>
      </div>
      <Form method="post" className="card stack">
        <p>
          This message of <bdi>{message.author}</bdi> ({message.when}) leaves #{number} <bdi dir="auto">{subject}</bdi>
          {message.files.length ? ', with its files,' : ''} and becomes a new ticket of theirs, with the same subject.
          Both tickets’ histories link to each other.
        </p>
        <blockquote className="hd-split__quote" dir="auto">
          {message.text}
        </blockquote>
        {message.files.length ? (
          <ul className="small" aria-label="Its files">
            {message.files.map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
        ) : null}
        <input type="hidden" name="message" value={message.id} />
        <ErrorList errors={answer ? [answer.message] : undefined} />
        <div className="hd-check">
          <SubmitButton>Split into a new ticket</SubmitButton>
          <Link to={`/w/${slug}/tickets/${number}`}>Cancel</Link>
        </div>
      </Form>
    </section>
  );
}
