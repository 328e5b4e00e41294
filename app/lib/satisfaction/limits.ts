// The satisfaction survey's limits, as the database checks them (supabase/schemas/92_satisfaction.sql).
export const SURVEY_COMMENT_MAX_LENGTH = 2000;
export const SURVEY_QUESTION_MAX_LENGTH = 200;
