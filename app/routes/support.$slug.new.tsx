// Open a request in a workspace (create_ticket: ticket + first message + its files in one transaction;
// the files are streamed to storage first, under the ticket id create_ticket then takes).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import {
  ErrorList,
  Field,
  SubmitButton,
  replyErrors,
  replyFormErrors,
  replyValue,
  useIsPending,
} from '~/components/forms.tsx';
import { AttachmentsField } from '~/components/attachments.tsx';
import { MessageField } from '~/components/message-field.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { SUBJECT_MAX_LENGTH } from '~/lib/constants.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { NewRequestSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { FILES_FIELD } from '~/lib/helpdesk/attachments.ts';
import { attachmentsArg, readMessageForm, removeUploads } from '~/lib/helpdesk/attachments.server.ts';
import { requireWorkspace } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `New request · ${data.workspace.name} · Tend` : 'New request · Tend' },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  const workspace = await requireWorkspace(request, supabase, params.slug ?? '');
  return dataWithSession(request, { workspace, clientKey: crypto.randomUUID() });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { supabase } = await requireUser(request);
  // The page's own look-up first: an unknown workspace or an unreachable database is its error page
  // (with the text given back, kept-form.server.ts), not a message in the form.
  const { id: workspaceId, slug } = await requireWorkspace(request, supabase, params.slug ?? '');
  const ticketId = crypto.randomUUID();
  const { form, uploads, fileErrors, fileNames } = await readMessageForm(request, supabase, { workspaceId, ticketId });
  const submission = parseSubmission(form, NewRequestSchema);
  if (submission.status !== 'success' || fileErrors.length) {
    await removeUploads(supabase, uploads);
    const result = submission.reply(fileErrors.length ? { fieldErrors: { [FILES_FIELD]: fileErrors } } : undefined);
    return dataWithSession(request, { result, fileNames }, { status: 400 });
  }

  const { data: rows, error } = await supabase.rpc('create_ticket', {
    p_workspace_slug: slug,
    p_subject: submission.value.subject,
    p_body: submission.value.body,
    p_ticket_id: ticketId,
    p_attachments: attachmentsArg(uploads),
    p_client_key: submission.value.client_key,
  });
  if (error) {
    await removeUploads(supabase, uploads);
    const mapped = mapDbError(error, 'create_ticket');
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mapped.message] }), fileNames },
      { status: mapped.status },
    );
  }
  const created = rows?.[0];
  return redirectWithSession(request, created ? `/support/${slug}/requests/${created.number}` : `/support/${slug}`);
}

export default function NewRequest() {
  const { workspace, clientKey } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const result = actionData?.result;
  return (
    <section className="card card--narrow" aria-labelledby="new-title">
      <p className="eyebrow">
        <Link to={`/support/${workspace.slug}`}>{workspace.name}</Link>
      </p>
      <h1 id="new-title">Submit a request</h1>
      <Form method="post" className="stack" encType="multipart/form-data" noValidate>
        <input type="hidden" name="client_key" value={clientKey} />
        <Field
          label="Subject"
          errors={replyErrors(result, 'subject')}
          inputProps={{
            id: 'subject',
            name: 'subject',
            type: 'text',
            defaultValue: replyValue(result, 'subject') ?? '',
            required: true,
            maxLength: SUBJECT_MAX_LENGTH,
          }}
        />
        <MessageField
          id="body"
          name="body"
          label="Message"
          errors={replyErrors(result, 'body')}
          defaultValue={replyValue(result, 'body') ?? ''}
          required
          rows={8}
        />
        <AttachmentsField errors={replyErrors(result, FILES_FIELD)} keptNames={actionData?.fileNames} />
        <ErrorList errors={replyFormErrors(result)} />
        <SubmitButton pending={pending}>Submit request</SubmitButton>
      </Form>
    </section>
  );
}
