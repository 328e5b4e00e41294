// An agent's ticket page: the whole thread (internal notes set apart), the composer (reply or
// note, "send and set status", traffic cop via last_seen_message_id), and the sidebar: status,
// priority, assignee, requester, history. Not a member or not visible: 404.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import type { ShouldRevalidateFunction } from '@remix-run/react';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, SubmitButton, replyErrors, replyFormErrors, replyValue } from '~/components/forms.tsx';
import { AttachmentsField } from '~/components/attachments.tsx';
import { CannedReplyPicker } from '~/components/canned-reply-picker.tsx';
import { Thread, type ThreadMessage } from '~/components/helpdesk-thread.tsx';
import { PriorityBadge, SelectField, StatusBadge } from '~/components/helpdesk-ui.tsx';
import { MessageField } from '~/components/message-field.tsx';
import { TicketFields } from '~/components/ticket-fields.tsx';
import { LiveTicket } from '~/components/live/live-ticket.tsx';
import {
  appendToDraft,
  attachmentsArg,
  cannedReplyTitles,
  data,
  errorMessage,
  filledCannedReplies,
  jsonPage,
  mapDbError,
  namedMembers,
  parseNumber,
  parseSlug,
  parseSubmission,
  readMessageForm,
  redirectWithHeaders,
  removeUploads,
  requireMemberTicket,
  requireSameOrigin,
  requireUser,
  sidebarAction,
  throwDbError,
  throwNotFound,
  TicketSchema,
} from '~/lib/helpdesk/ticket-page.server.ts';
import { FILES_FIELD } from '~/lib/helpdesk/attachments.ts';
import {
  AGENT_STATUSES,
  formatDate,
  type MemberRole,
  STATUS_LABELS,
  type TicketPriority,
  type TicketStatus,
} from '~/lib/helpdesk/vocabulary.ts';
export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `#${data.ticket.number} ${data.ticket.subject} · ${data.workspace.name} · Tend` : 'Ticket · Tend' },
];

interface TicketRow {
  id: string;
  number: number;
  subject: string;
  status: TicketStatus;
  priority: TicketPriority;
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

/** What public.ticket_page returns (supabase/schemas/50_inbox.sql). */
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
  // The newest 100 changes, told oldest first like the thread.
  const events = rawEvents.toReversed().map((e) => ({
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
  // The page's data goes into the document as script: only what the page shows (the JavaScript budget).
  const { requester_id, created_at: _c, solved_at: _s, ...shownTicket } = ticket;
  return data(request, {
    workspace,
    me: user.id,
    members: members.map((m) => ({ user_id: m.user_id, name: m.name })),
    ticket: shownTicket,
    requester: name(requester_id),
    requesterCard: {
      email: requesterCard.email,
      requests: requesterCard.requests,
      recent: requesterCard.recent.map(({ last_message_at: _l, ...r }) => r),
    },
    assignee: ticket.assignee_id ? name(ticket.assignee_id) : null,
    messages,
    events,
    lastMessageId: messages.at(-1)?.id ?? '',
    clientKey: crypto.randomUUID(),
    cannedReplies: canned,
  });
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
    uploaderId: user.id,
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
  const page = `/w/${slug}/tickets/${params.number}`;
  if (form.intent !== 'send')
    return sidebarAction(request, supabase, { id: ticket.id, page }, user.id, form, submission);
  const { error } = await supabase.rpc('post_message', {
    p_ticket_id: ticket.id,
    p_body: form.body,
    p_kind: form.kind,
    p_new_status: form.set_status === 'keep' ? undefined : form.set_status,
    p_last_seen_message_id: form.last_seen_message_id ?? undefined,
    p_attachments: attachmentsArg(uploads),
    p_client_key: form.client_key,
  });
  if (error) {
    await removeUploads(supabase, uploads);
    const mapped = mapDbError(error, 'post_message');
    const result = submission.reply({ formErrors: [mapped.message] });
    // ticket_changed: the messages after the one the writer saw are new to them. The loader runs
    // again after this action, so they show above the kept draft.
    const changedAfter = mapped.code === 'ticket_changed' ? form.last_seen_message_id : undefined;
    return data(request, { result, changedAfter, fileNames }, { status: mapped.status });
  }
  return redirectWithHeaders(request, page);
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
  const result = actionData && 'result' in actionData ? actionData.result : undefined;
  // The sidebar's changes on their way show at once.

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
          articleFrom={`/w/${workspace.slug}/help/new?from=`}
        />
        {closed ? (
          <p className="notice notice--warning">This request is closed. The requester can open a follow-up request.</p>
        ) : (
          // Note mode (the "Internal note" radio) restyles and relabels the composer in CSS (:has), so it
          // shows without JavaScript too.
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
            <p id="note-banner" className="hd-note-banner hd-when-note">
              Internal note — only agents see this
            </p>
            <CannedReplyPicker
              replies={cannedReplies}
              src={`/w/${workspace.slug}/tickets/${ticket.number}/canned-replies`}
              textareaId="body"
              errors={replyErrors(result, 'canned_reply')}
            />
            <MessageField
              id="body"
              name="body"
              label="Message"
              errors={replyErrors(result, 'body')}
              defaultValue={replyValue(sent, 'body') ?? ''}
              describedBy="note-banner"
              key={`draft-${mine}`}
              required
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
                {AGENT_STATUSES.filter((s) => s !== ticket.status).map((s) => (
                  <option key={s} value={s}>
                    {STATUS_LABELS[s]}
                  </option>
                ))}
              </SelectField>
              <SubmitButton name="intent" value="send">
                <span className="hd-when-reply">Send</span>
                <span className="hd-when-note">Add internal note</span>
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
        <TicketFields
          ticketId={ticket.id}
          ticket={ticket}
          me={me}
          members={members}
          result={sent ? undefined : result}
        />
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
