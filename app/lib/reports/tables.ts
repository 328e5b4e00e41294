// Every table of the reports page as rows for a spreadsheet (/w/:slug/reports/csv/:table): the same
// answers the page shows (workspace_report, sla_report, csat_report, agent_report, tag_report, help_report), with
// plain numbers (counts, seconds, whole percents) instead of the page's wording. Pure: unit-tested.
import type { HelpReport } from '../help/report.ts';
import { STATUS_LABELS, PRIORITY_LABELS } from '../helpdesk/ticket-terms.ts';
import type { SlaReport } from '../promises/report.ts';
import type { CsatReport } from '../satisfaction/report.ts';
import { ratingLabel, type RatingCounts } from '../satisfaction/ratings.ts';
import type { AgentReportRow, TagReportRow } from './agents.ts';
import { WEEKDAYS } from './format.ts';
import type { WorkspaceReport } from './report.ts';

export interface AllReports {
  report: WorkspaceReport;
  sla: SlaReport | null;
  csat: CsatReport | null;
  agents: AgentReportRow[] | null;
  tags: TagReportRow[] | null;
  help: HelpReport | null;
}

type Cell = string | number | null;
export interface ReportTable {
  header: string[];
  rows: Cell[][];
}

/** A whole percent of a share, or nothing when there is no whole. */
export const percentOf = (part: number, whole: number): number | null =>
  whole ? Math.round((100 * part) / whole) : null;

const csat = (c: RatingCounts) => [c.good, c.okay, c.bad, percentOf(c.good, c.good + c.okay + c.bad)];
const CSAT_HEADER = ['Good', 'Okay', 'Bad', 'CSAT %'];
const SLA_HEADER = ['Met', 'Targets', 'Share met %'];
const agentName = (id: string | null, name: string | null) => (id ? (name ?? 'Unknown') : 'Unassigned');

/** The tables by the name in their CSV's address, in the page's order. */
export const REPORT_TABLES = {
  days: ({ report }) => ({
    header: ['Day', 'Created', 'Solved'],
    rows: report.days.map((d) => [d.day, d.created, d.solved]),
  }),
  'backlog-status': ({ report }) => ({
    header: ['Status', 'Tickets'],
    rows: report.backlog_by_status.map((b) => [STATUS_LABELS[b.status], b.tickets]),
  }),
  'backlog-assignee': ({ report }) => ({
    header: ['Assignee', 'New', 'Open', 'Pending', 'Total'],
    rows: report.backlog_by_assignee.map((a) => [
      agentName(a.assignee_id, a.name),
      a.new,
      a.open,
      a.pending,
      a.tickets,
    ]),
  }),
  'by-tag': ({ report }) => ({
    header: ['Tag', 'Created', 'Solved'],
    rows: report.by_tag.map((t) => [t.name, t.created, t.solved]),
  }),
  'busiest-hours': ({ report }) => ({
    header: ['Weekday', 'Hour', 'Created'],
    rows: report.busiest_hours.map((h) => [WEEKDAYS[h.weekday - 1], h.hour, h.created]),
  }),
  agents: ({ agents }) => ({
    header: [
      'Agent',
      'Replies',
      'Solved',
      'First response median (seconds)',
      'Resolution median (seconds)',
      ...SLA_HEADER.map((h) => `SLA ${h.toLowerCase()}`),
      ...CSAT_HEADER,
    ],
    rows: (agents ?? []).map((a) => [
      a.name ?? 'Unknown',
      a.replies,
      a.solved,
      a.first_response_median_seconds,
      a.resolution_median_seconds,
      a.sla_met,
      a.sla_total,
      percentOf(a.sla_met, a.sla_total),
      ...csat(a),
    ]),
  }),
  tags: ({ tags }) => ({
    header: ['Tag', ...SLA_HEADER.map((h) => `SLA ${h.toLowerCase()}`), ...CSAT_HEADER],
    rows: (tags ?? []).map((t) => [t.name, t.sla_met, t.sla_total, percentOf(t.sla_met, t.sla_total), ...csat(t)]),
  }),
  'sla-weeks': ({ sla }) => ({
    header: ['Week of', ...SLA_HEADER],
    rows: (sla?.weeks ?? []).map((w) => [w.week, w.met, w.total, percentOf(w.met, w.total)]),
  }),
  'sla-agents': ({ sla }) => ({
    header: ['Agent', ...SLA_HEADER],
    rows: (sla?.agents ?? []).map((a) => [agentName(a.assignee_id, a.name), a.met, a.total, percentOf(a.met, a.total)]),
  }),
  'sla-priorities': ({ sla }) => ({
    header: ['Priority', ...SLA_HEADER],
    rows: (sla?.priorities ?? []).map((p) => [PRIORITY_LABELS[p.priority], p.met, p.total, percentOf(p.met, p.total)]),
  }),
  'csat-weeks': ({ csat: c }) => ({
    header: ['Week of', ...CSAT_HEADER],
    rows: (c?.weeks ?? []).map((w) => [w.week, ...csat(w)]),
  }),
  'csat-agents': ({ csat: c }) => ({
    header: ['Agent', ...CSAT_HEADER],
    rows: (c?.agents ?? []).map((a) => [agentName(a.assignee_id, a.name), ...csat(a)]),
  }),
  'csat-comments': ({ csat: c }) => ({
    header: ['Ticket', 'Subject', 'Agent', 'Rating', 'Comment', 'Rated at'],
    rows: (c?.comments ?? []).map((x) => [x.number, x.subject, x.agent, ratingLabel(x.rating), x.comment, x.rated_at]),
  }),
  'help-weeks': ({ help }) => ({
    header: [
      'Week of',
      'Views',
      'Helpful',
      'Not helpful',
      'Searches with no result',
      'Suggestion clicks',
      'Deflections',
    ],
    rows: (help?.weeks ?? []).map((w) => [
      w.week,
      w.views,
      w.helpful,
      w.not_helpful,
      w.no_result_searches,
      w.suggestion_clicks,
      w.deflections,
    ]),
  }),
  'help-misses': ({ help }) => ({
    header: ['Search', 'Searches'],
    rows: (help?.top_misses ?? []).map((m) => [m.query, m.searches]),
  }),
  'help-articles': ({ help }) => ({
    header: ['Article', 'Views', 'Helpful', 'Votes'],
    rows: (help?.top_articles ?? []).map((a) => [a.title, a.views, a.helpful, a.votes]),
  }),
} satisfies Record<string, (all: AllReports) => ReportTable>;

export type ReportTableName = keyof typeof REPORT_TABLES;

export const isReportTable = (name: string): name is ReportTableName => Object.hasOwn(REPORT_TABLES, name);
