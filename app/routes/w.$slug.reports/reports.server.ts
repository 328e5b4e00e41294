// The reports page's loader (route.tsx): the range from the URL, the admin check and the reports at once
// (the help center's section from help_report, the SLA section from sla_report).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import { parseSlug, requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession } from '~/lib/http/responses.server.ts';
import { reportArgs, reportRange } from '~/lib/reports/range.server.ts';
import type { HelpReport } from '~/lib/help/report.ts';
import type { SlaReport } from '~/lib/promises/report.ts';
import type { WorkspaceReport } from '~/lib/reports/report.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const range = reportRange(new URL(request.url).searchParams);
  // The admin check and the report at once: the report refuses anyone else itself, and a refusal
  // (or a renamed workspace's redirect) comes from requireAdmin as on every admin page.
  const [workspace, result, help, sla] = await Promise.all([
    requireAdmin(request, supabase, user.id, slug),
    range.ok ? supabase.rpc('workspace_report', reportArgs(slug, range)) : null,
    range.ok ? supabase.rpc('help_report', reportArgs(slug, range)) : null,
    range.ok ? supabase.rpc('sla_report', reportArgs(slug, range)) : null,
  ]);
  const page = { adminOf: workspace.slug, workspace };
  if (!range.ok || !result) {
    return dataWithSession(
      request,
      { ...page, preset: null, reply: range.ok ? null : range.reply, report: null, help: null, sla: null },
      { status: 400 },
    );
  }
  if (result.error) throwDbError(request, result.error, 'reports');
  if (help?.error) throwDbError(request, help.error, 'help report');
  if (sla?.error) throwDbError(request, sla.error, 'sla report');
  return dataWithSession(request, {
    ...page,
    preset: range.preset,
    reply: null,
    report: result.data as unknown as WorkspaceReport,
    help: (help?.data ?? null) as unknown as HelpReport | null,
    sla: (sla?.data ?? null) as unknown as SlaReport | null,
  });
}
