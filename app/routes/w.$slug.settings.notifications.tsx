// The team's notification defaults (admins only, docs/product.md#notifications): per event, how members hear of it
// unless they chose otherwise in /account. Tend's own: everything in the app, email each time, except new
// requests (email only for those who choose it).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import { ErrorList, SubmitButton, replyFormErrors, useIsPending } from '~/components/forms.tsx';
import { NotificationSettingsFields } from '~/components/notification-settings.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { NotificationDefaultsSchema, settingsOf } from '~/lib/forms/notification-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { preferences } from '~/lib/notifications/notifications.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Notifications · ${data.workspace.name} · Tend` : 'Notifications · Tend' },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    rows: await preferences(request, supabase, workspace.id),
    saved: new URL(request.url).searchParams.get('done') === 'saved',
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), NotificationDefaultsSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const { error } = await supabase.rpc('save_notification_settings', {
    p_workspace_id: workspace.id,
    p_settings: settingsOf(submission.value),
    p_team: true,
  });
  if (error) {
    const mapped = mapDbError(error, 'notification defaults');
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mapped.message] }) },
      { status: mapped.status },
    );
  }
  return redirectWithSession(request, `/w/${workspace.slug}/settings/notifications?done=saved`);
}

export default function NotificationDefaultsPage() {
  const { workspace, rows, saved } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  return (
    <section className="stack-lg" aria-labelledby="notification-defaults-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="notifications"
        title="Notifications"
        titleId="notification-defaults-title"
        notice={saved ? 'Saved.' : null}
      />
      <Form method="post" noValidate className="card stack">
        <p className="lead">
          The team's defaults: what members hear of, in the app and by email, unless they choose otherwise in their
          account. A daily digest goes at 8:00 in the workspace's time zone.
        </p>
        <NotificationSettingsFields rows={rows} idPrefix="defaults" team />
        <ErrorList id="defaults-error" errors={replyFormErrors(actionData?.result)} />
        <input type="hidden" name="intent" value="notifications" />
        <SubmitButton pending={pending}>Save defaults</SubmitButton>
      </Form>
    </section>
  );
}
