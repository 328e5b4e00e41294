// The satisfaction section of the reports page (docs/product.md "Satisfaction ratings"): CSAT (the share
// of good answers) over the range, per week and per agent, and the comments.
import { formatCount, formatDay } from '~/lib/reports/format.ts';
import { csatPercent, ratingLabel, type RatingCounts } from '~/lib/satisfaction/ratings.ts';
import type { CsatReportPage } from '~/lib/satisfaction/report.ts';
import { CsvLink } from './report-csv.tsx';

function CountsTable({
  id,
  by,
  rows,
}: {
  id: string;
  by: string;
  rows: (RatingCounts & { key: string; label: string })[];
}) {
  return (
    <div className="rp-table-wrap">
      <table className="rp-table" data-testid={id}>
        <thead>
          <tr>
            <th scope="col">{by}</th>
            <th scope="col" className="rp-num">
              Good
            </th>
            <th scope="col" className="rp-num">
              Okay
            </th>
            <th scope="col" className="rp-num">
              Bad
            </th>
            <th scope="col" className="rp-num">
              CSAT
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.label}</th>
              <td className="rp-num">{formatCount(r.good)}</td>
              <td className="rp-num">{formatCount(r.okay)}</td>
              <td className="rp-num">{formatCount(r.bad)}</td>
              <td className="rp-num">{csatPercent(r)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function CsatReportSection({ slug, query, report }: { slug: string; query: string; report: CsatReportPage }) {
  const all = report.weeks.reduce(
    (sum, w) => ({ good: sum.good + w.good, okay: sum.okay + w.okay, bad: sum.bad + w.bad }),
    {
      good: 0,
      okay: 0,
      bad: 0,
    },
  );
  const answers = all.good + all.okay + all.bad;
  return (
    <section className="card stack" aria-labelledby="csat-report-title" data-testid="csat-report">
      <h2 id="csat-report-title">Satisfaction</h2>
      <dl className="rp-figures">
        <div className="rp-figure">
          <dt>CSAT (good answers)</dt>
          <dd data-testid="csat-percent">{csatPercent(all)}</dd>
        </div>
        <div className="rp-figure">
          <dt>Answers</dt>
          <dd>{formatCount(answers)}</dd>
        </div>
      </dl>
      <p className="muted small">Answers to the survey of requests solved in this range, by the day of the solve.</p>
      {answers ? (
        <>
          <CountsTable
            id="csat-weeks"
            by="Week of"
            rows={report.weeks.map((w) => ({ ...w, key: w.week, label: formatDay(w.week, { year: true }) }))}
          />
          <CsvLink slug={slug} table="csat-weeks" query={query} label="satisfaction per week" />
          <CountsTable
            id="csat-agents"
            by="Agent"
            rows={report.agents.map((a) => ({
              ...a,
              key: a.assignee_id ?? 'none',
              label: a.assignee_id ? (a.name ?? 'Unknown') : 'Unassigned',
            }))}
          />
          <CsvLink slug={slug} table="csat-agents" query={query} label="satisfaction per agent" />
          <h3>Comments</h3>
          {report.comments.length ? (
            <>
              <ul className="cs-comments" data-testid="csat-comments">
                {report.comments.map((c) => (
                  <li key={`${c.number}-${c.rated_at}`}>
                    <p>
                      <a href={`/w/${slug}/tickets/${c.number}`}>
                        #{c.number} {c.subject}
                      </a>{' '}
                      · <strong className={`cs-rated cs-rated--${c.rating}`}>{ratingLabel(c.rating)}</strong>
                      <span className="muted small">
                        {' '}
                        · {c.agent ?? 'Unassigned'} · {c.when}
                      </span>
                    </p>
                    <blockquote className="cs-comment" dir="auto">
                      {c.comment}
                    </blockquote>
                  </li>
                ))}
              </ul>
              <CsvLink slug={slug} table="csat-comments" query={query} label="the comments" />
            </>
          ) : (
            <p className="muted">No comments in this range.</p>
          )}
        </>
      ) : (
        <p className="muted">No answers in this range.</p>
      )}
    </section>
  );
}
