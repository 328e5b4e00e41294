// The reports page's tables per agent and per tag (docs/product.md "Reports"): replies, solved, the median
// first response and resolution, SLA targets met and CSAT, for the range; per tag, SLA met and CSAT.
import { metPercent } from '~/lib/promises/report.ts';
import type { AgentReportRow, TagReportRow } from '~/lib/reports/agents.ts';
import { formatCount, formatDuration } from '~/lib/reports/format.ts';
import { csatPercent } from '~/lib/satisfaction/ratings.ts';
import { CsvLink } from './report-csv.tsx';
import { TagChip } from './ticket-labels.tsx';

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

export function TagReportSection({ slug, query, rows }: { slug: string; query: string; rows: TagReportRow[] }) {
  return (
    <section className="card stack" aria-labelledby="tag-report-title" data-testid="tag-report">
      <h2 id="tag-report-title">Per tag</h2>
      {rows.length ? (
        <div className="rp-table-wrap">
          <table className="rp-table" data-testid="tags">
            <thead>
              <tr>
                <th scope="col">Tag</th>
                <th scope="col" className="rp-num">
                  SLA met
                </th>
                <th scope="col" className="rp-num">
                  CSAT
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.name}>
                  <th scope="row">
                    <TagChip name={t.name} colour={t.colour} />
                  </th>
                  <td className="rp-num">{metPercent({ met: t.sla_met, total: t.sla_total })}</td>
                  <td className="rp-num">{csatPercent(t)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <CsvLink slug={slug} table="tags" query={query} label="the table per tag" />
        </div>
      ) : (
        <p className="muted">No SLA target was decided and no survey answered on tagged tickets in this range.</p>
      )}
      <p className="muted small">
        SLA targets decided and survey answers in the range, on the tickets that carry the tag now.
      </p>
    </section>
  );
}
