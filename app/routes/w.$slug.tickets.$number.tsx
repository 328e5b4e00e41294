// An agent's ticket page: the whole thread (internal notes set apart), the composer (reply or
// note, "send and set status", traffic cop via last_seen_message_id), and the sidebar: status,
// priority, assignee, requester, history. Not a member or not visible: 404.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import type { ShouldRevalidateFunction } from '@remix-run/react';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { z } from 'zod';
import { ErrorList, SubmitButton, replyErrors, replyFormErrors, replyValue } from '~/components/forms.tsx';
import { AttachmentsField } from '~/components/attachments.tsx';
import { CannedReplyPicker } from '~/components/canned-reply-picker.tsx';
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
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { TicketSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { FILES_FIELD } from '~/lib/helpdesk/attachments.ts';
import { attachmentsArg, readMessageForm, removeUploads } from '~/lib/helpdesk/attachments.server.ts';
import { appendToDraft } from '~/lib/helpdesk/canned-replies.ts';
import { jsonPage } from '~/lib/helpdesk/json-page.ts';
import {
  cannedReplyTitles,
  filledCannedReplies,
  namedMembers,
  parseNumber,
  parseSlug,
  profileNames,
  requireMemberTicket,
  throwNotFound,
} from '~/lib/helpdesk/queries.server.ts';
import {
  formatDate,
  isPriority,
  isStatus,
  type MemberRole,
  PRIORITY_LABELS,
  STATUS_LABELS,
  type TicketStatus,
} from '~/lib/helpdesk/vocabulary.ts';
import { data, redirectWithHeaders, requireSameOrigin } from '~/lib/http/responses.server.ts';
import type { Database } from '~/lib/supabase/database.types.ts';

type Client = SupabaseClient<Database>;

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

/** What public.ticket_page returns (supabase/migrations/20251122209000_ticket_page.sql). */
interface TicketPage {
  workspace: { id: string; slug: string; name: string };
  members: { user_id: string; role: MemberRole }[];
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
  const slug = parseSlug(request, params.slug);
  const [{ data: result, error }, canned] = await Promise.all([
    supabase.rpc('ticket_page', { p_slug: slug, p_number: number }, { get: true }),
    cannedReplyTitles(request, supabase, slug),
  ]);
  if (error) {
    if (mapDbError(error, 'ticket page').code === 'not_found')
      await throwNotFound(request, supabase, params.slug ?? '');
    throwDbError(request, error, 'ticket page');
  }
  const {
    workspace,
    members: rows,
    ticket,
    messages: rawMessages,
    events: rawEvents,
    names: nameList,
    requester: requesterCard,
  } = jsonPage<TicketPage>(result);
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
    cannedReplies: canned,
    clientKey: crypto.randomUUID(),
  });
}

// The sidebar field that shows an intent's database refusal.
const FIELD_OF = { send: '', status: 'status', priority: 'priority', assignee: 'assignee', assign_me: 'assignee' };

type SidebarForm = Exclude<z.infer<typeof TicketSchema>, { intent: 'send' | 'insert_canned_reply' }>;
const COLUMN_OF = {
  status: 'status',
  priority: 'priority',
  assignee: 'assignee_id',
  assign_me: 'assignee_id',
} as const;
const EVENT_OF = { status: 'status', priority: 'priority', assignee: 'assignee', assign_me: 'assignee' } as const;
const NOBODY = 'nobody';

/**
 * A sidebar change, written only while the field still holds the value the form was rendered with
 * (the optimistic check: one UPDATE … WHERE, so of two agents assigning at once one wins and the
 * other is told). stale: the check matched no row.
 */
async function changeSidebar(supabase: Client, ticketId: string, me: string, form: SidebarForm) {
  const column = COLUMN_OF[form.intent];
  const patch =
    form.intent === 'status'
      ? { status: form.status }
      : form.intent === 'priority'
        ? { priority: form.priority }
        : { assignee_id: form.intent === 'assign_me' ? me : (form.assignee ?? null) };
  let update = supabase.from('tickets').update(patch).eq('id', ticketId);
  if (form.from !== undefined)
    update = form.from === NOBODY ? update.is(column, null) : update.filter(column, 'eq', form.from);
  const { data: rows, error } = await update.select('id');
  return { error, stale: !error && form.from !== undefined && rows.length === 0 };
}

