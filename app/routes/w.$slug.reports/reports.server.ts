// The reports page's loader (route.tsx): the range, the admin check and every report at once
// (app/lib/reports/load.server.ts), and the range as the page's address says it, for the CSV links.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { dataWithSession } from '~/lib/http/responses.server.ts';
import { loadReports } from '~/lib/reports/load.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { workspace, range, reports } = await loadReports(request, params);
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
  return dataWithSession(request, { ...page, preset: range.ok ? range.preset : null, reply: null, ...reports, query });
}
