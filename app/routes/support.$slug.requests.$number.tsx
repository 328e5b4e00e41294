// A requester's view of their request: the public thread (never internal notes), reply (reopens
// pending/solved), "Mark as solved", and a follow-up link once closed. A follower of the request reads and
// answers it the same way; marking it solved is the requester's (docs/decisions/064-followers.md).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import type { ClientActionFunctionArgs, ClientLoaderFunctionArgs, ShouldRevalidateFunction } from '@remix-run/react';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import {
  ErrorList,
  isOffline,
  sendOrKeep,
  SubmitButton,
  replyErrors,
  replyFormErrors,
  replyValue,
  useIsPending,
} from '~/components/forms.tsx';
import { AttachmentsField } from '~/components/attachments.tsx';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { notAttachedNote, splitNotAttached } from '../../supabase/functions/_shared/not-attached.ts';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import { Thread, type ThreadMessage } from '~/components/helpdesk-thread.tsx';
import { StatusBadge } from '~/components/ticket-labels.tsx';
import { MessageField } from '~/components/message-field.tsx';
import { LiveThread } from '~/components/live/live-thread.tsx';
import { loadOrKeep } from '~/components/live/kept-page.ts';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { PortalRequestSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { FILES_FIELD } from '~/lib/helpdesk/attachments.ts';
import { attachmentsArg, readMessageForm, removeUploads } from '~/lib/helpdesk/attachments.server.ts';
import { threadHtml } from '~/lib/helpdesk/message-body.server.ts';
import { profileNames } from '~/lib/helpdesk/profile-names.server.ts';
import { earlierCursor, samePage, THREAD_PAGE, threadWindow } from '~/lib/helpdesk/thread-window.ts';
import { requireRequesterTicket } from '~/lib/helpdesk/workspace-access.server.ts';
import { PORTAL_STATUS_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import { dataWithSession, errorResponse, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { ratingLabel, SURVEY_ANSWERS } from '~/lib/satisfaction/ratings.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `#${data.ticket.number} ${data.ticket.subject} · ${data.workspace.name} · Tend` : 'Request · Tend' },
  { name: 'description', content: 'Your request: the conversation with the team, and your reply.' },
];

/** The signed-in requester's ticket this page is about (404 for anyone else's). */
async function requesterTicket(request: Request, params: LoaderFunctionArgs['params']) {
  const { user, supabase } = await requireUser(request);
  const found = await requireRequesterTicket(request, supabase, user.id, params.slug ?? '', params.number);
  return { user, supabase, ...found };
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { user, supabase, workspace, ticket } = await requesterTicket(request, params);
  // Merged into another request (docs/product.md#merge): that one's page, when I asked or follow it too
  // (a merge makes the secondary's requester a follower); a member's own portal never gets here.
  if (ticket.merged_into_id) {
    const { data: into } = await supabase
      .from('tickets')
      .select('number')
      .eq('id', ticket.merged_into_id)
      .maybeSingle();
    if (into) throw redirectWithSession(request, `/support/${workspace.slug}/requests/${into.number}`);
  }
  // Replies only, whoever reads: RLS already hides notes from requesters; this keeps the portal public-only for agents too.
  // A window of the thread (thread-window.ts): from the cursor on, and THREAD_PAGE + 1 before it, newest first.
  const cursor = earlierCursor(request);
  const replies = () =>
    supabase
      .from('messages')
      .select('id, kind, body, created_at, author_id, attachments(id, file_name, size, mime_type)')
      .eq('ticket_id', ticket.id)
      .eq('kind', 'reply')
      // Files in the order they were added, as the agent's page lists them (ticket_page).
      .order('created_at', { referencedTable: 'attachments' })
      .order('file_name', { referencedTable: 'attachments' });
  // Keyset on (created_at, id), the cursor's time quoted (decodeCursor let only a timestamp through).
  const at = cursor && `"${cursor.at}"`;
  const [before, from, mine, customers, survey, zoneOf] = await Promise.all([
    (cursor ? replies().or(`created_at.lt.${at},and(created_at.eq.${at},id.lt.${cursor.id})`) : replies())
      .order('created_at', { ascending: false })
      .order('id', { ascending: false })
      .limit(THREAD_PAGE + 1),
    cursor
      ? replies().or(`created_at.gt.${at},and(created_at.eq.${at},id.gte.${cursor.id})`).order('created_at').order('id')
      : null,
    // How many replies I wrote here: the kept draft's counter (kept-draft.ts).
    supabase
      .from('messages')
      .select('id', { count: 'exact', head: true })
      .eq('ticket_id', ticket.id)
      .eq('author_id', user.id),
    // The requester and followers: their messages show as written, the team's as Markdown.
    supabase.rpc('thread_customers', { p_ticket_id: ticket.id }),
    // The requester's survey (a follower gets none).
    surveyOf(request, supabase, ticket.id),
    viewerZones({ request, context }, supabase),
  ]);
  const error = before.error ?? from?.error ?? mine.error ?? customers.error;
  if (error) throwDbError(request, error, 'portal messages');
  const thread = threadWindow([...(before.data ?? []).toReversed(), ...(from?.data ?? [])], cursor);
  const names = await profileNames(
    request,
    supabase,
    thread.messages.map((m) => m.author_id),
  );
  // A mailed message's line naming the files not taken is the team's: the requester reads a note under
  // their own message instead, and nothing under anyone else's.
  const filesPath = `/support/${workspace.slug}/requests/${ticket.number}/files/`;
  const zone = zoneOf(workspace.time_zone);
  const messages: ThreadMessage[] = thread.messages.map(({ body, ...m }) => {
    const { text, refused } = splitNotAttached(body);
    return {
      ...m,
      html: threadHtml({ body: text, ...m }, customers.data ?? [user.id], filesPath),
      author: m.author_id === user.id ? 'You' : (names.get(m.author_id) ?? workspace.name),
      when: formatDateIn(m.created_at, zone),
      notice: m.author_id === user.id ? notAttachedNote(refused) : null,
    };
  });
  return dataWithSession(request, {
    workspace,
    ticket,
    messages,
    earlier: thread.earlier,
    mine: mine.count ?? 0,
    clientKey: crypto.randomUUID(),
    survey,
  });
}

/**
 * The request's latest satisfaction survey while it can be answered (92_satisfaction.sql): the question,
 * the answer so far, and the rating page's token (the requester's own; anyone else gets none).
 */
async function surveyOf(request: Request, supabase: Supabase, ticketId: string) {
  const { data, error } = await supabase
    .from('csat_surveys')
    .select('id, question, rating, expires_at')
    .eq('ticket_id', ticketId)
    .order('created_at', { ascending: false })
    .limit(1)
    .maybeSingle();
  if (error) throwDbError(request, error, 'portal survey');
  if (!data || Date.parse(data.expires_at) <= Date.now()) return null;
  const { data: token } = await supabase.rpc('survey_token', { p_survey_id: data.id });
  return token ? { question: data.question, rating: data.rating, token } : null;
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase, workspace, ticket } = await requesterTicket(request, params);
  const { form, uploads, fileErrors, fileNames } = await readMessageForm(request, supabase, {
    uploaderId: user.id,
    workspaceId: workspace.id,
    ticketId: ticket.id,
  });
  const submission = parseSubmission(form, PortalRequestSchema);
  // Files go with a reply only; "Mark as solved" leaves them behind.
  const replying = submission.status === 'success' && submission.value.intent === 'reply';
  if (submission.status !== 'success' || (replying && fileErrors.length) || (!replying && uploads.length)) {
    await removeUploads(supabase, uploads);
  }
  if (submission.status !== 'success' || (replying && fileErrors.length)) {
    const result = submission.reply(fileErrors.length ? { fieldErrors: { [FILES_FIELD]: fileErrors } } : undefined);
    return dataWithSession(request, { result, fileNames }, { status: 400 });
  }

  const { intent } = submission.value;
  // Only the requester marks it solved: a follower's button isn't there, a hand-made request is refused.
  if (intent === 'solve' && ticket.following) throw errorResponse(request, 'bad_request');
  const { error } =
    submission.value.intent === 'reply'
      ? await supabase.rpc('post_message', {
          p_ticket_id: ticket.id,
          p_body: submission.value.body,
          p_attachments: attachmentsArg(uploads),
          p_client_key: submission.value.client_key,
        })
      : await supabase.from('tickets').update({ status: 'solved' }).eq('id', ticket.id);
  if (error) {
    if (replying) await removeUploads(supabase, uploads);
    const mapped = mapDbError(error, `portal ${intent}`);
    return dataWithSession(
      request,
      {
        result: submission.reply({ formErrors: [mapped.message] }),
        closed: mapped.code === 'ticket_closed',
        fileNames,
      },
      { status: mapped.status },
    );
  }
  return redirectWithSession(request, samePage(request, `/support/${workspace.slug}/requests/${ticket.number}`));
}

/**
 * A refusal because the request changed meanwhile (409: ticket_changed, ticket_closed,
 * invalid_transition) shows it as it is now, above the kept text. Single fetch skips reloading
 * after an action's 4xx unless asked; without JavaScript the page is rendered afresh anyway.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionStatus, actionResult, defaultShouldRevalidate }) =>
  !isOffline(actionResult) && (actionStatus === 409 || defaultShouldRevalidate);

/** With the network down, the page and the reply stay as they are (forms.tsx). */
export const clientAction = ({ serverAction }: ClientActionFunctionArgs) => sendOrKeep(serverAction<typeof action>);

/** A live update the network fails to load keeps the page and the draft (kept-page.ts). */
export const clientLoader = ({ request, serverLoader }: ClientLoaderFunctionArgs) =>
  loadOrKeep(request, serverLoader<typeof loader>);

export default function PortalRequest() {
  const { workspace, ticket, messages, earlier, mine, clientKey, survey } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const result = actionData?.result;
  const closed = ticket.status === 'closed' || (actionData && 'closed' in actionData && actionData.closed);
  const base = `/support/${workspace.slug}`;
  // The box starts empty after my own reply is sent (`mine`: how many I wrote here), and only then:
  // live updates bring others'.
  return (
    <section className="stack-lg hd-portal-ticket" aria-labelledby="request-title">
      <div className="card">
        <p className="eyebrow">
          <Link to={base}>{workspace.name}</Link> · Request #{ticket.number}
        </p>
        <h1 id="request-title" dir="auto">
          {ticket.subject}
        </h1>
        <p>
          Status: <StatusBadge status={ticket.status} label={PORTAL_STATUS_LABELS[ticket.status]} />
        </p>
      </div>
      <LiveThread ticketId={ticket.id} />
      <Thread messages={messages} earlier={earlier} filesPath={`${base}/requests/${ticket.number}/files/`} />
      {survey ? (
        <section className="card stack cs-survey" aria-labelledby="survey-title" data-testid="survey">
          <h2 id="survey-title" dir="auto">
            {survey.question}
          </h2>
          {survey.rating ? (
            <p>Your answer: {ratingLabel(survey.rating)}. You can change it, or add a comment.</p>
          ) : null}
          <ul className="hd-actions" aria-label="Answers">
            {SURVEY_ANSWERS.map((a) => (
              <li key={a.rating}>
                <a
                  className={`button ${survey.rating === a.rating ? '' : 'button--secondary'}`}
                  href={`${base}/requests/${ticket.number}/rating?${new URLSearchParams({ t: survey.token, rating: a.rating })}`}
                  aria-current={survey.rating === a.rating ? 'true' : undefined}
                >
                  {a.label}
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {ticket.merged_into_id ? (
        <div className="card notice notice--warning" data-testid="closed-notice">
          <p>The team merged this request into another one. To add something, reply to one of its emails.</p>
        </div>
      ) : closed ? (
        <div className="card notice notice--warning" data-testid="closed-notice">
          <p>
            This request is closed. <Link to={`${base}/new`}>Open a follow-up request</Link>
          </p>
        </div>
      ) : (
        <div className="card stack">
          <Form method="post" className="stack" encType="multipart/form-data" noValidate>
            <input type="hidden" name="client_key" value={clientKey} />
            <MessageField
              id="body"
              name="body"
              label="Your reply"
              hint={
                ticket.status === 'solved' || ticket.status === 'pending' ? 'Replying reopens this request.' : undefined
              }
              errors={replyErrors(result, 'body')}
              defaultValue={replyValue(result, 'intent') === 'reply' ? replyValue(result, 'body') : ''}
              key={result ? 'kept' : `draft-${mine}`}
              keep={{ key: ticket.id, sent: mine }}
              required
              rows={5}
            />
            <AttachmentsField
              errors={replyErrors(result, FILES_FIELD)}
              keptNames={actionData && 'fileNames' in actionData ? actionData.fileNames : undefined}
            />
            <ErrorList errors={isOffline(actionData) ? [errorMessage('offline')] : replyFormErrors(result)} />
            <div className="hd-actions">
              <SubmitButton pending={pending} name="intent" value="reply">
                Send reply
              </SubmitButton>
              {ticket.status !== 'solved' && !ticket.following ? (
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
