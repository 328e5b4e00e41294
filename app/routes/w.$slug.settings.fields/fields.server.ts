// The ticket fields page's loader and action (route.tsx): the workspace's custom fields, and add,
// save and delete. Row-level security decides every read and write (admins only).
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { FieldsSchema } from '~/lib/forms/customer-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { NEW_FIELD as NEW } from '~/lib/helpdesk/ticket-fields.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

const NOTICES = { added: 'Field added.', saved: 'Field saved.', deleted: 'Field deleted.' } as const;
type Notice = keyof typeof NOTICES;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const { data: fields, error } = await supabase
    .from('ticket_fields')
    .select('id, label, kind, options, required_on_solve, internal, position')
    .eq('workspace_id', workspace.id)
    .order('position')
    .order('created_at')
    .order('id');
  if (error) throwDbError(request, error, 'ticket fields');
  const notice = new URL(request.url).searchParams.get('done');
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    fields,
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), FieldsSchema);
  const raw = submission.payload.field;
  const target = typeof raw === 'string' && UUID_RE.test(raw) ? raw : NEW;
  if (submission.status !== 'success')
    return dataWithSession(request, { result: submission.reply(), target }, { status: 400 });
  const value = submission.value;
  const done = (notice: Notice) => redirectWithSession(request, `/w/${workspace.slug}/settings/fields?done=${notice}`);
  const refuse = (error: Parameters<typeof mapDbError>[0] | null, context: string) => {
    // 23505: the name is another field's (ticket_fields_label_key); no row: deleted meanwhile.
    if (error?.code === '23505')
      return dataWithSession(
        request,
        { result: submission.reply({ fieldErrors: { label: [errorMessage('field_label_taken')] } }), target },
        { status: errorStatus('field_label_taken') },
      );
    const { message, status } = error
      ? mapDbError(error, context)
      : { message: errorMessage('not_found'), status: errorStatus('not_found') };
    return dataWithSession(request, { result: submission.reply({ formErrors: [message] }), target }, { status });
  };
  if (value.intent === 'delete') {
    const { data: rows, error } = await supabase
      .from('ticket_fields')
      .delete()
      .eq('workspace_id', workspace.id)
      .eq('id', value.field)
      .select('id');
    return error || !rows.length ? refuse(error, 'delete ticket field') : done('deleted');
  }
  const definition = {
    label: value.label,
    options: value.options,
    required_on_solve: value.required_on_solve,
    internal: !value.shown_to_customers,
    position: value.position,
  };
  if (value.intent === 'create') {
    const { error } = await supabase
      .from('ticket_fields')
      .insert({ workspace_id: workspace.id, kind: value.kind, ...definition });
    return error ? refuse(error, 'add ticket field') : done('added');
  }
  const { data: rows, error } = await supabase
    .from('ticket_fields')
    .update(definition)
    .eq('workspace_id', workspace.id)
    .eq('id', value.field)
    .select('id');
  return error || !rows.length ? refuse(error, 'save ticket field') : done('saved');
}
