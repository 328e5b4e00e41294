// The reports' tables as CSV rows (app/lib/reports/tables.ts): plain numbers, whole percents, nothing
// invented when there is nothing to count.
import { describe, expect, it } from 'vitest';
import { csvRow } from '../../app/lib/export/csv.ts';
import { type AllReports, percentOf, REPORT_TABLES, isReportTable } from '../../app/lib/reports/tables.ts';
import type { WorkspaceReport } from '../../app/lib/reports/report.ts';

const report: WorkspaceReport = {
  time_zone: 'Europe/Berlin',
  from: '2026-11-21',
  to: '2026-11-27',
  days: [{ day: '2026-11-27', created: 3, solved: 1 }],
  created: 3,
  solved: 1,
  first_response: { count: 0, median_seconds: null, p90_seconds: null },
  resolution: { count: 1, median_seconds: 5, p90_seconds: 5 },
  backlog_by_status: [{ status: 'open', tickets: 2 }],
  backlog_by_assignee: [{ assignee_id: null, name: null, new: 0, open: 2, pending: 0, tickets: 2 }],
  by_tag: [{ name: 'billing', colour: 'blue', created: 2, solved: 1 }],
  busiest_hours: [{ weekday: 5, hour: 17, created: 3 }],
};

const all: AllReports = {
  report,
  sla: null,
  help: null,
  csat: {
    weeks: [{ week: '2026-11-23', good: 2, okay: 0, bad: 1 }],
    agents: [{ assignee_id: 'a', name: 'Ann', good: 2, okay: 0, bad: 1 }],
    comments: [
      {
        number: 7,
        subject: 'Kettle',
        rating: 'bad',
        comment: '=Slow, "very"',
        rated_at: '2026-11-27T10:00:00Z',
        agent: 'Ann',
      },
    ],
  },
  agents: [
    {
      user_id: 'a',
      name: 'Ann',
      replies: 4,
      solved: 3,
      first_response_median_seconds: 90,
      resolution_median_seconds: null,
      sla_met: 1,
      sla_total: 3,
      good: 2,
      okay: 0,
      bad: 1,
    },
  ],
  tags: [
    { name: 'billing', colour: 'blue', sla_met: 3, sla_total: 4, good: 1, okay: 1, bad: 0 },
    { name: 'refund', colour: 'red', sla_met: 0, sla_total: 0, good: 0, okay: 0, bad: 2 },
  ],
};

describe('report tables', () => {
  it('percents are whole, and empty when nothing was counted', () => {
    expect(percentOf(2, 3)).toBe(67);
    expect(percentOf(0, 0)).toBeNull();
  });

  it('the table per agent: counts, seconds, SLA and CSAT percents', () => {
    const t = REPORT_TABLES.agents(all);
    expect(t.header).toEqual([
      'Agent',
      'Replies',
      'Solved',
      'First response median (seconds)',
      'Resolution median (seconds)',
      'SLA met',
      'SLA targets',
      'SLA share met %',
      'Good',
      'Okay',
      'Bad',
      'CSAT %',
    ]);
    expect(t.rows).toEqual([['Ann', 4, 3, 90, null, 1, 3, 33, 2, 0, 1, 67]]);
  });

  it('the table per tag: SLA and CSAT percents, empty where nothing was decided or answered', () => {
    const t = REPORT_TABLES.tags(all);
    expect(t.header).toEqual(['Tag', 'SLA met', 'SLA targets', 'SLA share met %', 'Good', 'Okay', 'Bad', 'CSAT %']);
    expect(t.rows).toEqual([
      ['billing', 3, 4, 75, 1, 1, 0, 50],
      ['refund', 0, 0, null, 0, 0, 2, 0],
    ]);
  });

  it('the comments, neutralised and quoted as CSV', () => {
    const [row] = REPORT_TABLES['csat-comments'](all).rows;
    expect(csvRow(row)).toBe(`7,Kettle,Ann,Bad,"'=Slow, ""very""",2026-11-27T10:00:00Z\r\n`);
  });

  it('a section not asked for has a header and no rows; the names are the known ones only', () => {
    expect(REPORT_TABLES['sla-weeks'](all)).toEqual({ header: ['Week of', 'Met', 'Targets', 'Share met %'], rows: [] });
    expect(REPORT_TABLES['busiest-hours'](all).rows).toEqual([['Friday', 17, 3]]);
    expect(REPORT_TABLES['backlog-assignee'](all).rows).toEqual([['Unassigned', 0, 2, 0, 2]]);
    expect(REPORT_TABLES['by-tag'](all)).toEqual({ header: ['Tag', 'Created', 'Solved'], rows: [['billing', 2, 1]] });
    expect(isReportTable('agents')).toBe(true);
    expect(isReportTable('constructor')).toBe(false);
    expect(isReportTable('../export')).toBe(false);
  });
});
