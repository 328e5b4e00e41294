// The satisfaction survey's forms: the requester's answer and comment on the rating page
// (/support/:slug/requests/:number/rating), and the admins' settings (/w/:slug/settings/satisfaction).
// The database checks the same again (supabase/schemas/92_satisfaction.sql).
import { z } from 'zod';
import { errorMessage } from '../errors/catalogue.server.ts';
import { SURVEY_COMMENT_MAX_LENGTH, SURVEY_QUESTION_MAX_LENGTH } from '../satisfaction/limits.ts';
import { SURVEY_ANSWERS, type SurveyRating } from '../satisfaction/ratings.ts';

const badRequest = { error: errorMessage('bad_request') };
const ratings = SURVEY_ANSWERS.map((a) => a.rating) as [SurveyRating, ...SurveyRating[]];

/** A survey token as signed by the database (<32 hex>.<32 hex>); anything else is no survey. */
export const SurveyToken = z.string(badRequest).regex(/^[0-9a-f]{32}\.[0-9a-f]{32}$/, errorMessage('survey_invalid'));
export const Rating = z.enum(ratings, badRequest);

/** The rating page's form: an answer (one of three buttons) and/or a comment. */
export const RatingSchema = z.object({
  t: SurveyToken,
  rating: Rating.optional(),
  comment: z
    .string()
    .max(SURVEY_COMMENT_MAX_LENGTH, { error: errorMessage('comment_too_long') })
    .default(''),
});

/** The survey's settings: on or off (a checkbox: absent is off) and the question. */
export const SatisfactionSettingsSchema = z.object({
  enabled: z.literal('on', badRequest).optional(),
  question: z
    .string({ error: errorMessage('question_invalid') })
    .trim()
    .min(1, { error: errorMessage('question_invalid') })
    .max(SURVEY_QUESTION_MAX_LENGTH, { error: errorMessage('question_invalid') })
    // One line: it becomes an email's subject.
    .regex(/^[^\u0000-\u001f]*$/, { error: errorMessage('question_invalid') }),
});
