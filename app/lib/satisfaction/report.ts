// csat_report's answer (supabase/schemas/92_satisfaction.sql): the satisfaction section of the reports page.
import type { RatingCounts, SurveyRating } from './ratings.ts';

export interface CsatReport {
  /** Per week, from the Monday it starts on (the workspace's days), by the day of the solve. */
  weeks: (RatingCounts & { week: string })[];
  /** Per agent: the assignee when the request was solved (null: unassigned). */
  agents: (RatingCounts & { assignee_id: string | null; name: string | null })[];
  /** The newest 100 comments. */
  comments: {
    number: number;
    subject: string;
    rating: SurveyRating;
    comment: string;
    rated_at: string;
    agent: string | null;
  }[];
}

/** The report as the page shows it: each comment's time said in the viewer's time zone (the loader's). */
export type CsatReportPage = Omit<CsatReport, 'comments'> & {
  comments: (CsatReport['comments'][number] & { when: string })[];
};
