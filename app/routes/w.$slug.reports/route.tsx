// Reports (admins only, docs/product.md#reports): for the last 7, 30 or 90 days or custom days, in the
// workspace's time zone — tickets created and solved per day as a chart, first response and
// resolution times (median, 90th percentile), the backlog by status and by assignee, and the busiest
// hours. One call (workspace_report, security invoker: row-level security decides); the charts are
// SVG rendered here, so the page needs no script and no chart library. The sections per agent, of SLA
// targets, of satisfaction and of the help center come from their own reports, asked at the same time.
// Each table has its CSV; the page prints without its controls (app.css, @media print).
import type { MetaFunction } from '@remix-run/node';
import { TagChip } from '~/components/ticket-labels.tsx';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { AdminNav } from '~/components/admin-nav.tsx';
import { Field, SubmitButton, replyErrors, replyValue } from '~/components/forms.tsx';
import { AgentReportSection, TagReportSection } from '~/components/agent-report.tsx';
import { CsatReportSection } from '~/components/csat-report.tsx';
import { HelpReportSection } from '~/components/help-report.tsx';
import { CsvLink } from '~/components/report-csv.tsx';
import { SlaReportSection } from '~/components/sla-report.tsx';
import { HoursHeatmap, VolumeChart } from '~/components/report-charts.tsx';
import { REPORT_RANGES_DAYS } from '~/lib/constants.ts';
import { STATUS_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import { formatCount, formatDay, formatDuration } from '~/lib/reports/format.ts';
import type { Percentiles } from '~/lib/reports/report.ts';
import type { loader } from './reports.server.ts';

export { loader } from './reports.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Reports · ${data.workspace.name} · Tend` : 'Reports · Tend' },
  { name: 'description', content: 'How the team is doing: volume, first response and resolution times, backlog.' },
];

function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="rp-figure">
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}

function Times({ title, id, times, counted }: { title: string; id: string; times: Percentiles; counted: string }) {
  return (
    <section className="card stack" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <dl className="rp-figures">
        <Figure label="Median" value={formatDuration(times.median_seconds)} testId={`${id}-median`} />
        <Figure label="90th percentile" value={formatDuration(times.p90_seconds)} testId={`${id}-p90`} />
      </dl>
      <p className="muted small">
        {times.count
          ? `Over ${formatCount(times.count)} ${times.count === 1 ? 'ticket' : 'tickets'} ${counted} in this range.`
          : `No tickets ${counted} in this range.`}
      </p>
    </section>
  );
}

