// The one error page: a catalogue message, a way on, and the request id that is in the server log.
import { Link, isRouteErrorResponse, useLocation, useRouteError } from '@remix-run/react';
import { codeForStatus, errorMessage, isErrorCode, type ErrorCode } from '~/lib/errors/catalogue.ts';
import { useRequestIdAt } from './request-info.tsx';

type PageCode = Exclude<
  ErrorCode,
  'code_rate_limited' | 'invalid_transition' | 'attachment_too_large' | 'attachment_type'
>;
const WITH_PARAMS = new Set<ErrorCode>([
  'code_rate_limited',
  'invalid_transition',
  'attachment_too_large',
  'attachment_type',
]);

interface Described {
  code: ErrorCode;
  status: number;
  message: string;
  requestId: string;
}

function describe(error: unknown, fallbackId: string): Described {
  if (isRouteErrorResponse(error)) {
    const data = error.data as { code?: unknown; message?: unknown } | null;
    const code = isErrorCode(data?.code) ? data.code : codeForStatus(error.status);
    // Catalogue errors carry their (possibly parameterised) message, made by errorResponse().
    const message =
      isErrorCode(data?.code) && typeof data?.message === 'string'
        ? data.message
        : errorMessage(WITH_PARAMS.has(code) ? 'bad_request' : (code as PageCode));
    return { code, status: error.status, message, requestId: fallbackId };
  }
  return { code: 'unexpected', status: 500, message: errorMessage('unexpected'), requestId: fallbackId };
}

const TITLES: Partial<Record<ErrorCode, string>> = {
  not_found: 'Page not found',
  forbidden: 'No access',
  backend_unavailable: 'Temporarily unavailable',
  unexpected: 'Something went wrong',
};

export function GeneralErrorBoundary() {
  const error = useRouteError();
  // A failed client navigation reloads the page from the server (entry.server's
  // handleDataRequest), so it has the document's id; a form post that failed with JavaScript has none.
  const { code, status, message, requestId } = describe(error, useRequestIdAt(useLocation().key));
  return (
    <section className="card card--narrow error-page" aria-labelledby="error-title">
      <p className="eyebrow">
        Error {status} · {TITLES[code] ?? 'That did not work'}
      </p>
      <h1 id="error-title" data-error-code={code}>
        {message}
      </h1>
      <p>
        <Link to="/" className="button">
          Go to the home page
        </Link>
      </p>
      {requestId ? (
        <p className="muted small">
          Request id: <code data-testid="request-id">{requestId}</code>
        </p>
      ) : null}
    </section>
  );
}
