// The reports page's table per agent (docs/product.md "Reports"): replies, solved, the median first
// response and resolution, SLA targets met and CSAT, for the range.
import { metPercent } from '~/lib/promises/report.ts';
import type { AgentReportRow } from '~/lib/reports/agents.ts';
import { formatCount, formatDuration } from '~/lib/reports/format.ts';
import { csatPercent } from '~/lib/satisfaction/ratings.ts';
import { CsvLink } from './report-csv.tsx';

const COLUMNS = ['Replies', 'Solved', 'First response (median)', 'Resolution (median)', 'SLA met', 'CSAT'];

export function AgentReportSection({ slug, query, rows }: { slug: string; query: string; rows: AgentReportRow[] }) {
  return (
    <section className="card stack" aria-labelledby="agents-title" data-testid="agent-report">
      <h2 id="agents-title">Per agent</h2>
      <div className="rp-table-wrap">
        <table className="rp-table" data-testid="agents">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              {COLUMNS.map((c) => (
                <th key={c} scope="col" className="rp-num">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((a) => (
              <tr key={a.user_id}>
                <th scope="row">{a.name ?? 'Unknown'}</th>
                <td className="rp-num">{formatCount(a.replies)}</td>
                <td className="rp-num">{formatCount(a.solved)}</td>
                <td className="rp-num">{formatDuration(a.first_response_median_seconds)}</td>
                <td className="rp-num">{formatDuration(a.resolution_median_seconds)}</td>
                <td className="rp-num">{metPercent({ met: a.sla_met, total: a.sla_total })}</td>
                <td className="rp-num">{csatPercent(a)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        Replies written in the range; tickets solved in it while assigned to them, and the medians of those tickets; SLA
        targets decided and survey answers about their tickets.
      </p>
      <CsvLink slug={slug} table="agents" query={query} label="the table per agent" />
    </section>
  );
}
