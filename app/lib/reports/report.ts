// What public.workspace_report returns (supabase/schemas/60_reports.sql): one jsonb object, typed
// here once for the reports page, its charts and the tests that check it against plain SQL.
import type { TicketStatus } from '~/lib/helpdesk/ticket-terms.ts';

export interface ReportDay {
  day: string;
  created: number;
  solved: number;
}

export interface ReportHour {
  weekday: number;
  hour: number;
  created: number;
}

export interface Percentiles {
  count: number;
  median_seconds: number | null;
  p90_seconds: number | null;
}

export interface WorkspaceReport {
  time_zone: string;
  from: string;
  to: string;
  days: ReportDay[];
  created: number;
  solved: number;
  first_response: Percentiles;
  resolution: Percentiles;
  backlog_by_status: { status: TicketStatus; tickets: number }[];
  backlog_by_assignee: {
    assignee_id: string | null;
    name: string | null;
    new: number;
    open: number;
    pending: number;
    tickets: number;
  }[];
  /** Tickets created and solved in the range per tag (docs/product.md#tags). */
  by_tag: { name: string; colour: string; created: number; solved: number }[];
  busiest_hours: ReportHour[];
}
