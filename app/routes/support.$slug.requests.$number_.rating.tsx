// The satisfaction survey's page (docs/product.md "Satisfaction ratings"; docs/decisions/054-satisfaction-ratings.md):
// /support/:slug/requests/:number/rating?t=<token>[&rating=good|okay|bad]. No sign-in: the token, signed
// by the database for one survey of this request, is the authority. The email's one-click links record
// their answer on arrival (the same answer again changes nothing); the page then offers a comment and
// the other answers, as plain forms (no JavaScript needed), for 7 days after the solve.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import {
  ErrorList,
  replyErrors,
  replyFormErrors,
  replyValue,
  SubmitButton,
  TextareaField,
} from '~/components/forms.tsx';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { Rating, RatingSchema, SurveyToken } from '~/lib/forms/satisfaction-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { getOptionalSession } from '~/lib/auth/session.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { parseNumber, parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { clientIp } from '~/lib/http/request-info.server.ts';
import { RateLimiter } from '~/lib/http/rate-limit.server.ts';
import {
  dataWithSession,
  errorResponse,
  readFormData,
  redirectWithSession,
  requireSameOrigin,
} from '~/lib/http/responses.server.ts';
import { SURVEY_COMMENT_MAX_LENGTH } from '~/lib/satisfaction/limits.ts';
import { ratingLabel, SURVEY_ANSWERS, type SurveyRating } from '~/lib/satisfaction/ratings.ts';
import { anonClient } from '~/lib/supabase/client.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.survey.question} · #${data.survey.number} · ${data.survey.workspace}` : 'Rating · Tend' },
  { name: 'robots', content: 'noindex' },
];

/** What public.rate_ticket answers (supabase/schemas/92_satisfaction.sql). */
interface Survey {
  workspace: string;
  number: number;
  subject: string;
  question: string;
  rating: SurveyRating | null;
  comment: string | null;
  expires_at: string;
  time_zone: string;
}

// Per worker process: the tokens are unguessable (a 128-bit MAC), so this only keeps one address from
// hammering the database with made-up ones.
const perIp = new RateLimiter({ limit: 60, windowSeconds: 10 * 60 });

function limit(request: Request) {
  const ip = clientIp(request);
  if (ip !== null && !perIp.hit(ip)) throw errorResponse(request, 'too_many_attempts');
}

/** The survey's answer, recorded or changed when given; its refusals are the error page. */
async function rate(
  request: Request,
  params: LoaderFunctionArgs['params'],
  token: string,
  answer: { rating?: SurveyRating; comment?: string },
) {
  const slug = parseSlug(request, params.slug);
  const number = parseNumber(request, params.number);
  const { data, error } = await anonClient().rpc('rate_ticket', {
    p_slug: slug,
    p_number: number,
    p_token: token,
    p_rating: answer.rating,
    p_comment: answer.comment,
  });
  return { data: data as unknown as Survey | null, error, path: `/support/${slug}/requests/${number}/rating` };
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  limit(request);
  const url = new URL(request.url);
  const token = SurveyToken.safeParse(url.searchParams.get('t'));
  if (!token.success) throw errorResponse(request, 'survey_invalid');
  const given = url.searchParams.get('rating');
  const rating = given === null ? undefined : Rating.safeParse(given);
  if (rating && !rating.success) throw errorResponse(request, 'bad_request');
  const session = await getOptionalSession(request);
  const [{ data, error }, zoneOf] = await Promise.all([
    rate(request, params, token.data, { rating: rating?.data }),
    viewerZones({ request, context }, session?.supabase ?? null),
  ]);
  if (error) {
    const { code } = mapDbError(error, 'rating');
    if (code === 'survey_invalid' || code === 'survey_expired') throw errorResponse(request, code);
    throwDbError(request, error, 'rating');
  }
  const { time_zone, ...survey } = data!;
  return dataWithSession(
    request,
    {
      survey: { ...survey, until: formatDateIn(survey.expires_at, zoneOf(time_zone)) },
      token: token.data,
      saved: url.searchParams.get('saved') === '1',
    },
    // The token is in the address: no cache keeps the page.
    { headers: { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } },
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  limit(request);
  const submission = parseSubmission(await readFormData(request), RatingSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const { t, rating, comment } = submission.value;
  const { error, path } = await rate(request, params, t, { rating, comment });
  if (error) {
    const { message, status } = mapDbError(error, 'rating');
    return dataWithSession(request, { result: submission.reply({ formErrors: [message] }) }, { status });
  }
  return redirectWithSession(request, `${path}?${new URLSearchParams({ t, saved: '1' })}`);
}

export default function RatingPage() {
  const { survey, token, saved } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>()?.result;
  return (
    <section className="stack-lg cs-rating" aria-labelledby="rating-title">
      <div className="card stack">
        <p className="eyebrow">
          {survey.workspace} · Request #{survey.number}
        </p>
        <p dir="auto" className="muted">
          {survey.subject}
        </p>
        <h1 id="rating-title" dir="auto">
          {survey.question}
        </h1>
        {survey.rating ? (
          <p className="notice notice--success" role="status" data-testid="rating-saved">
            {saved ? 'Saved. ' : 'Thank you. '}Your answer: <strong>{ratingLabel(survey.rating)}</strong>
            {survey.comment ? ', with your comment.' : '.'}
          </p>
        ) : null}
      </div>
      <Form method="post" className="card stack" noValidate>
        <input type="hidden" name="t" value={token} />
        <ErrorList errors={replyFormErrors(result)} />
        <fieldset className="stack">
          <legend>{survey.rating ? 'Change your answer' : 'Your answer'}</legend>
          <div className="hd-actions">
            {SURVEY_ANSWERS.map((a) => (
              <button
                key={a.rating}
                type="submit"
                name="rating"
                value={a.rating}
                aria-pressed={survey.rating === a.rating}
                className={`button ${survey.rating === a.rating ? '' : 'button--secondary'} cs-answer cs-answer--${a.rating}`}
              >
                {a.label}
              </button>
            ))}
          </div>
        </fieldset>
        <TextareaField
          id="comment"
          name="comment"
          label="Anything to add? (optional)"
          rows={4}
          maxLength={SURVEY_COMMENT_MAX_LENGTH}
          defaultValue={replyValue(result, 'comment') ?? survey.comment ?? ''}
          errors={replyErrors(result, 'comment')}
          dir="auto"
        />
        <SubmitButton className="button button--secondary">Send comment</SubmitButton>
        <p className="muted small">You can change your answer and comment until {survey.until}.</p>
      </Form>
    </section>
  );
}
