// The email settings' live preview (route w.$slug.settings.email, with JavaScript): the example email as
// the posted fields would make it, as HTML for the page's sandboxed frame. Admins only; nothing is saved.
import type { ActionFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { previewEmail } from '~/lib/email/preview.server.ts';
import { EmailSettingsSchema, typedSettings } from '~/lib/forms/email-settings-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { readFormData, requireSameOrigin, responseHeaders } from '~/lib/http/responses.server.ts';

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), EmailSettingsSchema);
  const headers = responseHeaders(request, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
  if (submission.status !== 'success') return new Response('', { status: 400, headers });
  const { data: saved } = await supabase
    .from('workspace_email_settings')
    .select('logo_path, verified_domain')
    .eq('workspace_id', workspace.id)
    .maybeSingle();
  const html = previewEmail(workspace.name, typedSettings(submission.value, saved), user.displayName || user.email);
  return new Response(html, { headers });
}
