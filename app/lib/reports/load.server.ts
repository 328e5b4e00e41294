// The reports for a range, as the reports page (app/routes/w.$slug.reports/) and the CSV of each of its
// tables (w.$slug.reports_.csv.$table.tsx) load them: the range from the URL, the admin check and every
// report at once (workspace_report, help_report, sla_report, csat_report, agent_report, tag_report).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '../auth/session.server.ts';
import { throwDbError } from '../errors/from-db.server.ts';
import type { HelpReport } from '../help/report.ts';
import { parseSlug, requireAdmin } from '../helpdesk/workspace-access.server.ts';
import type { SlaReport } from '../promises/report.ts';
import type { CsatReport } from '../satisfaction/report.ts';
import type { AgentReportRow, TagReportRow } from './agents.ts';
import { reportArgs, reportRange } from './range.server.ts';
import type { WorkspaceReport } from './report.ts';

type ReportFunction = 'workspace_report' | 'help_report' | 'sla_report' | 'csat_report' | 'agent_report' | 'tag_report';

/** The reports for the URL's range, or the range's refusal; an admin's only (anyone else: requireAdmin's answer). */
export async function loadReports(request: Request, params: LoaderFunctionArgs['params']) {
  const { user, supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const range = reportRange(new URL(request.url).searchParams);
  const call = <F extends ReportFunction>(fn: F) => (range.ok ? supabase.rpc(fn, reportArgs(slug, range)) : null);
  // The admin check and the reports at once: each report refuses anyone else itself, and a refusal
  // (or a renamed workspace's redirect) comes from requireAdmin as on every admin page.
  const [workspace, result, help, sla, csat, agents, tags] = await Promise.all([
    requireAdmin(request, supabase, user.id, slug),
    call('workspace_report'),
    call('help_report'),
    call('sla_report'),
    call('csat_report'),
    call('agent_report'),
    call('tag_report'),
  ]);
  if (!range.ok || !result) return { workspace, range, reports: null };
  for (const [answer, context] of [
    [result, 'reports'],
    [help, 'help report'],
    [sla, 'sla report'],
    [csat, 'csat report'],
    [agents, 'agent report'],
    [tags, 'tag report'],
  ] as const)
    if (answer?.error) throwDbError(request, answer.error, context);
  return {
    workspace,
    range,
    reports: {
      report: result.data as unknown as WorkspaceReport,
      help: (help?.data ?? null) as unknown as HelpReport | null,
      sla: (sla?.data ?? null) as unknown as SlaReport | null,
      csat: (csat?.data ?? null) as unknown as CsatReport | null,
      agents: (agents?.data ?? null) as unknown as AgentReportRow[] | null,
      tags: (tags?.data ?? null) as unknown as TagReportRow[] | null,
    },
  };
}
