// The ticket page's loader and action (route.tsx): the page in one call, the composer's send and
// canned reply, and the sidebar's writes with their optimistic check.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import type { z } from 'zod';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { TicketSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { replyValue } from '~/components/forms.tsx';
import type { ThreadMessage } from '~/components/helpdesk-thread.tsx';
import type { TicketFollower } from '~/components/ticket-followers-form.tsx';
import { attachmentsArg, readMessageForm, removeUploads } from '~/lib/helpdesk/attachments.server.ts';
import { FILES_FIELD } from '~/lib/helpdesk/attachments.ts';
import { byTitle, filledCannedReplies } from '~/lib/helpdesk/canned-replies.server.ts';
import { appendToDraft } from '~/lib/helpdesk/canned-replies.ts';
import type { TicketTag } from '~/lib/helpdesk/inbox-query.server.ts';
import { jsonPage } from '~/lib/helpdesk/json-page.ts';
import { earlierCursor, samePage, THREAD_PAGE, threadWindow } from '~/lib/helpdesk/thread-window.ts';
import { threadHtml } from '~/lib/helpdesk/message-body.server.ts';
import type { TicketFieldValue } from '~/lib/helpdesk/ticket-fields.ts';
import { ticketFieldsMarkup } from '~/lib/helpdesk/ticket-fields-markup.server.tsx';
import { ticketFollowersMarkup } from '~/lib/helpdesk/ticket-followers-markup.server.tsx';
import { namedMembers, profileNames } from '~/lib/helpdesk/profile-names.server.ts';
import {
  parseNumber,
  parseSlug,
  requireMemberTicket,
  throwNotFound,
  type Workspace,
} from '~/lib/helpdesk/workspace-access.server.ts';
import { isPriority, isStatus, NO_ASSIGNEE } from '~/lib/helpdesk/ticket-terms.ts';
import { dataWithSession, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';
import type { Database, Tables } from '~/lib/supabase/database.types.ts';
import { dueBadge, SLA_TARGET_LABELS } from '~/lib/promises/due.ts';
import { ratingMarkup } from '~/lib/satisfaction/rating-markup.server.tsx';
import { mergeCandidates } from './merge.server.ts';
import { moreMenuMarkup, ticketNoticeMarkup } from './more-menu.server.tsx';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { carryingViewerState, type ViewerState, zonesFor } from '~/lib/helpdesk/viewer-zone.server.ts';
import { changeLine, historyLine, type SidebarField, type TicketEvent } from './ticket-events.ts';

/** What public.ticket_page answers (supabase/schemas/50_inbox.sql), in its rows' own types. */
interface TicketPageJson {
  workspace: Workspace & Pick<Tables<'workspaces'>, 'time_zone'>;
  /** The viewer's bell and time zone setting (public.viewer_state; docs/decisions/082-page-calls.md). */
  viewer: ViewerState;
  members: Pick<Tables<'memberships'>, 'user_id' | 'role'>[];
  ticket: Pick<
    Tables<'tickets'>,
    | 'id'
    | 'number'
    | 'subject'
    | 'status'
    | 'priority'
    | 'requester_id'
    | 'assignee_id'
    | 'created_at'
    | 'first_response_at'
    | 'solved_at'
    | 'snoozed_until'
    | 'spam_at'
    | 'trashed_at'
  > & { tags: TicketTag[]; merged_into: number | null };
  /** A window of the thread, oldest first (thread-window.ts). */
  messages: (Omit<ThreadMessage, 'author' | 'html'> & Pick<Tables<'messages'>, 'body'>)[];
  /** How many messages I wrote here. */
  mine: number;
  events: (TicketEvent & Pick<Tables<'ticket_events'>, 'id' | 'created_at'>)[];
  names: Record<string, string>;
  /** The SLA promise running, if any (supabase/schemas/90_promises.sql). */
  sla: Pick<Tables<'ticket_sla'>, 'target' | 'due_at' | 'warn_at'> | null;
  /** The workspace's canned replies, by title (the page sorts them: byTitle). */
  canned: Pick<Tables<'canned_replies'>, 'title'>[];
  /** My signature, under each new draft. */
  signature: Tables<'signatures'>['body'] | null;
  /** The custom fields with this ticket's values (the sidebar's card; supabase/schemas/58_ticket_fields.sql). */
  fields: TicketFieldValue[];
  /** The requester's latest answer to a satisfaction survey (92_satisfaction.sql), if any. */
  rating: Pick<Tables<'csat_surveys'>, 'rating' | 'comment'> | null;
  /** Its followers, first added first (supabase/schemas/54_followers.sql, as ticket_follower_list lists them). */
  followers: TicketFollower[];
  /** The requester card (public.requester_card): the requester's name, email and other recent requests here. */
  requester: {
    name: string;
    email: string | null;
    requests: number;
    recent: Pick<Tables<'tickets'>, 'number' | 'subject' | 'status' | 'last_message_at'>[];
  };
}

// One round trip: membership (404 for anyone else), the ticket, its thread and history, names, the
// requester card, the canned replies' titles, my signature, the custom fields, the rating and the followers.
// The call answers the viewer's bell and time zone too: the root's loader takes them from it (viewerState).
export const loader = ({ request, params, context }: LoaderFunctionArgs) =>
  carryingViewerState(context, (carry) => ticketPage(request, params, carry));

async function ticketPage(request: Request, params: LoaderFunctionArgs['params'], carry: (state: ViewerState) => void) {
  const { user, supabase } = await requireUser(request);
  const number = parseNumber(request, params.number);
  const slug = parseSlug(request, params.slug);
  const cursor = earlierCursor(request);
  const [{ data: result, error }, merge] = await Promise.all([
    supabase.rpc(
      'ticket_page',
      {
        p_slug: slug,
        p_number: number,
        p_page: THREAD_PAGE,
        ...(cursor ? { p_earlier_at: cursor.at, p_earlier_id: cursor.id } : {}),
      },
      { get: true },
    ),
    // "Merge into…" searched (?merge=): the tickets to choose from.
    mergeCandidates(request, supabase, slug, number),
  ]);
  if (error) {
    if (mapDbError(error, 'ticket page').code === 'not_found')
      await throwNotFound(request, supabase, params.slug ?? '');
    throwDbError(request, error, 'ticket page');
  }
  const page = jsonPage<TicketPageJson>(result);
  carry(page.viewer);
  const { followers } = page;
  // Merged into another ticket: its page is that one's.
  if (page.ticket.merged_into) throw redirectWithSession(request, `/w/${slug}/tickets/${page.ticket.merged_into}`);
  const names = new Map(Object.entries(page.names));
  const members = namedMembers(page.members, names);
  const name = (id: string | null) => (id ? (names.get(id) ?? 'Unknown') : 'Tend');
  const thread = threadWindow(page.messages, cursor);
  const base = `/w/${page.workspace.slug}/tickets/${page.ticket.number}`;
  const filesPath = `${base}/files/`;
  // A requester's message may become a ticket of its own, unless it is the only one (docs/product.md#split).
  const splittable = !page.ticket.trashed_at && (thread.messages.length > 1 || !!thread.earlier);
  // Times in the viewer's time zone, said by the server (docs/product.md §2).
  const zone = zonesFor(request, page.viewer)(page.workspace.time_zone);
  const customers = [page.ticket.requester_id, ...followers.map((f) => f.user_id)];
  const messages: ThreadMessage[] = thread.messages.map(({ body, ...m }) => ({
    ...m,
    html: threadHtml({ body, ...m }, customers, filesPath),
    author: name(m.author_id),
    when: formatDateIn(m.created_at, zone),
    split:
      splittable && m.kind === 'reply' && m.author_id === page.ticket.requester_id
        ? `${base}/split?message=${m.id}`
        : undefined,
  }));
  // The newest 100 changes, told oldest first like the thread.
  const events = page.events
    .toReversed()
    .map((e) => ({ id: e.id, when: formatDateIn(e.created_at, zone), text: historyLine(e, name, zone) }));
  // The page's data goes into the document as script: only what the page shows (the JavaScript budget).
  const {
    requester_id,
    created_at: _c,
    solved_at: _s,
    snoozed_until: snoozedUntil,
    first_response_at: firstResponse,
    merged_into: _m,
    spam_at: spamAt,
    trashed_at: trashedAt,
    ...shownTicket
  } = page.ticket;
  const due = dueBadge(page.sla?.due_at, page.sla?.warn_at, new Date(), zone);
  return dataWithSession(request, {
    workspace: { id: page.workspace.id, slug: page.workspace.slug, name: page.workspace.name },
    // The snooze's typed time is the workspace's (its presets are the workspace's 9:00).
    timeZone: page.workspace.time_zone,
    me: user.id,
    // The agent's signature, under each new draft.
    signature: page.signature,
    members: members.map((m) => ({ user_id: m.user_id, name: m.name })),
    ticket: shownTicket,
    snoozedUntil: formatDateIn(snoozedUntil, zone) || null,
    firstResponse: formatDateIn(firstResponse, zone) || null,
    // The header's badge, worded here: "First response due in 25 min · Mon 9 Mar, 10:00 UTC+1".
    due:
      due && page.sla?.target
        ? { ...due, text: `${SLA_TARGET_LABELS[page.sla.target]} ${due.text} · ${due.when}` }
        : null,
    requester: name(requester_id),
    requesterCard: {
      user_id: requester_id,
      email: page.requester.email,
      requests: page.requester.requests,
      recent: page.requester.recent.map(({ last_message_at: _l, ...r }) => r),
    },
    assignee: page.ticket.assignee_id ? name(page.ticket.assignee_id) : null,
    rating: ratingMarkup(page.rating),
    messages,
    earlier: thread.earlier,
    mine: page.mine,
    events,
    lastMessageId: messages.at(-1)?.id ?? '',
    clientKey: crypto.randomUUID(),
    cannedReplies: page.canned.sort(byTitle).map((c) => c.title),
    // "More" (Forward, Merge into…, Spam, Delete) and what stands instead of the composer, as markup
    // (more-menu.server.tsx).
    more: moreMenuMarkup({ base, spamAt, trashedAt, number: page.ticket.number, merge }),
    // Only when there is one: every byte of the page's data counts (docs/decisions/006-javascript-budget.md).
    ...ticketNoticeMarkup({
      base,
      spamAt,
      trashedAt,
      closed: page.ticket.status === 'closed',
      timeZone: zone,
    }),
    // The custom fields' card as markup (ticket-fields-markup.server.tsx), or null when the workspace has none.
    fieldsForm: ticketFieldsMarkup(`/w/${page.workspace.slug}/tickets/${page.ticket.number}/fields`, page.fields),
    // The followers' card as markup (ticket-followers-markup.server.tsx).
    followersForm: ticketFollowersMarkup(
      `/w/${page.workspace.slug}/tickets/${page.ticket.number}/followers`,
      followers,
    ),
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
    return dataWithSession(request, { result, fileNames }, { status: 400 });
  }

  const form = submission.value;
  if (form.intent === 'insert_canned_reply') {
    // Nothing is written: the page comes back with the reply, filled in, after what was typed.
    const [reply] = await filledCannedReplies(request, supabase, user, ticket, form.canned_reply);
    if (!reply) {
      const result = submission.reply({ fieldErrors: { canned_reply: [errorMessage('not_found')] } });
      return dataWithSession(request, { result, fileNames }, { status: 404 });
    }
    const result = submission.reply();
    const body = appendToDraft(replyValue(result, 'body') ?? '', reply.text);
    return dataWithSession(request, {
      result: { ...result, initialValue: { ...result.initialValue, body } },
      fileNames,
    });
  }
  const page = samePage(request, `/w/${slug}/tickets/${params.number}`);
  if (form.intent === 'add_tag' || form.intent === 'remove_tag')
    return tagAction(request, supabase, { id: ticket.id, page }, form, submission);
  if (form.intent === 'snooze' || form.intent === 'wake')
    return snoozeAction(request, supabase, { id: ticket.id, page }, form, submission);
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
    return dataWithSession(request, { result, changedAfter, fileNames }, { status: mapped.status });
  }
  return redirectWithSession(request, page);
}

type TicketForm = z.infer<typeof TicketSchema>;
type SidebarForm = Exclude<
  TicketForm,
  { intent: 'send' | 'insert_canned_reply' | 'add_tag' | 'remove_tag' | 'snooze' | 'wake' }
>;

/** Snooze until a preset or a date and time (public.snooze_ticket), or wake it; refused at the field. */
async function snoozeAction(
  request: Request,
  supabase: Supabase,
  ticket: { id: string; page: string },
  form: Extract<TicketForm, { intent: 'snooze' | 'wake' }>,
  submission: ReturnType<typeof parseSubmission<typeof TicketSchema>>,
) {
  const custom = form.intent === 'snooze' && form.preset === 'custom';
  const { error } = await supabase.rpc('snooze_ticket', {
    p_ticket_id: ticket.id,
    p_preset: form.intent === 'wake' ? 'wake' : custom ? undefined : form.preset,
    p_at: custom ? (form.at ?? undefined) : undefined,
  });
  if (error) {
    const mapped = mapDbError(error, `ticket ${form.intent}`);
    const result = submission.reply({ fieldErrors: { at: [mapped.message] } });
    return dataWithSession(request, { result, fileNames: [] as string[] }, { status: mapped.status });
  }
  return redirectWithSession(request, ticket.page);
}

/**
 * The sidebar's tags: add one by name (public.add_ticket_tag creates it if this agent may), or
 * remove one. A refusal comes back at the tag field with what was typed; done, the page again.
 */
async function tagAction(
  request: Request,
  supabase: Supabase,
  ticket: { id: string; page: string },
  form: Extract<TicketForm, { intent: 'add_tag' | 'remove_tag' }>,
  submission: ReturnType<typeof parseSubmission<typeof TicketSchema>>,
) {
  const { error } =
    form.intent === 'add_tag'
      ? await supabase.rpc('add_ticket_tag', { p_ticket_id: ticket.id, p_name: form.tag })
      : await supabase.from('ticket_tags').delete().eq('ticket_id', ticket.id).eq('tag_id', form.tag_id);
  if (error) {
    const mapped = mapDbError(error, `ticket ${form.intent}`);
    const result = submission.reply({ fieldErrors: { tag: [mapped.message] } });
    return dataWithSession(request, { result, fileNames: [] as string[] }, { status: mapped.status });
  }
  return redirectWithSession(request, ticket.page);
}
/** One field to write, and its value when the page was rendered (undefined: no check). */
interface FieldChange {
  field: SidebarField;
  value: string | null;
  from: string | undefined;
}
const COLUMN_OF = { status: 'status', priority: 'priority', assignee: 'assignee_id' } as const;

/** What a sidebar form asks to write: one field (with JavaScript), or those "Save" changed. */
function sidebarChanges(form: SidebarForm, me: string): FieldChange[] {
  switch (form.intent) {
    case 'status':
      return [{ field: 'status', value: form.status, from: form.from_status }];
    case 'priority':
      return [{ field: 'priority', value: form.priority, from: form.from_priority }];
    case 'assignee':
      return [{ field: 'assignee', value: form.assignee ?? null, from: form.from_assignee }];
    case 'assign_me':
      return [{ field: 'assignee', value: me, from: form.from_assignee }];
    case 'save':
      return [
        { field: 'status' as const, value: form.status, from: form.from_status },
        { field: 'priority' as const, value: form.priority, from: form.from_priority },
        { field: 'assignee' as const, value: form.assignee ?? null, from: form.from_assignee },
      ].filter((c) => c.from === undefined || c.value !== (c.from === NO_ASSIGNEE ? null : c.from));
  }
}

/**
 * Sidebar changes, written in one UPDATE and only while each field still holds the value the form
 * was rendered with (the optimistic check: of two agents assigning at once one wins and the other
 * is told). stale: the fields whose check failed (the update matched no row).
 */
async function changeSidebar(supabase: Supabase, ticketId: string, changes: FieldChange[]) {
  const patch: Database['public']['Tables']['tickets']['Update'] = {};
  for (const { field, value } of changes)
    if (field === 'assignee') patch.assignee_id = value;
    else if (field === 'status' && isStatus(value)) patch.status = value;
    else if (field === 'priority' && isPriority(value)) patch.priority = value;
  let update = supabase.from('tickets').update(patch).eq('id', ticketId);
  for (const { field, from } of changes)
    if (from !== undefined)
      update = from === NO_ASSIGNEE ? update.is(COLUMN_OF[field], null) : update.filter(COLUMN_OF[field], 'eq', from);
  const { data: rows, error } = await update.select('id');
  if (error || rows.length || changes.every((c) => c.from === undefined)) return { error, stale: [] };
  const { data: now } = await supabase
    .from('tickets')
    .select('status, priority, assignee_id')
    .eq('id', ticketId)
    .single();
  const stale = changes
    .filter((c) => c.from !== undefined && now && (now[COLUMN_OF[c.field]] ?? NO_ASSIGNEE) !== c.from)
    .map((c) => c.field);
  return { error: null, stale: stale.length ? stale : changes.map((c) => c.field) };
}

/** The newest change of a sidebar field, in the catalogue's words: "Sam Support" "assigned this ticket to Lee". */
async function lastChange(request: Request, supabase: Supabase, ticketId: string, field: SidebarField) {
  const { data: event } = await supabase
    .from('ticket_events')
    .select('actor_id, to')
    .eq('ticket_id', ticketId)
    .eq('type', field)
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .limit(1)
    .maybeSingle();
  // An assignee event's `to` is a person; a status or priority event's, a value.
  const names = await profileNames(request, supabase, [event?.actor_id, field === 'assignee' ? event?.to : null]);
  const who = (event?.actor_id && names.get(event.actor_id)) || 'Someone';
  return { who, change: changeLine(field, event?.to ?? null, (id) => names.get(id)) };
}

/** The sidebar field a database refusal belongs to (the composer's show at the top of its form). */
const FIELD_OF_CODE: Partial<Record<string, SidebarField>> = {
  invalid_transition: 'status',
  assignee_not_member: 'assignee',
};

/**
 * The sidebar. A field sent on its own (JavaScript: status, priority, assignee) is answered in
 * place ({ saved }), the page's data then reloads; "Save" and "Assign to me" (plain forms) redirect
 * to the page. A refusal names its field.
 */
async function sidebarAction(
  request: Request,
  supabase: Supabase,
  ticket: { id: string; page: string },
  me: string,
  form: SidebarForm,
  submission: ReturnType<typeof parseSubmission<typeof TicketSchema>>,
) {
  const changes = sidebarChanges(form, me);
  const { error, stale } = changes.length
    ? await changeSidebar(supabase, ticket.id, changes)
    : { error: null, stale: [] };
  if (stale.length) {
    // Nothing written: a field is no longer what the form showed. Say who changed it to what; the
    // page reloads (409) with the values as they are now.
    const fieldErrors: Record<string, string[]> = {};
    for (const field of stale)
      fieldErrors[field] = [
        errorMessage('ticket_field_changed', await lastChange(request, supabase, ticket.id, field)),
      ];
    return dataWithSession(
      request,
      { result: submission.reply({ fieldErrors }), fileNames: [] as string[] },
      { status: 409 },
    );
  }
  if (error) {
    const mapped = mapDbError(error, `ticket ${form.intent}`);
    const field = changes.length === 1 ? changes[0].field : FIELD_OF_CODE[mapped.code];
    const result = submission.reply(
      field ? { fieldErrors: { [field]: [mapped.message] } } : { formErrors: [mapped.message] },
    );
    return dataWithSession(request, { result, fileNames: [] as string[] }, { status: mapped.status });
  }
  if (form.intent === 'save' || form.intent === 'assign_me') return redirectWithSession(request, ticket.page);
  return dataWithSession(request, { saved: changes[0].field, fileNames: [] as string[] });
}
