// Renders documents with a per-request CSP nonce and request id, sets the security headers on
// documents and data responses, and logs every error response with its request id.
import { PassThrough } from 'node:stream';
import type { ActionFunctionArgs, EntryContext, HandleDataRequestFunction, LoaderFunctionArgs } from '@remix-run/node';
import { createReadableStreamFromReadable } from '@remix-run/node';
import { RemixServer, isRouteErrorResponse } from '@remix-run/react';
import { isbot } from 'isbot';
import { renderToPipeableStream, renderToString } from 'react-dom/server';
import { RequestInfoContext } from './components/request-info.tsx';
import { env } from './lib/env.server.ts';
import { isErrorCode } from './lib/errors/catalogue.ts';
import { log } from './lib/http/log.server.ts';
import { keptForm } from './lib/http/kept-form.server.ts';
import { requestIdFor } from './lib/http/request-id.server.ts';
import {
  applyCacheHeaders,
  applySecurityHeaders,
  contentSecurityPolicyFor,
  newNonce,
} from './lib/http/security-headers.server.ts';

const ABORT_DELAY = 5_000;
const devOrigin = process.env.REMIX_DEV_ORIGIN;
const LIVE_RELOAD_PORT = devOrigin ? Number(new URL(devOrigin).port) || undefined : undefined;

// Everything but the nonce comes from the environment, so the policy is built once.
const csp = contentSecurityPolicyFor({
  supabaseUrl: env.SUPABASE_URL,
  devLiveReloadPort: env.NODE_ENV === 'development' ? LIVE_RELOAD_PORT : undefined,
  extraConnectSrc: env.CSP_CONNECT_SRC.split(/\s+/).filter(Boolean),
});

function errorCodeOf(error: unknown): string | undefined {
  if (isRouteErrorResponse(error)) return isErrorCode(error.data?.code) ? error.data.code : undefined;
  return error ? 'unexpected' : undefined;
}

function logResponse(request: Request, status: number, code?: string) {
  if (status < 400) return;
  const fields = {
    request_id: requestIdFor(request),
    status,
    method: request.method,
    path: new URL(request.url).pathname,
    code,
  };
  // A client that left (a live page's revalidation cut short by a navigation) is no server failure.
  if (request.signal.aborted) log.info('request abandoned', fields);
  else if (status >= 500) log.error('request failed', fields);
  else log.info('request refused', fields);
}

/**
 * The errors of a document, as rendered and as handed to the browser: without stacks (development
 * mode adds them, absolute paths of this machine; the page never shows them and the log has them),
 * and a backend_unavailable after a POST with the text that was sent, for the error page to give back.
 */
