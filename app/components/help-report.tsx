// The help center's section of the reports page (docs/product.md#the-help-center-for-the-team, "Reports"): views,
// helpful %, searches with no result (the articles to write next), suggestion clicks and deflections, per week.
import { articlePath, helpfulPercent, newRequestPath } from '~/lib/help/articles.ts';
import type { HelpReport } from '~/lib/help/report.ts';
import { formatCount, formatDay } from '~/lib/reports/format.ts';
import { CsvLink } from './report-csv.tsx';

export function HelpReportSection({ slug, query, report }: { slug: string; query: string; report: HelpReport }) {
  return (
    <section className="card stack" aria-labelledby="help-report-title" data-testid="help-report">
      <h2 id="help-report-title">Help center</h2>
      <dl className="rp-figures">
        <div className="rp-figure">
          <dt>Article views</dt>
          <dd data-testid="help-views">{formatCount(report.views)}</dd>
        </div>
        <div className="rp-figure">
          <dt>Helpful</dt>
          <dd data-testid="help-helpful">{helpfulPercent(report.helpful, report.helpful + report.not_helpful)}</dd>
        </div>
        <div className="rp-figure">
          <dt>Searches with no result</dt>
          <dd data-testid="help-misses">{formatCount(report.no_result_searches)}</dd>
        </div>
        <div className="rp-figure">
          <dt>Deflections</dt>
          <dd data-testid="help-deflections">{formatCount(report.deflections)}</dd>
        </div>
      </dl>
      <p className="muted small">
        A deflection: a customer writing a request opened a suggested article (or said it answered their question) and
        sent no request in the 30 minutes after. The last 30 minutes are counted once they have passed.
      </p>
      <div className="rp-table-wrap">
        <table className="rp-table" data-testid="help-weeks">
          <caption className="visually-hidden">The help center per week</caption>
          <thead>
            <tr>
              <th scope="col">Week of</th>
              <th scope="col" className="rp-num">
                Views
              </th>
              <th scope="col" className="rp-num">
                Helpful
              </th>
              <th scope="col" className="rp-num">
                No result
              </th>
              <th scope="col" className="rp-num">
                Suggestions opened
              </th>
              <th scope="col" className="rp-num">
                Deflections
              </th>
            </tr>
          </thead>
          <tbody>
            {report.weeks.map((w) => (
              <tr key={w.week}>
                <th scope="row">{formatDay(w.week)}</th>
                <td className="rp-num">{formatCount(w.views)}</td>
                <td className="rp-num">{helpfulPercent(w.helpful, w.helpful + w.not_helpful)}</td>
                <td className="rp-num">{formatCount(w.no_result_searches)}</td>
                <td className="rp-num">{formatCount(w.suggestion_clicks)}</td>
                <td className="rp-num">{formatCount(w.deflections)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <CsvLink slug={slug} table="help-weeks" query={query} label="the help center per week" />
      <div className="rp-pair">
        <section className="stack" aria-labelledby="help-misses-title">
          <h3 id="help-misses-title">Searches with no result</h3>
          {report.top_misses.length ? (
            <ol data-testid="help-top-misses">
              {report.top_misses.map((m) => (
                <li key={m.query}>
                  “{m.query}” — {formatCount(m.searches)}
                </li>
              ))}
            </ol>
          ) : (
            <p className="muted">None: every search found something.</p>
          )}
          {report.top_misses.length ? (
            <CsvLink slug={slug} table="help-misses" query={query} label="searches with no result" />
          ) : null}
        </section>
        <section className="stack" aria-labelledby="help-top-title">
          <h3 id="help-top-title">Most read articles</h3>
          {report.top_articles.length ? (
            <ol data-testid="help-top-articles">
              {report.top_articles.map((a) => (
                <li key={a.id}>
                  <a href={articlePath(slug, a)}>{a.title}</a> — {formatCount(a.views)} views, helpful{' '}
                  {helpfulPercent(a.helpful, a.votes)}
                </li>
              ))}
            </ol>
          ) : (
            <p className="muted">No views yet.</p>
          )}
          {report.top_articles.length ? (
            <CsvLink slug={slug} table="help-articles" query={query} label="the most read articles" />
          ) : null}
        </section>
      </div>
      <p className="muted small">
        Customers who found nothing can always <a href={newRequestPath(slug)}>submit a request</a>.
      </p>
    </section>
  );
}
