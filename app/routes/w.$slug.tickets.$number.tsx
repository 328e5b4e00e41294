// An agent's ticket page: the whole thread (internal notes set apart), the composer (reply or
// note, "send and set status", traffic cop via last_seen_message_id), and the sidebar: status,
// priority, assignee, requester, history. Not a member or not visible: 404.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import type { SupabaseClient } from '@supabase/supabase-js';
import { ErrorList, SubmitButton } from '~/components/forms.tsx';
import { Thread, type ThreadMessage } from '~/components/helpdesk-thread.tsx';
import {
  MemberOptions,
  PriorityBadge,
  PriorityOptions,
  SelectField,
  StatusBadge,
  StatusOptions,
  TextareaField,
} from '~/components/helpdesk-ui.tsx';
import { LiveTicket } from '~/components/live/live-ticket.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { MESSAGE_MAX_LENGTH } from '~/lib/constants.ts';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import {
  formatDate,
  isPriority,
  isStatus,
  STATUS_LABELS,
  type TicketStatus,
  UUID_RE,
} from '~/lib/helpdesk/vocabulary.ts';
import {
  BodySchema,
  formString,
  mapDbError,
  memberRows,
  namedMembers,
  parseNumber,
  requireMembership,
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

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `#${data.ticket.number} ${data.ticket.subject} · ${data.workspace.name} · Tend` : 'Ticket · Tend' },
];

interface TicketRow {
  id: string;
  number: number;
  subject: string;
  status: TicketStatus;
  priority: string;
  requester_id: string;
  assignee_id: string | null;
  created_at: string;
  first_response_at: string | null;
  solved_at: string | null;
}

interface EventRow {
  id: number;
  actor_id: string | null;
  type: 'created' | 'status' | 'assignee' | 'priority';
  from: string | null;
  to: string | null;
  created_at: string;
}

/** public.requester_card: the requester's name, email and other recent requests here. */
interface RequesterCard {
  name: string;
  email: string | null;
  requests: number;
  recent: { number: number; subject: string; status: TicketStatus; last_message_at: string }[];
}

const TICKET_COLUMNS =
  'id, number, subject, status, priority, requester_id, assignee_id, created_at, first_response_at, solved_at';

/** For actions: membership (404 for anyone else), then the members and the ticket in parallel. */
async function loadTicket(
  request: Request,
  supabase: SupabaseClient,
  userId: string,
  slug: string,
  rawNumber: string | undefined,
) {
  const { workspace, role } = await requireMembership(request, supabase, userId, slug);
  const number = parseNumber(request, rawNumber);
  const query = supabase.from('tickets').select(TICKET_COLUMNS).eq('workspace_id', workspace.id).eq('number', number);
  const [rows, ticketResult] = await Promise.all([memberRows(request, supabase, workspace.id), query.maybeSingle()]);
  if (ticketResult.error) throwDbError(request, ticketResult.error, 'ticket');
  if (!ticketResult.data) throw errorResponse(request, 'not_found');
  return { workspace, role, memberRows: rows, ticket: ticketResult.data as unknown as TicketRow };
}

/** What public.ticket_page returns (supabase/migrations/20251122209000_ticket_page.sql). */
interface TicketPage {
  workspace: { id: string; slug: string; name: string };
  members: { user_id: string; role: 'admin' | 'agent' }[];
  ticket: TicketRow;
  messages: Omit<ThreadMessage, 'author'>[];
  events: EventRow[];
  names: Record<string, string>;
  requester: RequesterCard;
}

// One round trip: membership (404 for anyone else), the ticket, its thread and history, names and
// the requester card.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const number = parseNumber(request, params.number);
  const { data: result, error } = await supabase.rpc(
    'ticket_page',
    { p_slug: params.slug ?? '', p_number: number },
    { get: true },
  );
  if (error) throwDbError(request, error, 'ticket page');
  const {
    workspace,
    members: rows,
    ticket,
    messages: rawMessages,
    events: rawEvents,
    names: nameList,
    requester: requesterCard,
  } = result as TicketPage;
  const names = new Map(Object.entries(nameList));
  const members = namedMembers(rows, names);
  const name = (id: string | null) => (id ? (names.get(id) ?? 'Unknown') : 'Tend');
  const messages: ThreadMessage[] = rawMessages.map((m) => ({ ...m, author: name(m.author_id) }));
  const events = rawEvents.map((e) => ({
    id: e.id,
    created_at: e.created_at,
    text:
      e.type === 'created'
        ? `${name(e.actor_id)} opened the request`
        : e.type === 'status'
          ? `${name(e.actor_id)} changed status from ${e.from} to ${e.to}`
          : e.type === 'priority'
            ? `${name(e.actor_id)} changed priority from ${e.from} to ${e.to}`
            : e.to
              ? `${name(e.actor_id)} assigned it to ${name(e.to)}`
              : `${name(e.actor_id)} unassigned it`,
  }));
  return data(request, {
    workspace,
    me: user.id,
    members: members.map((m) => ({ user_id: m.user_id, name: m.name })),
    ticket,
    requester: name(ticket.requester_id),
    requesterCard,
    assignee: ticket.assignee_id ? name(ticket.assignee_id) : null,
    messages,
    events,
    lastMessageId: messages.at(-1)?.id ?? '',
  });
}

