// The one error page: a catalogue message, a way on, and the request id that is in the server log.
import { Link, isRouteErrorResponse, useRouteError } from '@remix-run/react';
import { codeForStatus, errorMessage, isErrorCode, type ErrorCode } from '~/lib/errors/catalogue.ts';
import { useRequestId } from './request-info.tsx';

const REQUEST_IN_MESSAGE = /\[request ([A-Za-z0-9._:-]+)\]/;

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
    const data = error.data as { code?: unknown; message?: unknown; requestId?: unknown } | null;
    const code = isErrorCode(data?.code) ? data.code : codeForStatus(error.status);
    // Catalogue errors carry their (possibly parameterised) message, made by errorResponse().
    const message =
      isErrorCode(data?.code) && typeof data?.message === 'string'
        ? data.message
        : errorMessage(WITH_PARAMS.has(code) ? 'bad_request' : (code as PageCode));
    const requestId = typeof data?.requestId === 'string' ? data.requestId : fallbackId;
    return { code, status: error.status, message, requestId };
  }
  // Unexpected errors: entry.server puts the id into the message of data responses.
  const fromMessage = error instanceof Error ? REQUEST_IN_MESSAGE.exec(error.message)?.[1] : undefined;
  return { code: 'unexpected', status: 500, message: errorMessage('unexpected'), requestId: fromMessage ?? fallbackId };
}

const TITLES: Partial<Record<ErrorCode, string>> = {
  not_found: 'Page not found',
  forbidden: 'No access',
  backend_unavailable: 'Temporarily unavailable',
  unexpected: 'Something went wrong',
};

export function GeneralErrorBoundary() {
  const error = useRouteError();
  const { code, status, message, requestId } = describe(error, useRequestId());
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
