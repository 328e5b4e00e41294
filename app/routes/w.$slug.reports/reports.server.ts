// The reports page's loader (route.tsx): the range from the URL, the admin check and the report at once.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import { parseSlug, requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession } from '~/lib/http/responses.server.ts';
import { reportArgs, reportRange } from '~/lib/reports/range.server.ts';
import type { WorkspaceReport } from '~/lib/reports/report.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const range = reportRange(new URL(request.url).searchParams);
  // The admin check and the report at once: the report refuses anyone else itself, and a refusal
  // (or a renamed workspace's redirect) comes from requireAdmin as on every admin page.
  const [workspace, result] = await Promise.all([
    requireAdmin(request, supabase, user.id, slug),
    range.ok ? supabase.rpc('workspace_report', reportArgs(slug, range)) : null,
  ]);
  const page = { adminOf: workspace.slug, workspace };
  if (!range.ok || !result) {
    return dataWithSession(
      request,
      { ...page, preset: null, reply: range.ok ? null : range.reply, report: null },
      { status: 400 },
    );
  }
  if (result.error) throwDbError(request, result.error, 'reports');
  return dataWithSession(request, {
    ...page,
    preset: range.preset,
    reply: null,
    report: result.data as unknown as WorkspaceReport,
  });
}
