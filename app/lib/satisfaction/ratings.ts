// Satisfaction ratings for the app's pages: the survey's answers and their wording, from the one list
// notify's email uses too (supabase/functions/_shared/survey.ts).
export {
  csatPercent,
  DEFAULT_SURVEY_QUESTION,
  ratingLabel,
  SURVEY_ANSWERS,
  SURVEY_DAYS,
  type RatingCounts,
  type SurveyRating,
} from '../../../supabase/functions/_shared/survey.ts';
