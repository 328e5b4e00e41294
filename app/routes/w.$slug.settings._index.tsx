// Workspace settings (admins only, docs/product.md §2): name, address (slug) and time zone, and the
// portal's address to share. A new address keeps the old links working: the database remembers it
// and /w/<old>/… and /support/<old>/… redirect (workspace_slug_redirect). One in use is `slug_taken`.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import {
  ErrorList,
  Field,
  SubmitButton,
  replyFormErrors,
  replyValue,
  useIsPending,
  SelectField,
} from '~/components/forms.tsx';
import { WorkspaceFields } from '~/components/workspace-fields.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { SettingsSchema, TIME_ZONES } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { publicOrigin } from '~/lib/http/request-info.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Settings · ${data.workspace.name} · Tend` : 'Settings · Tend' },
  { name: 'description', content: 'The workspace’s name, address and time zone, and the portal’s address.' },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const { data: row, error } = await supabase.from('workspaces').select('time_zone').eq('id', workspace.id).single();
  if (error) throwDbError(request, error, 'settings');
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace: { ...workspace, time_zone: row.time_zone },
    portal: `${publicOrigin(request)}/support/${workspace.slug}`,
    timeZones: TIME_ZONES,
    saved: new URL(request.url).searchParams.get('done') === 'saved',
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), SettingsSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });

  const { name, slug, time_zone } = submission.value;
  const { data: rows, error } = await supabase
    .from('workspaces')
    .update({ name, slug, time_zone })
    .eq('id', workspace.id)
    .select('slug');
  if (error) {
    // 23505: the address belongs to another workspace; slug_taken: it was another workspace's.
    if (error.code === '23505' || error.message === 'slug_taken') {
      const reply = submission.reply({ fieldErrors: { slug: [errorMessage('slug_taken')] } });
      return dataWithSession(request, { result: reply }, { status: errorStatus('slug_taken') });
    }
    const mapped = mapDbError(error, 'settings');
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mapped.message] }) },
      { status: mapped.status },
    );
  }
  if (!rows.length) {
    const reply = submission.reply({ formErrors: [errorMessage('forbidden')] });
    return dataWithSession(request, { result: reply }, { status: errorStatus('forbidden') });
  }
  return redirectWithSession(request, `/w/${rows[0].slug}/settings?done=saved`);
}

export default function SettingsPage() {
  const { workspace, portal, timeZones, saved } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const result = actionData?.result;

  return (
    <section className="stack-lg" aria-labelledby="settings-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="settings"
        title="Settings"
        titleId="settings-title"
        notice={saved ? 'Saved.' : null}
      />

      <section className="card stack" aria-labelledby="portal-title">
        <h2 id="portal-title">Your portal</h2>
        <p>Share this address with your customers: they open and follow their requests there.</p>
        <Field
          label="Portal address"
          inputProps={{ id: 'portal-address', type: 'url', readOnly: true, value: portal, key: portal }}
        />
        <p>
          <a href={`/support/${workspace.slug}`}>Open the portal</a>
        </p>
      </section>

      {/* key: a saved change (a new address, say) starts the form from what is stored. */}
      <Form method="post" noValidate className="card stack" key={`${workspace.slug} ${workspace.name}`}>
        <h2>Workspace</h2>
        <WorkspaceFields
          result={result}
          idPrefix="settings-"
          name={workspace.name}
          slug={workspace.slug}
          addressHint={
            <>
              The portal is at <code>/support/&lt;address&gt;</code>, the inbox at <code>/w/&lt;address&gt;</code>.
              Links to the old address keep working.
            </>
          }
        />
        <SelectField
          id="settings-time-zone"
          name="time_zone"
          label="Time zone"
          defaultValue={replyValue(result, 'time_zone') ?? workspace.time_zone}
        >
          {timeZones.map((tz) => (
            <option key={tz} value={tz}>
              {tz.replaceAll('_', ' ')}
            </option>
          ))}
        </SelectField>
        <ErrorList errors={replyFormErrors(result, 'time_zone')} />
        <SubmitButton pending={pending}>Save</SubmitButton>
      </Form>
    </section>
  );
}
