// The reports' charts as plain SVG rendered with the page (no chart library, nothing to run in the
// browser): created and solved per day, and tickets by weekday and hour. Each is an image with a title
// and a description, its numbers in a table beside it, and labels in HTML so they stay readable
// however narrow the screen (the drawing stretches, the text does not).
import { formatCount, formatDay, formatHour, WEEKDAYS } from '~/lib/reports/format.ts';
import type { ReportDay, ReportHour } from '~/lib/reports/report.ts';

/** The chart's top line: the smallest of 2, 4, 6, 8, 10, 20, 40… at or above n, so its half is whole too. */
export function niceCeiling(n: number): number {
  if (n <= 2) return 2;
  const power = 10 ** Math.floor(Math.log10(n));
  return [2, 4, 6, 8, 10].map((f) => f * power).find((v) => v >= n) ?? 20 * power;
}

function busiestDay(days: ReportDay[], key: 'created' | 'solved'): ReportDay | undefined {
  return days.reduce<ReportDay | undefined>((best, d) => (d[key] > (best?.[key] ?? 0) ? d : best), undefined);
}

export function VolumeChart({ days, id }: { days: ReportDay[]; id: string }) {
  const top = niceCeiling(Math.max(0, ...days.map((d) => Math.max(d.created, d.solved))));
  const n = days.length;
  const created = days.reduce((s, d) => s + d.created, 0);
  const solved = days.reduce((s, d) => s + d.solved, 0);
  const peakCreated = busiestDay(days, 'created');
  const peakSolved = busiestDay(days, 'solved');
  const first = days[0]?.day ?? '';
  const last = days[n - 1]?.day ?? '';
  const title = `Tickets created and solved per day, ${formatDay(first)} to ${formatDay(last)}`;
  const desc = [
    `Created: ${formatCount(created)}${peakCreated ? `, most on ${formatDay(peakCreated.day)} (${formatCount(peakCreated.created)})` : ''}.`,
    `Solved: ${formatCount(solved)}${peakSolved ? `, most on ${formatDay(peakSolved.day)} (${formatCount(peakSolved.solved)})` : ''}.`,
    'Created are bars, solved is a line.',
  ].join(' ');
  const line = days.map((d, i) => `${i + 0.5},${top - d.solved}`).join(' ');
  return (
    <figure className="rp-chart" data-testid="volume-chart">
      <div className="rp-chart__frame">
        <div className="rp-chart__y" aria-hidden="true">
          <span>{formatCount(top)}</span>
          <span>{formatCount(top / 2)}</span>
          <span>0</span>
        </div>
        <svg
          className="rp-chart__svg"
          role="img"
          aria-labelledby={`${id}-title ${id}-desc`}
          viewBox={`0 0 ${n} ${top}`}
          preserveAspectRatio="none"
        >
          <title id={`${id}-title`}>{title}</title>
          <desc id={`${id}-desc`}>{desc}</desc>
          {[0, top / 2, top].map((y) => (
            <line key={y} x1={0} x2={n} y1={y} y2={y} className="rp-chart__grid" vectorEffect="non-scaling-stroke" />
          ))}
          {days.map((d, i) =>
            d.created ? (
              <rect
                key={d.day}
                x={i + 0.15}
                width={0.7}
                y={top - d.created}
                height={d.created}
                className="rp-chart__bar"
                data-day={d.day}
                data-created={d.created}
              />
            ) : null,
          )}
          <polyline points={line} className="rp-chart__line" vectorEffect="non-scaling-stroke" />
        </svg>
        <div className="rp-chart__x" aria-hidden="true">
          <span>{formatDay(first, { year: false })}</span>
          {n > 2 ? <span>{formatDay(days[Math.floor((n - 1) / 2)].day, { year: false })}</span> : null}
          <span>{formatDay(last, { year: false })}</span>
        </div>
      </div>
      <figcaption className="rp-legend">
        <span className="rp-legend__item">
          <span className="rp-legend__swatch rp-legend__swatch--bar" aria-hidden="true" /> Created (bars)
        </span>
        <span className="rp-legend__item">
          <span className="rp-legend__swatch rp-legend__swatch--line" aria-hidden="true" /> Solved (line)
        </span>
      </figcaption>
      <details className="rp-details">
        <summary>The numbers per day</summary>
        <div className="rp-table-wrap">
          <table className="rp-table" data-testid="volume-table">
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" className="rp-num">
                  Created
                </th>
                <th scope="col" className="rp-num">
                  Solved
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.day} data-day={d.day}>
                  <th scope="row">{formatDay(d.day)}</th>
                  <td className="rp-num">{formatCount(d.created)}</td>
                  <td className="rp-num">{formatCount(d.solved)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

const HOURS = Array.from({ length: 24 }, (_, h) => h);

export function HoursHeatmap({ hours, id, timeZone }: { hours: ReportHour[]; id: string; timeZone: string }) {
  const count = (weekday: number, hour: number) =>
    hours.find((h) => h.weekday === weekday && h.hour === hour)?.created ?? 0;
  const max = Math.max(0, ...hours.map((h) => h.created));
  const top = [...hours].sort((a, b) => b.created - a.created || a.weekday - b.weekday || a.hour - b.hour).slice(0, 3);
  const title = `Tickets created by weekday and hour (${timeZone})`;
  const desc = top.length
    ? `Busiest: ${top.map((h) => `${WEEKDAYS[h.weekday - 1]} ${formatHour(h.hour)} (${formatCount(h.created)})`).join(', ')}.`
    : 'No tickets were created in this range.';
  // Five shades, so a cell reads as "more" or "less" at a glance; the table has the counts.
  const shade = (n: number) => (n === 0 ? 0 : Math.min(4, Math.ceil((n / max) * 4)));
  return (
    <figure className="rp-heat" data-testid="hours-heatmap">
      <div className="rp-heat__frame">
        <div className="rp-heat__days" aria-hidden="true">
          {WEEKDAYS.map((w) => (
            <span key={w}>{w.slice(0, 3)}</span>
          ))}
        </div>
        <svg
          className="rp-heat__svg"
          role="img"
          aria-labelledby={`${id}-title ${id}-desc`}
          viewBox="0 0 24 7"
          preserveAspectRatio="none"
        >
          <title id={`${id}-title`}>{title}</title>
          <desc id={`${id}-desc`}>{desc}</desc>
          {WEEKDAYS.map((weekday, w) =>
            HOURS.map((h) => (
              <rect
                key={`${weekday}-${h}`}
                x={h + 0.05}
                y={w + 0.05}
                width={0.9}
                height={0.9}
                className={`rp-heat__cell rp-heat__cell--${shade(count(w + 1, h))}`}
              />
            )),
          )}
        </svg>
        <div className="rp-heat__hours" aria-hidden="true">
          {[0, 6, 12, 18].map((h) => (
            <span key={h}>{String(h).padStart(2, '0')}:00</span>
          ))}
        </div>
      </div>
      <figcaption className="muted small">{desc}</figcaption>
      <details className="rp-details">
        <summary>The numbers per weekday and hour</summary>
        <div className="rp-table-wrap">
          <table className="rp-table rp-table--hours">
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr>
                <th scope="col">Hour</th>
                {WEEKDAYS.map((w) => (
                  <th key={w} scope="col" className="rp-num">
                    <abbr title={w}>{w.slice(0, 3)}</abbr>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {HOURS.map((h) => (
                <tr key={h}>
                  <th scope="row">
                    <abbr title={formatHour(h)}>{String(h).padStart(2, '0')}:00</abbr>
                  </th>
                  {WEEKDAYS.map((w, i) => (
                    <td key={w} className="rp-num">
                      {formatCount(count(i + 1, h))}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