type ActionResult = {
  intent: string;
  values: { body: string; kind: string; set_status: string };
  errors: FieldErrors;
  /** ticket_changed: the messages after this id are new to the writer. */
  changedAfter?: string;
};

const SEND_STATUSES = ['keep', 'open', 'pending', 'solved'] as const;

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const {
    workspace,
    memberRows: members,
    ticket,
  } = await loadTicket(request, supabase, user.id, params.slug ?? '', params.number);
  const form = await readFormData(request);
  const intent = formString(form, 'intent');
  const here = `/w/${workspace.slug}/tickets/${ticket.number}`;
  const values = {
    body: formString(form, 'body'),
    kind: formString(form, 'kind') || 'reply',
    set_status: formString(form, 'set_status') || 'keep',
  };
  const fail = (errors: FieldErrors, status: number, extra: Partial<ActionResult> = {}) =>
    data<ActionResult>(request, { intent, values, errors, ...extra }, { status });

  switch (intent) {
    case 'send': {
      const body = BodySchema.safeParse(values.body);
      const errors: FieldErrors = {};
      if (!body.success) errors.body = body.error.issues.map((i) => i.message);
      if (values.kind !== 'reply' && values.kind !== 'note') errors.form = [errorMessage('bad_request')];
      if (!(SEND_STATUSES as readonly string[]).includes(values.set_status))
        errors.form = [errorMessage('bad_request')];
      if (Object.keys(errors).length) return fail(errors, 400);
      const lastSeen = formString(form, 'last_seen_message_id');
      const { error } = await supabase.rpc('post_message', {
        p_ticket_id: ticket.id,
        p_body: values.body,
        p_kind: values.kind,
        p_new_status: values.set_status === 'keep' ? null : values.set_status,
        p_last_seen_message_id: UUID_RE.test(lastSeen) ? lastSeen : null,
      });
      if (error) {
        const mapped = mapDbError(error, 'post_message');
        // The loader runs again after this action, so the new message(s) show above the kept draft.
        return fail(
          { form: [mapped.message] },
          mapped.status,
          mapped.code === 'ticket_changed' ? { changedAfter: lastSeen } : {},
        );
      }
      return redirectWithHeaders(request, here);
    }
    case 'status':
    case 'priority':
    case 'assignee':
    case 'assign_me': {
      let patch: Record<string, string | null>;
      if (intent === 'status') {
        const s = formString(form, 'status');
        if (!isStatus(s)) return fail({ [intent]: [errorMessage('bad_request')] }, 400);
        patch = { status: s };
      } else if (intent === 'priority') {
        const p = formString(form, 'priority');
        if (!isPriority(p)) return fail({ [intent]: [errorMessage('bad_request')] }, 400);
        patch = { priority: p };
      } else {
        const a = intent === 'assign_me' ? user.id : formString(form, 'assignee');
        if (a && !members.some((m) => m.user_id === a))
          return fail({ assignee: [errorMessage('assignee_not_member')] }, 400);
        patch = { assignee_id: a || null };
      }
      const { error } = await supabase.from('tickets').update(patch).eq('id', ticket.id);
      if (error) {
        const mapped = mapDbError(error, `ticket ${intent}`);
        return fail({ [intent === 'assign_me' ? 'assignee' : intent]: [mapped.message] }, mapped.status);
      }
      return redirectWithHeaders(request, here);
    }
    default:
      return fail({ form: [errorMessage('bad_request')] }, 400);
  }
}