/** The newest change of a sidebar field, in the catalogue's words: "Sam Support" "assigned this ticket to Lee". */
async function lastChange(request: Request, supabase: Client, ticketId: string, intent: SidebarForm['intent']) {
  const { data: event } = await supabase
    .from('ticket_events')
    .select('actor_id, to')
    .eq('ticket_id', ticketId)
    .eq('type', EVENT_OF[intent])
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .limit(1)
    .maybeSingle();
  const assigned = EVENT_OF[intent] === 'assignee';
  // An assignee event's `to` is a person; a status or priority event's, a value.
  const names = await profileNames(request, supabase, [event?.actor_id, assigned ? event?.to : null]);
  const who = (event?.actor_id && names.get(event.actor_id)) || 'Someone';
  const to = event?.to ?? null;
  const change =
    EVENT_OF[intent] === 'status'
      ? `changed the status to ${to && isStatus(to) ? STATUS_LABELS[to] : 'another one'}`
      : EVENT_OF[intent] === 'priority'
        ? `changed the priority to ${to && isPriority(to) ? PRIORITY_LABELS[to] : 'another one'}`
        : to && assigned
          ? `assigned this ticket to ${names.get(to) ?? 'someone else'}`
          : 'unassigned this ticket';
  return { who, change };
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const slug = params.slug ?? '';
  const ticket = await requireMemberTicket(request, supabase, user.id, slug, params.number);
  const {
    form: formData,
    uploads,
    fileErrors,
    fileNames,
  } = await readMessageForm(request, supabase, {
    workspaceId: ticket.workspaceId,
    ticketId: ticket.id,
  });
  const submission = parseSubmission(formData, TicketSchema);
  // Files go with the composer's "Send" only.
  const sending = submission.status === 'success' && submission.value.intent === 'send';
  if (!sending || fileErrors.length) await removeUploads(supabase, uploads);
  if (submission.status !== 'success' || (sending && fileErrors.length)) {
    const result = submission.reply(fileErrors.length ? { fieldErrors: { [FILES_FIELD]: fileErrors } } : undefined);
    return data(request, { result, fileNames }, { status: 400 });
  }

  const form = submission.value;
  if (form.intent === 'insert_canned_reply') {
    // Nothing is written: the page comes back with the reply, filled in, after what was typed.
    const [reply] = await filledCannedReplies(request, supabase, user, ticket, form.canned_reply);
    if (!reply) {
      const result = submission.reply({ fieldErrors: { canned_reply: [errorMessage('not_found')] } });
      return data(request, { result, fileNames }, { status: 404 });
    }
    const result = submission.reply();
    const body = appendToDraft(replyValue(result, 'body') ?? '', reply.text);
    return data(request, { result: { ...result, initialValue: { ...result.initialValue, body } }, fileNames });
  }
  const { error, stale } =
    form.intent === 'send'
      ? {
          stale: false,
          error: (
            await supabase.rpc('post_message', {
              p_ticket_id: ticket.id,
              p_body: form.body,
              p_kind: form.kind,
              p_new_status: form.set_status === 'keep' ? undefined : form.set_status,
              p_last_seen_message_id: form.last_seen_message_id ?? undefined,
              p_attachments: attachmentsArg(uploads),
              p_client_key: form.client_key,
            })
          ).error,
        }
      : await changeSidebar(supabase, ticket.id, user.id, form);
  if (stale && form.intent !== 'send') {
    // Nothing written: the field is no longer what the form showed. Say who changed it to what; the
    // page reloads (409) with the value as it is now.
    const field = FIELD_OF[form.intent];
    const message = errorMessage('ticket_field_changed', await lastChange(request, supabase, ticket.id, form.intent));
    return data(
      request,
      { result: submission.reply({ fieldErrors: { [field]: [message] } }), fileNames },
      { status: 409 },
    );
  }
  if (error) {
    if (sending) await removeUploads(supabase, uploads);
    const mapped = mapDbError(error, form.intent === 'send' ? 'post_message' : `ticket ${form.intent}`);
    const field = FIELD_OF[form.intent];
    const result = submission.reply(
      field ? { fieldErrors: { [field]: [mapped.message] } } : { formErrors: [mapped.message] },
    );
    // ticket_changed: the messages after the one the writer saw are new to them. The loader runs
    // again after this action, so they show above the kept draft.
    const changedAfter =
      mapped.code === 'ticket_changed' && form.intent === 'send' ? form.last_seen_message_id : undefined;
    return data(request, { result, changedAfter, fileNames }, { status: mapped.status });
  }
  return redirectWithHeaders(request, `/w/${slug}/tickets/${params.number}`);
}

