// The satisfaction survey's settings (route.tsx): on or off, and the question. Admins only;
// save_csat_settings says so again (supabase/schemas/92_satisfaction.sql).
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { SatisfactionSettingsSchema } from '~/lib/forms/satisfaction-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { DEFAULT_SURVEY_QUESTION } from '~/lib/satisfaction/ratings.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const { data, error } = await supabase
    .from('csat_settings')
    .select('enabled, question')
    .eq('workspace_id', workspace.id)
    .maybeSingle();
  if (error) throwDbError(request, error, 'satisfaction settings');
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    saved: new URL(request.url).searchParams.get('done') === 'saved',
    enabled: data?.enabled ?? true,
    question: data?.question ?? DEFAULT_SURVEY_QUESTION,
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), SatisfactionSettingsSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const { error } = await supabase.rpc('save_csat_settings', {
    p_workspace_id: workspace.id,
    p_enabled: submission.value.enabled === 'on',
    p_question: submission.value.question,
  });
  if (error) {
    const { message, status } = mapDbError(error, 'save satisfaction settings');
    return dataWithSession(request, { result: submission.reply({ formErrors: [message] }) }, { status });
  }
  return redirectWithSession(request, `/w/${workspace.slug}/settings/satisfaction?done=saved`);
}
