// The assignment page's loader and action (route.tsx): the mode and cap, and who is available with
// how many backlog tickets.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { AssignmentSchema } from '~/lib/forms/promises-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { profileNames } from '~/lib/helpdesk/profile-names.server.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const [settings, members] = await Promise.all([
    supabase.from('assignment_settings').select('mode, max_open').eq('workspace_id', workspace.id).maybeSingle(),
    supabase.rpc('assignment_members', { p_workspace_id: workspace.id }),
  ]);
  for (const { error } of [settings, members]) if (error) throwDbError(request, error, 'assignment');
  const names = await profileNames(request, supabase, members.data?.map((m) => m.user_id) ?? []);
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    saved: new URL(request.url).searchParams.get('done') === 'saved',
    mode: settings.data?.mode ?? 'off',
    maxOpen: settings.data?.max_open ?? null,
    members: (members.data ?? [])
      .map((m) => ({
        user_id: m.user_id,
        name: names.get(m.user_id) ?? 'Unknown',
        available: m.available,
        open: m.open,
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), AssignmentSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const { error } = await supabase.rpc('save_assignment_settings', {
    p_workspace_id: workspace.id,
    p_mode: submission.value.mode,
    p_max_open: submission.value.max_open ?? undefined,
  });
  if (error) {
    const { message, status } = mapDbError(error, 'save assignment');
    return dataWithSession(request, { result: submission.reply({ formErrors: [message] }) }, { status });
  }
  return redirectWithSession(request, `/w/${workspace.slug}/settings/assignment?done=saved`);
}