export default function ReportsPage() {
  const { workspace, preset, reply, report, help, sla, csat, agents, tags, query } = useLoaderData<typeof loader>();
  const base = `/w/${workspace.slug}/reports`;
  const timeZone = report?.time_zone.replaceAll('_', ' ');
  return (
    <section className="stack-lg rp-page" aria-labelledby="reports-title">
      <div>
        <p className="eyebrow">{workspace.name}</p>
        <h1 id="reports-title">Reports</h1>
      </div>
      <AdminNav slug={workspace.slug} current="reports" />

      <section className="card stack" aria-labelledby="range-title">
        <h2 id="range-title">Range</h2>
        <nav aria-label="Report range">
          <ul className="hd-tabs">
            {REPORT_RANGES_DAYS.map((days) => (
              <li key={days}>
                <Link
                  to={`${base}?range=${days}`}
                  className="hd-tab"
                  aria-current={preset === days ? 'page' : undefined}
                >
                  Last {days} days
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <Form method="get" action={base} className="hd-filters" noValidate>
          <Field
            label="From"
            errors={replyErrors(reply, 'from')}
            inputProps={{
              id: 'report-from',
              name: 'from',
              type: 'date',
              required: true,
              defaultValue: replyValue(reply, 'from') ?? report?.from,
              key: `from-${replyValue(reply, 'from') ?? report?.from}`,
            }}
          />
          <Field
            label="To"
            errors={replyErrors(reply, 'to')}
            inputProps={{
              id: 'report-to',
              name: 'to',
              type: 'date',
              required: true,
              defaultValue: replyValue(reply, 'to') ?? report?.to,
              key: `to-${replyValue(reply, 'to') ?? report?.to}`,
            }}
          />
          <SubmitButton className="button button--secondary">Show these days</SubmitButton>
        </Form>
        {report ? (
          <p data-testid="report-range">
            {formatDay(report.from)} to {formatDay(report.to)}, days in {timeZone} time
            {preset ? ` (the last ${preset} days)` : ''}.
          </p>
        ) : null}
      </section>

      {report ? (
        <>
          <section className="card stack" aria-labelledby="volume-title">
            <h2 id="volume-title">Created and solved</h2>
            <dl className="rp-figures">
              <Figure label="Created" value={formatCount(report.created)} testId="created-total" />
              <Figure label="Solved" value={formatCount(report.solved)} testId="solved-total" />
            </dl>
            <VolumeChart days={report.days} id="volume-chart" />
            <CsvLink slug={workspace.slug} table="days" query={query} label="tickets created and solved per day" />
          </section>

          <div className="rp-pair">
            <Times
              title="First response time"
              id="first-response"
              times={report.first_response}
              counted="first answered"
            />
            <Times title="Resolution time" id="resolution" times={report.resolution} counted="solved" />
          </div>

          <div className="rp-pair">
            <section className="card stack" aria-labelledby="backlog-status-title">
              <h2 id="backlog-status-title">Backlog by status</h2>
              <p className="muted small">Tickets waiting now, whatever the range.</p>
              <table className="rp-table" data-testid="backlog-status">
                <thead>
                  <tr>
                    <th scope="col">Status</th>
                    <th scope="col" className="rp-num">
                      Tickets
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {report.backlog_by_status.map((b) => (
                    <tr key={b.status}>
                      <th scope="row">{STATUS_LABELS[b.status]}</th>
                      <td className="rp-num">{formatCount(b.tickets)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <CsvLink slug={workspace.slug} table="backlog-status" query={query} label="the backlog by status" />
            </section>

            <section className="card stack" aria-labelledby="backlog-assignee-title">
              <h2 id="backlog-assignee-title">Backlog by assignee</h2>
              {report.backlog_by_assignee.length ? (
                <div className="rp-table-wrap">
                  <table className="rp-table" data-testid="backlog-assignee">
                    <thead>
                      <tr>
                        <th scope="col">Assignee</th>
                        <th scope="col" className="rp-num">
                          New
                        </th>
                        <th scope="col" className="rp-num">
                          Open
                        </th>
                        <th scope="col" className="rp-num">
                          Pending
                        </th>
                        <th scope="col" className="rp-num">
                          Total
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {report.backlog_by_assignee.map((a) => (
                        <tr key={a.assignee_id ?? 'none'}>
                          <th scope="row">{a.assignee_id ? (a.name ?? 'Unknown') : 'Unassigned'}</th>
                          <td className="rp-num">{formatCount(a.new)}</td>
                          <td className="rp-num">{formatCount(a.open)}</td>
                          <td className="rp-num">{formatCount(a.pending)}</td>
                          <td className="rp-num">{formatCount(a.tickets)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <CsvLink
                    slug={workspace.slug}
                    table="backlog-assignee"
                    query={query}
                    label="the backlog by assignee"
                  />
                </div>
              ) : (
                <p className="muted">Nothing is waiting.</p>
              )}
            </section>
          </div>

          <section className="card stack" aria-labelledby="tags-title">
            <h2 id="tags-title">By tag</h2>
            {report.by_tag.length ? (
              <div className="rp-table-wrap">
                <table className="rp-table" data-testid="by-tag">
                  <thead>
                    <tr>
                      <th scope="col">Tag</th>
                      <th scope="col" className="rp-num">
                        Created
                      </th>
                      <th scope="col" className="rp-num">
                        Solved
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {report.by_tag.map((t) => (
                      <tr key={t.name}>
                        <th scope="row">
                          <TagChip name={t.name} colour={t.colour} />
                        </th>
                        <td className="rp-num">{formatCount(t.created)}</td>
                        <td className="rp-num">{formatCount(t.solved)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <CsvLink slug={workspace.slug} table="by-tag" query={query} label="tickets created and solved by tag" />
              </div>
            ) : (
              <p className="muted">No tagged tickets were created or solved on these days.</p>
            )}
          </section>

          <section className="card stack" aria-labelledby="hours-title">
            <h2 id="hours-title">Busiest hours</h2>
            <HoursHeatmap hours={report.busiest_hours} id="hours-chart" timeZone={timeZone ?? ''} />
            <CsvLink slug={workspace.slug} table="busiest-hours" query={query} label="tickets created per hour" />
          </section>
          {agents ? <AgentReportSection slug={workspace.slug} query={query} rows={agents} /> : null}
          {tags ? <TagReportSection slug={workspace.slug} query={query} rows={tags} /> : null}
          {sla ? <SlaReportSection slug={workspace.slug} query={query} report={sla} /> : null}
          {csat ? <CsatReportSection slug={workspace.slug} query={query} report={csat} /> : null}
          {help ? <HelpReportSection slug={workspace.slug} query={query} report={help} /> : null}
        </>
      ) : null}
    </section>
  );
}
