// The one error page: a catalogue message, a way on, and the request id that is in the server log.
import { Link, isRouteErrorResponse, useLocation, useRouteError } from '@remix-run/react';
import { codeForStatus, errorMessage } from '~/lib/errors/catalogue.ts';
import { useRequestIdAt } from './request-info.tsx';

interface Described {
  /** A catalogue code (docs/product.md §8). */
  code: string;
  status: number;
  message: string;
  requestId: string;
  /** The text a POST sent, given back when the backend was unavailable (lib/http/kept-form.server.ts). */
  kept: [string, string][] | null;
}

function keptOf(data: unknown): [string, string][] | null {
  const kept = (data as { kept?: unknown } | null)?.kept;
  if (!Array.isArray(kept)) return null;
  return kept.filter(
    (pair): pair is [string, string] =>
      Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string',
  );
}

/** The fields a person typed, shown to edit and send again; the rest of the form goes along hidden. */
const TYPED_FIELDS: Record<string, string> = {
  subject: 'Subject',
  body: 'Message',
  name: 'Name',
  display_name: 'Display name',
};

function describe(error: unknown, fallbackId: string): Described {
  if (isRouteErrorResponse(error)) {
    const data = error.data as { code?: unknown; message?: unknown } | null;
    // Catalogue errors carry their code and (possibly parameterised) message, made by errorResponse();
    // the browser knows only the messages of the codes it shows itself (catalogue.ts).
    if (typeof data?.code === 'string' && typeof data.message === 'string') {
      return {
        code: data.code,
        status: error.status,
        message: data.message,
        requestId: fallbackId,
        kept: keptOf(data),
      };
    }
    const code = codeForStatus(error.status);
    return { code, status: error.status, message: errorMessage(code), requestId: fallbackId, kept: keptOf(data) };
  }
  return { code: 'unexpected', status: 500, message: errorMessage('unexpected'), requestId: fallbackId, kept: null };
}

const TITLES: Record<string, string> = {
  not_found: 'Page not found',
  forbidden: 'No access',
  backend_unavailable: 'Temporarily unavailable',
  unexpected: 'Something went wrong',
};

function KeptField({ name, value, id }: { name: string; value: string; id: string }) {
  if (!TYPED_FIELDS[name] || !value) return <input type="hidden" name={name} value={value} />;
  return (
    <div className="field">
      <label htmlFor={id}>{TYPED_FIELDS[name]}</label>
      <textarea id={id} name={name} defaultValue={value} className="input" rows={name === 'body' ? 8 : 2} />
    </div>
  );
}

export function GeneralErrorBoundary() {
  const error = useRouteError();
  // A failed client navigation reloads the page from the server (entry.server's
  // handleDataRequest), so it has the document's id; a form post that failed with JavaScript has none.
  const { code, status, message, requestId, kept } = describe(error, useRequestIdAt(useLocation().key));
  const typed = kept?.filter(([name, value]) => TYPED_FIELDS[name] && value) ?? [];
  return (
    <section className="card card--narrow error-page" aria-labelledby="error-title">
      <p className="eyebrow">
        Error {status} · {TITLES[code] ?? 'That did not work'}
      </p>
      <h1 id="error-title" data-error-code={code}>
        {message}
      </h1>
      {typed.length ? (
        // Sent again to the same address, as the page that failed sent it (a plain form: no JavaScript needed).
        <form method="post" className="stack" data-testid="kept-form">
          {kept?.map(([name, value], i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a kept field is its position in the form that was sent
            <KeptField key={i} name={name} value={value} id={`kept-${i}`} />
          ))}
          <p>
            <button type="submit" className="button">
              Try again
            </button>
          </p>
        </form>
      ) : (
        <p>
          <Link to="/" className="button">
            Go to the home page
          </Link>
        </p>
      )}
      {requestId ? (
        <p className="muted small">
          Request id: <code data-testid="request-id">{requestId}</code>
        </p>
      ) : null}
    </section>
  );
}
