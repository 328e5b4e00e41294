// agent_report's answer (supabase/schemas/92_satisfaction.sql): the reports page's table per agent.
import type { RatingCounts } from '../satisfaction/ratings.ts';

export interface AgentReportRow extends RatingCounts {
  user_id: string;
  name: string | null;
  /** Public replies written in the range. */
  replies: number;
  /** Tickets solved in the range while assigned to them. */
  solved: number;
  first_response_median_seconds: number | null;
  resolution_median_seconds: number | null;
  sla_met: number;
  sla_total: number;
}

/** tag_report's answer (the same file): the reports page's table per tag. */
export interface TagReportRow extends RatingCounts {
  name: string;
  colour: string;
  /** SLA targets decided in the range on tickets carrying the tag now. */
  sla_met: number;
  sla_total: number;
}
