// The reports page's loader (route.tsx): the range, the admin check and every report at once
// (app/lib/reports/load.server.ts), and the range as the page's address says it, for the CSV links.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { dataWithSession } from '~/lib/http/responses.server.ts';
import { loadReports } from '~/lib/reports/load.server.ts';

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  const [{ workspace, range, reports }, zoneOf] = await Promise.all([
    loadReports(request, params),
    viewerZones({ request, context }, supabase),
  ]);
  const page = { adminOf: workspace.slug, workspace };
  if (!reports) {
    return dataWithSession(
      request,
      {
        ...page,
        preset: null,
        reply: range.ok ? null : range.reply,
        report: null,
        help: null,
        sla: null,
        csat: null,
        agents: null,
        tags: null,
        query: '',
      },
      { status: 400 },
    );
  }
  // The range as the page's address says it, for the CSV links.
  const query = new URLSearchParams(
    range.ok && range.preset === null
      ? { from: range.from, to: range.to }
      : { range: String(range.ok ? range.preset : '') },
  ).toString();
  // The days are the workspace's (its rules); a comment's time is said in mine.
  const zone = zoneOf(workspace.time_zone);
  const csat = reports.csat && {
    ...reports.csat,
    comments: reports.csat.comments.map((c) => ({ ...c, when: formatDateIn(c.rated_at, zone) })),
  };
  return dataWithSession(request, {
    ...page,
    preset: range.ok ? range.preset : null,
    reply: null,
    ...reports,
    csat,
    query,
  });
}
