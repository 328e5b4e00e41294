// A satisfaction survey's answers and how long they can change (supabase/schemas/92_satisfaction.sql;
// docs/decisions/054-satisfaction-ratings.md): one list for the email (notify), the rating page, the
// ticket page and the reports. Plain TypeScript, no Deno or Node API.

/** The three answers, in the order the email and the pages show them. */
export const SURVEY_ANSWERS = [
  { rating: 'good', label: 'Good' },
  { rating: 'okay', label: 'Okay' },
  { rating: 'bad', label: 'Bad' },
] as const;
export type SurveyRating = (typeof SURVEY_ANSWERS)[number]['rating'];

/** How long an answer can be given or changed after the solve (csat_surveys.expires_at's default). */
export const SURVEY_DAYS = 7;

/** The question a workspace asks until its admins word their own (csat_settings.question's default). */
export const DEFAULT_SURVEY_QUESTION = 'How did we do?';

export const ratingLabel = (rating: SurveyRating) => SURVEY_ANSWERS.find((a) => a.rating === rating)!.label;

export interface RatingCounts {
  good: number;
  okay: number;
  bad: number;
}

/** CSAT: the share of good answers among all answers, "–" when there are none. */
export function csatPercent({ good, okay, bad }: RatingCounts): string {
  const total = good + okay + bad;
  return total ? `${Math.round((100 * good) / total)} %` : '–';
}
