// Create a workspace (docs/product.md §2): name and slug; the creator becomes its admin (create_workspace).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData } from '@remix-run/react';
import {
  ErrorList,
  Field,
  SubmitButton,
  replyErrors,
  replyFormErrors,
  replyValue,
  useIsPending,
} from '~/components/forms.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { WORKSPACE_NAME_MAX_LENGTH } from '~/lib/constants.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { SLUG_MAX_LENGTH, SLUG_MIN_LENGTH, SLUG_PATTERN } from '~/lib/forms/fields.ts';
import { WorkspaceSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { data, readFormData, redirectWithHeaders, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction = () => [{ title: 'Create a workspace · Tend' }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return data(request, {});
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { supabase } = await requireUser(request);
  const submission = parseSubmission(await readFormData(request), WorkspaceSchema);
  if (submission.status !== 'success') return data(request, { result: submission.reply() }, { status: 400 });

  const { name, slug } = submission.value;
  const { data: ws, error } = await supabase.rpc('create_workspace', { p_name: name, p_slug: slug });
  if (error) {
    const mapped = mapDbError(error, 'create_workspace');
    const result = submission.reply(
      mapped.code === 'slug_taken' ? { fieldErrors: { slug: [mapped.message] } } : { formErrors: [mapped.message] },
    );
    return data(request, { result }, { status: mapped.status });
  }
  return redirectWithHeaders(request, `/w/${(ws as { slug?: string } | null)?.slug ?? slug}`);
}

export default function Onboarding() {
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const result = actionData?.result;
  return (
    <section className="card card--narrow" aria-labelledby="onboarding-title">
      <h1 id="onboarding-title">Create a workspace</h1>
      <p className="lead">A workspace is your team's shared inbox. You'll be its admin.</p>
      <Form method="post" className="stack" noValidate>
        <Field
          label="Workspace name"
          errors={replyErrors(result, 'name')}
          inputProps={{
            id: 'name',
            name: 'name',
            type: 'text',
            defaultValue: replyValue(result, 'name') ?? '',
            required: true,
            maxLength: WORKSPACE_NAME_MAX_LENGTH,
            autoComplete: 'organization',
          }}
        />
        <Field
          label="Address"
          hint={
            <>
              Your customers' portal will be at <code>/support/&lt;address&gt;</code>. {SLUG_MIN_LENGTH}–
              {SLUG_MAX_LENGTH} lower-case letters, digits and hyphens.
            </>
          }
          errors={replyErrors(result, 'slug')}
          inputProps={{
            id: 'slug',
            name: 'slug',
            type: 'text',
            defaultValue: replyValue(result, 'slug') ?? '',
            required: true,
            minLength: SLUG_MIN_LENGTH,
            maxLength: SLUG_MAX_LENGTH,
            pattern: SLUG_PATTERN,
            autoCapitalize: 'none',
            spellCheck: false,
          }}
        />
        <ErrorList errors={replyFormErrors(result)} />
        <SubmitButton pending={pending}>Create workspace</SubmitButton>
      </Form>
    </section>
  );
}
