// The ticket page's server side (app/routes/w.$slug.tickets.$number.tsx): the sidebar's writes, and
// every server helper the route's loader and action use, re-exported. The browser build swaps a
// `.server` import for an empty stand-in module; one that only this route imports is folded into its
// chunk, while each shared one costs the page a file of its own (six: ~0.7 KB gzip of the JavaScript
// budget, docs/decisions/006-javascript-budget.md).
import type { SupabaseClient } from '@supabase/supabase-js';
import type { z } from 'zod';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import type { TicketSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import type { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { data, redirectWithHeaders } from '~/lib/http/responses.server.ts';
import type { Database } from '~/lib/supabase/database.types.ts';
import { profileNames } from '~/lib/helpdesk/queries.server.ts';
import { isPriority, isStatus, NOBODY, PRIORITY_LABELS, STATUS_LABELS } from '~/lib/helpdesk/vocabulary.ts';

export { requireUser } from '~/lib/auth/session.server.ts';
export { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
export { TicketSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
export { parseSubmission } from '~/lib/forms/schemas.server.ts';
export { data, redirectWithHeaders, requireSameOrigin } from '~/lib/http/responses.server.ts';
export { attachmentsArg, readMessageForm, removeUploads } from '~/lib/helpdesk/attachments.server.ts';
export { cannedReplyTitles, filledCannedReplies } from '~/lib/helpdesk/canned-replies.server.ts';
export {
  namedMembers,
  parseNumber,
  parseSlug,
  requireMemberTicket,
  throwNotFound,
} from '~/lib/helpdesk/queries.server.ts';
// Browser-safe, but used by the route's loader and action only.
export { errorMessage } from '~/lib/errors/catalogue.ts';
export { appendToDraft } from '~/lib/helpdesk/canned-replies.ts';
export { jsonPage } from '~/lib/helpdesk/json-page.ts';

type Client = SupabaseClient<Database>;

type SidebarForm = Exclude<z.infer<typeof TicketSchema>, { intent: 'send' | 'insert_canned_reply' }>;
type SidebarField = 'status' | 'priority' | 'assignee';
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
      ].filter((c) => c.from === undefined || c.value !== (c.from === NOBODY ? null : c.from));
  }
}

/**
 * Sidebar changes, written in one UPDATE and only while each field still holds the value the form
 * was rendered with (the optimistic check: of two agents assigning at once one wins and the other
 * is told). stale: the fields whose check failed (the update matched no row).
 */
async function changeSidebar(supabase: Client, ticketId: string, changes: FieldChange[]) {
  const patch: Database['public']['Tables']['tickets']['Update'] = {};
  for (const { field, value } of changes)
    if (field === 'assignee') patch.assignee_id = value;
    else if (field === 'status' && isStatus(value)) patch.status = value;
    else if (field === 'priority' && isPriority(value)) patch.priority = value;
  let update = supabase.from('tickets').update(patch).eq('id', ticketId);
  for (const { field, from } of changes)
    if (from !== undefined)
      update = from === NOBODY ? update.is(COLUMN_OF[field], null) : update.filter(COLUMN_OF[field], 'eq', from);
  const { data: rows, error } = await update.select('id');
  if (error || rows.length || changes.every((c) => c.from === undefined)) return { error, stale: [] };
  const { data: now } = await supabase
    .from('tickets')
    .select('status, priority, assignee_id')
    .eq('id', ticketId)
    .single();
  const stale = changes
    .filter((c) => c.from !== undefined && now && (now[COLUMN_OF[c.field]] ?? NOBODY) !== c.from)
    .map((c) => c.field);
  return { error: null, stale: stale.length ? stale : changes.map((c) => c.field) };
}

/** The newest change of a sidebar field, in the catalogue's words: "Sam Support" "assigned this ticket to Lee". */
async function lastChange(request: Request, supabase: Client, ticketId: string, field: SidebarField) {
  const { data: event } = await supabase
    .from('ticket_events')
    .select('actor_id, to')
    .eq('ticket_id', ticketId)
    .eq('type', field)
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .limit(1)
    .maybeSingle();
  const assigned = field === 'assignee';
  // An assignee event's `to` is a person; a status or priority event's, a value.
  const names = await profileNames(request, supabase, [event?.actor_id, assigned ? event?.to : null]);
  const who = (event?.actor_id && names.get(event.actor_id)) || 'Someone';
  const to = event?.to ?? null;
  const change =
    field === 'status'
      ? `changed the status to ${to && isStatus(to) ? STATUS_LABELS[to] : 'another one'}`
      : field === 'priority'
        ? `changed the priority to ${to && isPriority(to) ? PRIORITY_LABELS[to] : 'another one'}`
        : to
          ? `assigned this ticket to ${names.get(to) ?? 'someone else'}`
          : 'unassigned this ticket';
  return { who, change };
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
export async function sidebarAction(
  request: Request,
  supabase: Client,
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
    return data(request, { result: submission.reply({ fieldErrors }), fileNames: [] as string[] }, { status: 409 });
  }
  if (error) {
    const mapped = mapDbError(error, `ticket ${form.intent}`);
    const field = changes.length === 1 ? changes[0].field : FIELD_OF_CODE[mapped.code];
    const result = submission.reply(
      field ? { fieldErrors: { [field]: [mapped.message] } } : { formErrors: [mapped.message] },
    );
    return data(request, { result, fileNames: [] as string[] }, { status: mapped.status });
  }
  if (form.intent === 'save' || form.intent === 'assign_me') return redirectWithHeaders(request, ticket.page);
  return data(request, { saved: changes[0].field, fileNames: [] as string[] });
}
