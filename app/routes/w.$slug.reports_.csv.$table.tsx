// One table of the reports page as CSV (admins only): /w/:slug/reports/csv/<table>?range=30 (or from/to),
// the same range and answers as the page (loadReports), as a download. RFC 4180 with a UTF-8 BOM;
// formula-like cells neutralised (app/lib/export/csv.ts).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { CSV_BOM, csvRow } from '~/lib/export/csv.ts';
import { errorResponse, responseHeaders } from '~/lib/http/responses.server.ts';
import { isReportTable, REPORT_TABLES } from '~/lib/reports/tables.ts';
import { loadReports } from '~/lib/reports/load.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const name = params.table ?? '';
  if (!isReportTable(name)) throw errorResponse(request, 'not_found');
  const { workspace, reports } = await loadReports(request, params);
  if (!reports) throw errorResponse(request, 'date_range_invalid');
  const table = REPORT_TABLES[name](reports);
  const body = CSV_BOM + [table.header, ...table.rows].map(csvRow).join('');
  const fileName = `${workspace.slug}-${name}-${reports.report.from}-to-${reports.report.to}.csv`;
  return new Response(body, {
    headers: responseHeaders(request, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${fileName}"`,
      'Cache-Control': 'private, no-store',
    }),
  });
}
