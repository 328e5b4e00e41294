// The SLA section of the reports page (docs/product.md "Business hours and SLA targets"): the share
// of targets met per week, per agent and per priority, over the targets decided in the range.
import { PRIORITY_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import { type MetShare, metPercent, type SlaReport } from '~/lib/promises/report.ts';
import { formatCount, formatDay } from '~/lib/reports/format.ts';
import { CsvLink } from './report-csv.tsx';

function MetTable({ id, by, rows }: { id: string; by: string; rows: (MetShare & { key: string; label: string })[] }) {
  return (
    <div className="rp-table-wrap">
      <table className="rp-table" data-testid={id}>
        <thead>
          <tr>
            <th scope="col">{by}</th>
            <th scope="col" className="rp-num">
              Met
            </th>
            <th scope="col" className="rp-num">
              Targets
            </th>
            <th scope="col" className="rp-num">
              Share met
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.label}</th>
              <td className="rp-num">{formatCount(r.met)}</td>
              <td className="rp-num">{formatCount(r.total)}</td>
              <td className="rp-num">{metPercent(r)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SlaReportSection({ slug, query, report }: { slug: string; query: string; report: SlaReport }) {
  const all = report.priorities.reduce((sum, p) => ({ met: sum.met + p.met, total: sum.total + p.total }), {
    met: 0,
    total: 0,
  });
  return (
    <section className="card stack" aria-labelledby="sla-report-title" data-testid="sla-report">
      <h2 id="sla-report-title">SLA targets met</h2>
      <dl className="rp-figures">
        <div className="rp-figure">
          <dt>Share met</dt>
          <dd data-testid="sla-met">{metPercent(all)}</dd>
        </div>
        <div className="rp-figure">
          <dt>Targets decided</dt>
          <dd>{formatCount(all.total)}</dd>
        </div>
      </dl>
      {all.total ? (
        <>
          <MetTable
            id="sla-weeks"
            by="Week of"
            rows={report.weeks.map((w) => ({ ...w, key: w.week, label: formatDay(w.week, { year: true }) }))}
          />
          <CsvLink slug={slug} table="sla-weeks" query={query} label="SLA targets met per week" />
          <MetTable
            id="sla-agents"
            by="Agent"
            rows={report.agents.map((a) => ({
              ...a,
              key: a.assignee_id ?? 'none',
              label: a.assignee_id ? (a.name ?? 'Unknown') : 'Unassigned',
            }))}
          />
          <CsvLink slug={slug} table="sla-agents" query={query} label="SLA targets met per agent" />
          <MetTable
            id="sla-priorities"
            by="Priority"
            rows={report.priorities.map((p) => ({ ...p, key: p.priority, label: PRIORITY_LABELS[p.priority] }))}
          />
          <CsvLink slug={slug} table="sla-priorities" query={query} label="SLA targets met per priority" />
        </>
      ) : (
        <p className="muted small">
          No first response, next response or resolution target was met or missed in this range.
        </p>
      )}
    </section>
  );
}
