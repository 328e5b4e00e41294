// "New conversation": its loader and action (route.tsx). The customer's account is made first if the
// address has none (the ensure-customer function, as an email to the team would make it), the files
// are streamed to storage under the new ticket's id, then start_conversation opens the ticket with the
// agent's message in one transaction (88_rich_mail.sql); notify emails it to the customer.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { NewConversationSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { attachmentsArg, readMessageForm, removeUploads } from '~/lib/helpdesk/attachments.server.ts';
import { FILES_FIELD } from '~/lib/helpdesk/attachments.ts';
import { requireMembership } from '~/lib/helpdesk/workspace-access.server.ts';
import { log } from '~/lib/http/log.server.ts';
import { dataWithSession, errorResponse, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { workspace } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  return dataWithSession(request, { workspace, clientKey: crypto.randomUUID() });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const { workspace } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const ticketId = crypto.randomUUID();
  const { form, uploads, fileErrors, fileNames } = await readMessageForm(request, supabase, {
    uploaderId: user.id,
    workspaceId: workspace.id,
    ticketId,
  });
  const submission = parseSubmission(form, NewConversationSchema);
  const refuse = async (reply: ReturnType<typeof submission.reply>, status: number) => {
    await removeUploads(supabase, uploads);
    return dataWithSession(request, { result: reply, fileNames }, { status });
  };
  if (submission.status !== 'success' || fileErrors.length)
    return refuse(
      submission.reply(fileErrors.length ? { fieldErrors: { [FILES_FIELD]: fileErrors } } : undefined),
      400,
    );
  const { requester, subject, body, client_key } = submission.value;

  const { error: ensured } = await supabase.functions.invoke('ensure-customer', {
    body: { workspace_id: workspace.id, email: requester },
  });
  if (ensured) {
    await removeUploads(supabase, uploads);
    log.warn('new conversation: ensure-customer failed', { message: ensured.message });
    throw errorResponse(request, 'backend_unavailable');
  }
  const { data: rows, error } = await supabase.rpc('start_conversation', {
    p_workspace_id: workspace.id,
    p_requester_email: requester,
    p_subject: subject,
    p_body: body,
    p_attachments: attachmentsArg(uploads),
    p_ticket_id: ticketId,
    p_client_key: client_key,
  });
  if (error) {
    const mapped = mapDbError(error, 'start_conversation');
    const field = mapped.code === 'requester_is_you' ? 'requester' : '';
    return refuse(submission.reply({ fieldErrors: { [field]: [mapped.message] } }), mapped.status);
  }
  const created = rows?.[0];
  return redirectWithSession(
    request,
    created ? `/w/${workspace.slug}/tickets/${created.number}` : `/w/${workspace.slug}`,
  );
}
