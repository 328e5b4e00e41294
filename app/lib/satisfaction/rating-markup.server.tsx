// The ticket header's satisfaction rating as HTML, rendered here so the ticket page's JavaScript carries
// none of it (docs/decisions/006-javascript-budget.md: the page is at its budget): the latest answer and
// the requester's comment, or null when the requester hasn't answered.
import { renderToStaticMarkup } from 'react-dom/server';
import { ratingLabel, type SurveyRating } from './ratings.ts';

export function ratingMarkup(rated: { rating: SurveyRating | null; comment: string | null } | null): string | null {
  if (!rated?.rating) return null;
  return renderToStaticMarkup(
    <>
      <p className="muted small">
        Rated <strong className={`cs-rated cs-rated--${rated.rating}`}>{ratingLabel(rated.rating)}</strong> by the
        requester
      </p>
      {rated.comment ? (
        <blockquote className="cs-comment small" dir="auto" data-testid="rating-comment">
          {rated.comment}
        </blockquote>
      ) : null}
    </>,
  );
}