async function prepareErrors(request: Request, remixContext: EntryContext) {
  const errors = remixContext.staticHandlerContext.errors ?? {};
  const unavailable = Object.entries(errors).filter(
    ([, error]) => isRouteErrorResponse(error) && error.data?.code === 'backend_unavailable',
  );
  const kept = unavailable.length ? await keptForm(request) : null;
  for (const error of Object.values(errors)) {
    if (error instanceof Error) error.stack = undefined;
  }
  for (const [, error] of unavailable) if (kept) error.data = { ...error.data, kept };
  if (!remixContext.serverHandoffString?.includes('"stack"') && !kept) return;
  type Handoff = { state?: { errors?: Record<string, { stack?: unknown; data?: Record<string, unknown> }> } };
  const handoff = JSON.parse(remixContext.serverHandoffString ?? '{}') as Handoff;
  for (const [routeId, error] of Object.entries(handoff.state?.errors ?? {})) {
    if (!error || typeof error !== 'object') continue;
    delete error.stack;
    if (kept && unavailable.some(([id]) => id === routeId)) error.data = { ...error.data, kept };
  }
  // Escaped as Remix escapes it (server-runtime markup.ts): it is written into a <script>.
  remixContext.serverHandoffString = JSON.stringify(handoff).replace(
    /[&<>\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  const nonce = newNonce();
  const requestId = requestIdFor(request);
  const errors = remixContext.staticHandlerContext.errors;
  if (errors) await prepareErrors(request, remixContext);
  logResponse(request, responseStatusCode, errors ? errorCodeOf(Object.values(errors)[0]) : undefined);

  const app = (
    <RequestInfoContext.Provider value={{ nonce, requestId }}>
      <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
    </RequestInfoContext.Provider>
  );
  responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
  responseHeaders.set('X-Request-Id', requestId);
  applySecurityHeaders(responseHeaders, csp(nonce));
  applyCacheHeaders(responseHeaders, { document: true });

  // Nothing deferred: one string is cheaper than a stream (~20% less CPU per page through
  // remix-serve; server.ts writes it in one piece), and the first byte comes no later.
  const deferreds = remixContext.staticHandlerContext.activeDeferreds;
  if (!deferreds || Object.keys(deferreds).length === 0) {
    // Bytes, not the string: a string body is checked code point by code point (USVString) by
    // undici's Response, ~3% of an inbox page's CPU; Buffer.from encodes it natively.
    const html = Buffer.from(`<!DOCTYPE html>${renderToString(app)}`);
    return new Response(html, { headers: responseHeaders, status: responseStatusCode });
  }

  // Bots get the whole document at once; browsers get the shell as soon as it is ready.
  const readyEvent = isbot(request.headers.get('user-agent') ?? '') ? 'onAllReady' : 'onShellReady';
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(app, {
      nonce,
      [readyEvent]() {
        shellRendered = true;
        const body = new PassThrough();
        resolve(
          new Response(createReadableStreamFromReadable(body), {
            headers: responseHeaders,
            status: responseStatusCode,
          }),
        );
        pipe(body);
      },
      onShellError(error: unknown) {
        reject(error);
      },
      onError(error: unknown) {
        responseStatusCode = 500;
        // Before the shell, onShellError reports it (and handleError logs it).
        if (shellRendered) log.error('render failed', { request_id: requestId }, error);
      },
    });
    setTimeout(abort, ABORT_DELAY);
  });
}

/** `?_data` responses (client navigations): same headers; the request id goes into error bodies. */
export const handleDataRequest: HandleDataRequestFunction = async (response, { request }) => {
  const requestId = requestIdFor(request);
  const headers = new Headers(response.headers);
  headers.set('X-Request-Id', requestId);
  applySecurityHeaders(headers);
  applyCacheHeaders(headers, { document: false });
  const isError = headers.get('X-Remix-Error') === 'yes';
  const isCaught = headers.get('X-Remix-Catch') === 'yes';
  if (!isError && !isCaught)
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });

  // Error bodies are small JSON; add the request id so the error page can show it.
  let body = await response.text();
  try {
    const parsed = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const message = isError
        ? { message: `${parsed.message ?? 'Unexpected Server Error'} [request ${requestId}]` }
        : {};
      // Development mode adds the error's stack (absolute paths of this machine): that stays in the log.
      const { stack: _stack, ...rest } = parsed;
      // A POST that met backend_unavailable gets its text back (kept-form.server.ts).
      const kept = parsed.code === 'backend_unavailable' ? await keptForm(request) : null;
      body = JSON.stringify({ ...rest, requestId, ...message, ...(kept ? { kept } : {}) });
    }
    logResponse(request, response.status, isError ? 'unexpected' : isErrorCode(parsed?.code) ? parsed.code : undefined);
  } catch {
    logResponse(request, response.status);
  }
  headers.delete('Content-Length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
};

// Remix 2.17 refuses a document POST whose Origin names another host before any action runs
// (server-runtime actions.ts) and answers an empty 500; that is a refusal, not a bug of ours.
const REMIX_CSRF_REFUSAL =
  /does not match `origin` header|are not provided. One of these is needed to compare the `origin`/;

export function handleError(error: unknown, { request }: LoaderFunctionArgs | ActionFunctionArgs) {
  if (request.signal.aborted) return;
  if (error instanceof Error && REMIX_CSRF_REFUSAL.test(error.message)) {
    log.warn('cross-origin POST refused', {
      request_id: requestIdFor(request),
      path: new URL(request.url).pathname,
      origin: request.headers.get('origin'),
    });
    return;
  }
  log.error(
    'unhandled error',
    { request_id: requestIdFor(request), method: request.method, path: new URL(request.url).pathname },
    error,
  );
}
