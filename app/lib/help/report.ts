// help_report's answer (supabase/schemas/65_help_center.sql): the help section of the reports page.

export interface HelpReportWeek {
  /** The Monday the week starts on (the workspace's days). */
  week: string;
  views: number;
  helpful: number;
  not_helpful: number;
  no_result_searches: number;
  suggestion_clicks: number;
  deflections: number;
}

export interface HelpReport {
  time_zone: string;
  from: string;
  to: string;
  weeks: HelpReportWeek[];
  views: number;
  helpful: number;
  not_helpful: number;
  no_result_searches: number;
  suggestion_clicks: number;
  deflections: number;
  top_misses: { query: string; searches: number }[];
  top_articles: {
    id: number;
    title: string;
    slug: string;
    status: string;
    views: number;
    helpful: number;
    votes: number;
  }[];
}
