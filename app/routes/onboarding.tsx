// Create a workspace (product.md §2): name and slug; the creator becomes its admin (create_workspace).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData } from '@remix-run/react';
import { ErrorList, Field, SubmitButton, useIsPending } from '~/components/forms.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { WORKSPACE_NAME_MAX_LENGTH } from '~/lib/constants.ts';
import {
  fieldErrors,
  formString,
  mapDbError,
  WorkspaceSchema,
  type FieldErrors,
} from '~/lib/helpdesk/queries.server.ts';
import { data, readFormData, redirectWithHeaders, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction = () => [{ title: 'Create a workspace · Tend' }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return data(request, {});
}

type ActionResult = { values: { name: string; slug: string }; errors: FieldErrors };

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { supabase } = await requireUser(request);
  const form = await readFormData(request);
  const values = { name: formString(form, 'name'), slug: formString(form, 'slug') };
  const parsed = WorkspaceSchema.safeParse(values);
  if (!parsed.success)
    return data<ActionResult>(request, { values, errors: fieldErrors(parsed.error) }, { status: 400 });

  const { data: ws, error } = await supabase.rpc('create_workspace', {
    p_name: parsed.data.name,
    p_slug: parsed.data.slug,
  });
  if (error) {
    const mapped = mapDbError(error, 'create_workspace');
    const errors: FieldErrors = mapped.code === 'slug_taken' ? { slug: [mapped.message] } : { form: [mapped.message] };
    return data<ActionResult>(request, { values, errors }, { status: mapped.status });
  }
  const slug = (ws as { slug?: string } | null)?.slug ?? parsed.data.slug;
  return redirectWithHeaders(request, `/w/${slug}`);
}

export default function Onboarding() {
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const values = actionData?.values;
  const errors = actionData?.errors ?? {};
  return (
    <section className="card card--narrow" aria-labelledby="onboarding-title">
      <h1 id="onboarding-title">Create a workspace</h1>
      <p className="lead">A workspace is your team's shared inbox. You'll be its admin.</p>
      <Form method="post" className="stack" noValidate>
        <Field
          label="Workspace name"
          errors={errors.name}
          inputProps={{
            id: 'name',
            name: 'name',
            type: 'text',
            defaultValue: values?.name ?? '',
            required: true,
            maxLength: WORKSPACE_NAME_MAX_LENGTH,
            autoComplete: 'organization',
          }}
        />
        <Field
          label="Address"
          hint={
            <>
              Your customers' portal will be at <code>/support/&lt;address&gt;</code>. 3–40 lower-case letters, digits
              and hyphens.
            </>
          }
          errors={errors.slug}
          inputProps={{
            id: 'slug',
            name: 'slug',
            type: 'text',
            defaultValue: values?.slug ?? '',
            required: true,
            minLength: 3,
            maxLength: 40,
            pattern: '[a-z0-9]+(-[a-z0-9]+)*',
            autoCapitalize: 'none',
            spellCheck: false,
          }}
        />
        <ErrorList errors={errors.form} />
        <SubmitButton pending={pending}>Create workspace</SubmitButton>
      </Form>
    </section>
  );
}
