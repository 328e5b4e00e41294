// The "CSV" link beside each table of the reports page: that table, for the page's range, as a download
// (app/routes/w.$slug.reports_.csv.$table.tsx). Left out of print (app.css).
import type { ReportTableName } from '~/lib/reports/tables.ts';

export function CsvLink({
  slug,
  table,
  query,
  label,
}: {
  slug: string;
  table: ReportTableName;
  query: string;
  label: string;
}) {
  return (
    <a className="rp-csv small" href={`/w/${slug}/reports/csv/${table}?${query}`} download data-testid={`csv-${table}`}>
      Download CSV<span className="visually-hidden"> of {label}</span>
    </a>
  );
}
