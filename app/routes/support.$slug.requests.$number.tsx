// A requester's view of their request: the public thread (never internal notes), reply (reopens
// pending/solved), "Mark as solved", and a follow-up link once closed.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, SubmitButton, useIsPending } from '~/components/forms.tsx';
import { Thread, type ThreadMessage } from '~/components/helpdesk-thread.tsx';
import { StatusBadge, TextareaField } from '~/components/helpdesk-ui.tsx';
import { LiveThread } from '~/components/live/live-thread.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { MESSAGE_MAX_LENGTH } from '~/lib/constants.ts';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import { PORTAL_STATUS_LABELS, type TicketStatus } from '~/lib/helpdesk/vocabulary.ts';
import {
  BodySchema,
  formString,
  mapDbError,
  parseNumber,
  profileNames,
  requireWorkspace,
  throwDbError,
  type FieldErrors,
} from '~/lib/helpdesk/queries.server.ts';
import {
  data,
  errorResponse,
  readFormData,
  redirectWithHeaders,
  requireSameOrigin,
} from '~/lib/http/responses.server.ts';
import type { SupabaseClient } from '@supabase/supabase-js';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `#${data.ticket.number} ${data.ticket.subject} · ${data.workspace.name} · Tend` : 'Request · Tend' },
];

interface PortalTicket {
  id: string;
  number: number;
  subject: string;
  status: TicketStatus;
  created_at: string;
}

async function loadTicket(
  request: Request,
  supabase: SupabaseClient,
  slug: string,
  rawNumber: string | undefined,
  userId: string,
) {
  const workspace = await requireWorkspace(request, supabase, slug);
  const number = parseNumber(request, rawNumber);
  const { data: ticket, error } = await supabase
    .from('tickets')
    .select('id, number, subject, status, created_at')
    .eq('workspace_id', workspace.id)
    .eq('number', number)
    .eq('requester_id', userId)
    .maybeSingle();
  if (error) throwDbError(request, error, 'portal ticket');
  if (!ticket) throw errorResponse(request, 'not_found');
  return { workspace, ticket: ticket as PortalTicket };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { workspace, ticket } = await loadTicket(request, supabase, params.slug ?? '', params.number, user.id);
  // Replies only, whoever reads: RLS already hides notes from requesters; this keeps the portal public-only for agents too.
  const { data: rows, error } = await supabase
    .from('messages')
    .select('id, kind, body, created_at, author_id')
    .eq('ticket_id', ticket.id)
    .eq('kind', 'reply')
    .order('created_at', { ascending: true })
    .order('id', { ascending: true });
  if (error) throwDbError(request, error, 'portal messages');
  const list = (rows ?? []) as Omit<ThreadMessage, 'author'>[];
  const names = await profileNames(
    request,
    supabase,
    list.map((m) => m.author_id),
  );
  const messages: ThreadMessage[] = list.map((m) => ({
    ...m,
    author: m.author_id === user.id ? 'You' : (names.get(m.author_id) ?? workspace.name),
  }));
  return data(request, { workspace, ticket, messages });
}

type ActionResult = { intent: string; values: { body: string }; errors: FieldErrors; closed?: boolean };

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const { workspace, ticket } = await loadTicket(request, supabase, params.slug ?? '', params.number, user.id);
  const form = await readFormData(request);
  const intent = formString(form, 'intent');
  const here = `/support/${workspace.slug}/requests/${ticket.number}`;
  const values = { body: formString(form, 'body') };

  if (intent === 'reply') {
    const parsed = BodySchema.safeParse(values.body);
    if (!parsed.success)
      return data<ActionResult>(
        request,
        { intent, values, errors: { body: parsed.error.issues.map((i) => i.message) } },
        { status: 400 },
      );
    const { error } = await supabase.rpc('post_message', { p_ticket_id: ticket.id, p_body: values.body });
    if (error) {
      const mapped = mapDbError(error, 'portal reply');
      return data<ActionResult>(
        request,
        { intent, values, errors: { form: [mapped.message] }, closed: mapped.code === 'ticket_closed' },
        { status: mapped.status },
      );
    }
    return redirectWithHeaders(request, here);
  }
  if (intent === 'solve') {
    const { error } = await supabase.from('tickets').update({ status: 'solved' }).eq('id', ticket.id);
    if (error) {
      const mapped = mapDbError(error, 'portal solve');
      return data<ActionResult>(
        request,
        { intent, values, errors: { form: [mapped.message] } },
        { status: mapped.status },
      );
    }
    return redirectWithHeaders(request, here);
  }
  return data<ActionResult>(
    request,
    { intent, values, errors: { form: [errorMessage('bad_request')] } },
    { status: 400 },
  );
}

export default function PortalRequest() {
  const { workspace, ticket, messages } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const errors = actionData?.errors ?? {};
  const closed = ticket.status === 'closed' || actionData?.closed;
  const base = `/support/${workspace.slug}`;
  return (
    <section className="stack-lg hd-portal-ticket" aria-labelledby="request-title">
      <div className="card">
        <p className="eyebrow">
          <Link to={base}>{workspace.name}</Link> · Request #{ticket.number}
        </p>
        <h1 id="request-title">{ticket.subject}</h1>
        <p>
          Status: <StatusBadge status={ticket.status} label={PORTAL_STATUS_LABELS[ticket.status]} />
        </p>
      </div>
      <LiveThread ticketId={ticket.id} />
      <Thread messages={messages} />
      {closed ? (
        <div className="card notice notice--warning" data-testid="closed-notice">
          <p>
            This request is closed. <Link to={`${base}/new`}>Open a follow-up request</Link>
          </p>
        </div>
      ) : (
        <div className="card stack">
          <Form method="post" className="stack" noValidate>
            <TextareaField
              id="body"
              name="body"
              label="Your reply"
              hint={
                ticket.status === 'solved' || ticket.status === 'pending' ? 'Replying reopens this request.' : undefined
              }
              errors={errors.body}
              defaultValue={actionData?.intent === 'reply' ? actionData.values.body : ''}
              key={actionData ? 'kept' : 'fresh'}
              required
              maxLength={MESSAGE_MAX_LENGTH}
              rows={5}
            />
            <ErrorList errors={errors.form} />
            <div className="hd-actions">
              <SubmitButton pending={pending} name="intent" value="reply">
                Send reply
              </SubmitButton>
              {ticket.status !== 'solved' ? (
                <button type="submit" name="intent" value="solve" className="button button--secondary" formNoValidate>
                  Mark as solved
                </button>
              ) : null}
            </div>
          </Form>
        </div>
      )}
    </section>
  );
}