export default function TicketPage() {
  const { workspace, me, members, ticket, requester, requesterCard, assignee, messages, events, lastMessageId } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const sent = actionData?.intent === 'send' ? actionData : undefined;
  const errors = actionData?.errors ?? {};
  const closed = ticket.status === 'closed';
  // The draft starts empty after my own message is sent, and only then: live updates bring others'.
  const mine = messages.filter((m) => m.author_id === me).length;
  return (
    <section className="hd-ticket" aria-labelledby="ticket-title">
      <div className="hd-ticket__main stack-lg">
        <div>
          <p className="eyebrow">
            <Link to={`/w/${workspace.slug}`}>{workspace.name} inbox</Link> · #{ticket.number}
          </p>
          <h1 id="ticket-title">{ticket.subject}</h1>
          <p className="hd-ticket__facts">
            <StatusBadge status={ticket.status} /> <PriorityBadge priority={ticket.priority} />{' '}
            <span className="muted small">
              from {requester} · {assignee ? `assigned to ${assignee}` : 'unassigned'}
            </span>
          </p>
        </div>
        <LiveTicket ticketId={ticket.id} me={me} members={members} />
        <Thread messages={messages} highlightAfter={sent?.changedAfter ?? null} />
        {closed ? (
          <p className="notice notice--warning">This request is closed. The requester can open a follow-up request.</p>
        ) : (
          <Form method="post" className="card stack hd-composer" noValidate>
            <input type="hidden" name="last_seen_message_id" value={lastMessageId} />
            <ErrorList errors={errors.form} />
            <fieldset className="hd-kind">
              <legend>Type</legend>
              <label>
                <input
                  type="radio"
                  name="kind"
                  value="reply"
                  defaultChecked={(sent?.values.kind ?? 'reply') === 'reply'}
                />{' '}
                Reply to customer
              </label>
              <label>
                <input type="radio" name="kind" value="note" defaultChecked={sent?.values.kind === 'note'} /> Internal
                note
              </label>
            </fieldset>
            <TextareaField
              id="body"
              name="body"
              label="Message"
              errors={errors.body}
              defaultValue={sent?.values.body ?? ''}
              key={`draft-${mine}`}
              required
              maxLength={MESSAGE_MAX_LENGTH}
              rows={6}
            />
            <div className="hd-actions">
              <SelectField
                id="set_status"
                name="set_status"
                label="Send and set status"
                defaultValue={sent?.values.set_status ?? 'keep'}
              >
                <option value="keep">Keep {STATUS_LABELS[ticket.status].toLowerCase()}</option>
                <option value="pending">Pending</option>
                <option value="solved">Solved</option>
              </SelectField>
              <SubmitButton name="intent" value="send">
                Send
              </SubmitButton>
            </div>
          </Form>
        )}
      </div>
      <aside className="hd-ticket__side stack" aria-label="Ticket details">
        <div className="card stack">
          <h2 className="hd-side-title">Requester</h2>
          <p data-testid="requester">{requester}</p>
          {requesterCard.email ? (
            <p className="small">
              <a href={`mailto:${requesterCard.email}`} data-testid="requester-email">
                {requesterCard.email}
              </a>
            </p>
          ) : null}
          <p className="small muted">
            {requesterCard.requests === 1
              ? 'This is their only request.'
              : `${requesterCard.requests} requests in ${workspace.name}`}
          </p>
          {requesterCard.recent.length ? (
            <ul className="hd-side-list small" aria-label="Their other recent requests">
              {requesterCard.recent.map((r) => (
                <li key={r.number}>
                  <Link to={`/w/${workspace.slug}/tickets/${r.number}`}>
                    #{r.number} {r.subject}
                  </Link>{' '}
                  <StatusBadge status={r.status} />
                </li>
              ))}
            </ul>
          ) : null}
        </div>
        <Form method="post" className="card stack">
          <SelectField id="status" name="status" label="Status" defaultValue={ticket.status} key={`s-${ticket.status}`}>
            <StatusOptions />
          </SelectField>
          <ErrorList errors={errors.status} />
          <button type="submit" name="intent" value="status" className="button button--secondary">
            Update status
          </button>
        </Form>
        <Form method="post" className="card stack">
          <SelectField
            id="priority"
            name="priority"
            label="Priority"
            defaultValue={ticket.priority}
            key={`p-${ticket.priority}`}
          >
            <PriorityOptions />
          </SelectField>
          <ErrorList errors={errors.priority} />
          <button type="submit" name="intent" value="priority" className="button button--secondary">
            Update priority
          </button>
        </Form>
        <Form method="post" className="card stack">
          <SelectField
            id="assignee"
            name="assignee"
            label="Assignee"
            defaultValue={ticket.assignee_id ?? ''}
            key={`a-${ticket.assignee_id}`}
          >
            <option value="">Nobody</option>
            <MemberOptions members={members} />
          </SelectField>
          <ErrorList errors={errors.assignee} />
          <div className="hd-actions">
            <button type="submit" name="intent" value="assignee" className="button button--secondary">
              Update assignee
            </button>
            {ticket.assignee_id !== me ? (
              <button type="submit" name="intent" value="assign_me" className="button button--ghost">
                Assign to me
              </button>
            ) : null}
          </div>
        </Form>
        <div className="card stack">
          <h2 className="hd-side-title">History</h2>
          <ol className="hd-history">
            {events.map((e) => (
              <li key={e.id}>
                {e.text}
                <br />
                <time className="muted small" dateTime={e.created_at}>
                  {formatDate(e.created_at)}
                </time>
              </li>
            ))}
          </ol>
          {ticket.first_response_at ? (
            <p className="muted small">First response {formatDate(ticket.first_response_at)}</p>
          ) : null}
        </div>
      </aside>
    </section>
  );
}
