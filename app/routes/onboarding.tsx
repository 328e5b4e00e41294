// Create a workspace (docs/product.md §2): name and slug; the creator becomes its admin (create_workspace).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData } from '@remix-run/react';
import { ErrorList, SubmitButton, replyFormErrors, useIsPending } from '~/components/forms.tsx';
import { WorkspaceFields } from '~/components/workspace-fields.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { WorkspaceSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction = () => [
  { title: 'Create a workspace · Tend' },
  { name: 'description', content: 'Create a workspace: a shared support inbox and a portal for your customers.' },
];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return dataWithSession(request, {});
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { supabase } = await requireUser(request);
  const submission = parseSubmission(await readFormData(request), WorkspaceSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });

  const { name, slug } = submission.value;
  const { data: ws, error } = await supabase.rpc('create_workspace', { p_name: name, p_slug: slug });
  if (error) {
    const mapped = mapDbError(error, 'create_workspace');
    const result = submission.reply(
      mapped.code === 'slug_taken' ? { fieldErrors: { slug: [mapped.message] } } : { formErrors: [mapped.message] },
    );
    return dataWithSession(request, { result }, { status: mapped.status });
  }
  return redirectWithSession(request, `/w/${ws?.slug ?? slug}`);
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
        <WorkspaceFields
          result={result}
          addressHint={
            <>
              Your customers' portal will be at <code>/support/&lt;address&gt;</code>.
            </>
          }
        />
        <ErrorList errors={replyFormErrors(result)} />
        <SubmitButton pending={pending}>Create workspace</SubmitButton>
      </Form>
    </section>
  );
}