/**
 * A refusal because the ticket changed meanwhile (409: ticket_changed, ticket_closed,
 * invalid_transition) shows it as it is now, above the kept text. Single fetch skips reloading
 * after an action's 4xx unless asked; without JavaScript the page is rendered afresh anyway.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionStatus, defaultShouldRevalidate }) =>
  actionStatus === 409 || defaultShouldRevalidate;

export default function TicketPage() {
  const {
    workspace,
    me,
    members,
    ticket,
    requester,
    requesterCard,
    assignee,
    messages,
    events,
    lastMessageId,
    clientKey,
    cannedReplies,
  } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const result = actionData?.result;
  // A refused draft is kept, with how it was to be sent.
  const sent = ['send', 'insert_canned_reply'].includes(replyValue(result, 'intent') ?? '') ? result : undefined;
  const changedAfter =
    actionData && 'changedAfter' in actionData ? (actionData.changedAfter as string | undefined) : undefined;
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
        <Thread
          messages={messages}
          highlightAfter={changedAfter ?? null}
          filesPath={`/w/${workspace.slug}/tickets/${ticket.number}/files/`}
        />
        {closed ? (
          <p className="notice notice--warning">This request is closed. The requester can open a follow-up request.</p>
        ) : (
          <Form method="post" className="card stack hd-composer" encType="multipart/form-data" noValidate>
            <input type="hidden" name="last_seen_message_id" value={lastMessageId} />
            <input type="hidden" name="client_key" value={clientKey} />
            <ErrorList errors={replyFormErrors(result, 'kind', 'set_status')} />
            <fieldset className="hd-kind">
              <legend>Type</legend>
              <label>
                <input
                  type="radio"
                  name="kind"
                  value="reply"
                  defaultChecked={(replyValue(sent, 'kind') ?? 'reply') === 'reply'}
                />{' '}
                Reply to customer
              </label>
              <label>
                <input type="radio" name="kind" value="note" defaultChecked={replyValue(sent, 'kind') === 'note'} />{' '}
                Internal note
              </label>
            </fieldset>
            <CannedReplyPicker
              replies={cannedReplies}
              src={`/w/${workspace.slug}/tickets/${ticket.number}/canned-replies`}
              textareaId="body"
              errors={replyErrors(result, 'canned_reply')}
            />
            <TextareaField
              id="body"
              name="body"
              label="Message"
              errors={replyErrors(result, 'body')}
              defaultValue={replyValue(sent, 'body') ?? ''}
              key={`draft-${mine}`}
              required
              maxLength={MESSAGE_MAX_LENGTH}
              rows={6}
            />
            <AttachmentsField
              errors={replyErrors(sent, FILES_FIELD)}
              keptNames={sent && actionData && 'fileNames' in actionData ? actionData.fileNames : undefined}
              key={`files-${mine}`}
            />
            <div className="hd-actions">
              <SelectField
                id="set_status"
                name="set_status"
                label="Send and set status"
                defaultValue={replyValue(sent, 'set_status') ?? 'keep'}
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
          <input type="hidden" name="from" value={ticket.status} />
          <SelectField id="status" name="status" label="Status" defaultValue={ticket.status} key={`s-${ticket.status}`}>
            <StatusOptions />
          </SelectField>
          <ErrorList errors={replyErrors(result, 'status')} />
          <button type="submit" name="intent" value="status" className="button button--secondary">
            Update status
          </button>
        </Form>
        <Form method="post" className="card stack">
          <input type="hidden" name="from" value={ticket.priority} />
          <SelectField
            id="priority"
            name="priority"
            label="Priority"
            defaultValue={ticket.priority}
            key={`p-${ticket.priority}`}
          >
            <PriorityOptions />
          </SelectField>
          <ErrorList errors={replyErrors(result, 'priority')} />
          <button type="submit" name="intent" value="priority" className="button button--secondary">
            Update priority
          </button>
        </Form>
        <Form method="post" className="card stack">
          <input type="hidden" name="from" value={ticket.assignee_id ?? NOBODY} />
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
          <ErrorList errors={replyErrors(result, 'assignee')} />
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
