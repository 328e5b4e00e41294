// Open a request in a workspace (create_ticket: ticket + first message in one transaction).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, Field, SubmitButton, useIsPending } from '~/components/forms.tsx';
import { TextareaField } from '~/components/helpdesk-ui.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { MESSAGE_MAX_LENGTH, SUBJECT_MAX_LENGTH } from '~/lib/constants.ts';
import {
  fieldErrors,
  formString,
  mapDbError,
  NewRequestSchema,
  requireWorkspace,
  type FieldErrors,
} from '~/lib/helpdesk/queries.server.ts';
import { data, readFormData, redirectWithHeaders, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `New request · ${data.workspace.name} · Tend` : 'New request · Tend' },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  const workspace = await requireWorkspace(request, supabase, params.slug ?? '');
  return data(request, { workspace });
}

type ActionResult = { values: { subject: string; body: string }; errors: FieldErrors };

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { supabase } = await requireUser(request);
  const workspace = await requireWorkspace(request, supabase, params.slug ?? '');
  const form = await readFormData(request);
  const values = { subject: formString(form, 'subject'), body: formString(form, 'body') };
  const parsed = NewRequestSchema.safeParse(values);
  if (!parsed.success)
    return data<ActionResult>(request, { values, errors: fieldErrors(parsed.error) }, { status: 400 });

  const { data: rows, error } = await supabase.rpc('create_ticket', {
    p_workspace_slug: workspace.slug,
    p_subject: parsed.data.subject,
    p_body: parsed.data.body,
  });
  if (error) {
    const mapped = mapDbError(error, 'create_ticket');
    return data<ActionResult>(request, { values, errors: { form: [mapped.message] } }, { status: mapped.status });
  }
  const created = (Array.isArray(rows) ? rows[0] : rows) as { number: number } | undefined;
  return redirectWithHeaders(
    request,
    created ? `/support/${workspace.slug}/requests/${created.number}` : `/support/${workspace.slug}`,
  );
}

export default function NewRequest() {
  const { workspace } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const errors = actionData?.errors ?? {};
  return (
    <section className="card card--narrow" aria-labelledby="new-title">
      <p className="eyebrow">
        <Link to={`/support/${workspace.slug}`}>{workspace.name}</Link>
      </p>
      <h1 id="new-title">Submit a request</h1>
      <Form method="post" className="stack" noValidate>
        <Field
          label="Subject"
          errors={errors.subject}
          inputProps={{
            id: 'subject',
            name: 'subject',
            type: 'text',
            defaultValue: actionData?.values.subject ?? '',
            required: true,
            maxLength: SUBJECT_MAX_LENGTH,
          }}
        />
        <TextareaField
          id="body"
          name="body"
          label="Message"
          errors={errors.body}
          defaultValue={actionData?.values.body ?? ''}
          required
          maxLength={MESSAGE_MAX_LENGTH}
          rows={8}
        />
        <ErrorList errors={errors.form} />
        <SubmitButton pending={pending}>Submit request</SubmitButton>
      </Form>
    </section>
  );
}
