// Renders documents with a per-request CSP nonce and request id, sets the security headers on
// documents and data responses, and logs every error response with its request id. A page the same
// for every reader is rendered without either, kept, and sent again by server.ts without Remix
// (keptDocument: app/lib/http/shared-documents.server.ts).
import type { ActionFunctionArgs, EntryContext, HandleDataRequestFunction, LoaderFunctionArgs } from '@remix-run/node';
import { RemixServer, isRouteErrorResponse } from '@remix-run/react';
import { renderToString } from 'react-dom/server';
import { islandAssetsOf, islandLoader } from './components/islands.server.tsx';
import { RequestInfoContext } from './components/request-info.tsx';
import { env } from './lib/env.server.ts';
import { isErrorCode } from './lib/errors/catalogue.server.ts';
import { log } from './lib/http/log.server.ts';
import { type KeptForm, keptForm } from './lib/http/kept-form.server.ts';
import { requestIdFor } from './lib/http/request-id.server.ts';
import { utf8Bytes } from './lib/http/utf8.server.ts';
import { BytesResponse } from './lib/http/bytes-response.ts';
import { isSharedPage, keepDocument } from './lib/http/shared-documents.server.ts';
import { keepInErrors } from './lib/http/turbo-stream.server.ts';
import {
  applyCacheHeaders,
  applySecurityHeaders,
  contentSecurityPolicyFor,
  newNonce,
} from './lib/http/security-headers.server.ts';

// server.ts sends a kept document before it asks Remix.
export { keptDocument } from './lib/http/shared-documents.server.ts';

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

/** How long a document waits for the loaders' data to be encoded (promises in it included). */
export const streamTimeout = 5_000;

/**
 * The errors of a document as rendered: without stacks (development mode adds them, absolute paths
 * of this machine; the page never shows them and the log has them), and a backend_unavailable after
 * a POST with the text that was sent, for the error page to give back. Returns that text.
 */
async function prepareErrors(request: Request, remixContext: EntryContext): Promise<KeptForm | null> {
  const errors = Object.values(remixContext.staticHandlerContext.errors ?? {});
  const unavailable = errors.filter(
    (error) => isRouteErrorResponse(error) && error.data?.code === 'backend_unavailable',
  );
  const kept = unavailable.length ? await keptForm(request) : null;
  for (const error of errors) if (error instanceof Error) error.stack = undefined;
  if (kept) for (const error of unavailable) error.data = { ...error.data, kept };
  return kept;
}

/** The text of a chunk of turbo-stream's (patches/turbo-stream+2.4.1.patch). */
const HANDOFF_TEXT = Symbol.for('turbo-stream.text');

/**
 * The loaders' data for the browser (single fetch streams it into the document as turbo-stream
 * chunks through <Scripts/>), read whole before rendering and handed to Remix's StreamTransfer as
 * already read: the document is then one renderToString, not a stream, which costs ~20% more CPU
 * per page (docs/decisions/014-single-fetch.md). Tend's loaders return no promises, so nothing is
 * lost by waiting; one that did would be waited for (up to streamTimeout) rather than streamed.
 * Text kept for an error page goes in too, so the browser renders what the server did.
 */
async function preloadHandoff(context: EntryContext, kept: KeptForm | null): Promise<void> {
  const stream = context.serverHandoffStream;
  if (!stream || !context.renderMeta) return;
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  // turbo-stream (patched) hands each chunk's text beside its bytes: no decoding back (docs/decisions/112-…).
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
    text +=
      (chunk.value as Uint8Array & { [HANDOFF_TEXT]?: string })[HANDOFF_TEXT] ??
      decoder.decode(chunk.value, { stream: true });
  text += decoder.decode();
  reader.releaseLock();
  if (kept) text = keepInErrors(text, kept);
  const read = (result: { done: boolean; value: string }) => Object.assign(Promise.resolve(), { result });
  context.renderMeta.streamCache = { 0: read({ done: false, value: text }), 1: read({ done: true, value: '' }) };
}

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: object,
) {
  const requestId = requestIdFor(request);
  const errors = remixContext.staticHandlerContext.errors;
  const kept = errors ? await prepareErrors(request, remixContext) : null;
  logResponse(request, responseStatusCode, errors ? errorCodeOf(Object.values(errors)[0]) : undefined);

  // An island page every loader of which returned data the same for every reader (a signed-out reader's
  // help center): rendered without a nonce or request id, its island loaded by a script the CSP allows by
  // its hash, and kept, so that server.ts sends the same bytes again without Remix.
  const { actionData, loaderData, matches } = remixContext.staticHandlerContext;
  const island =
    request.method === 'GET' && responseStatusCode === 200 && !errors && !actionData && isSharedPage(loaderData)
      ? islandAssetsOf(matches.map((m) => ({ handle: remixContext.routeModules[m.route.id]?.handle })))
      : null;
  const nonce = island ? '' : newNonce();
  responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
  responseHeaders.set('X-Request-Id', requestId);
  applySecurityHeaders(responseHeaders, csp(island ? { hashes: [islandLoader(island).hash] } : { nonce }));
  applyCacheHeaders(responseHeaders, { document: true });

  if (!island) await preloadHandoff(remixContext, kept);
  // One string is cheaper than a stream (~20% less CPU per page; server.ts writes it in one piece),
  // and the first byte comes no later. Bytes, not the string: a string body is checked code point
  // by code point (USVString) by undici's Response, ~3% of an inbox page's CPU; utf8Bytes: see there.
  // A BytesResponse keeps them as they are for server.ts (bytes-response.ts).
  const html = `<!DOCTYPE html>${renderToString(
    <RequestInfoContext.Provider value={island ? { nonce: '', requestId: '' } : { nonce, requestId }}>
      <RemixServer context={remixContext} url={request.url} nonce={nonce} />
    </RequestInfoContext.Provider>,
  )}`;
  if (island) keepDocument(request, html, responseHeaders, loaderData, loadContext);
  return new BytesResponse(utf8Bytes(html), { headers: responseHeaders, status: responseStatusCode });
}

/** The page a single-fetch data URL (/w/acme.data?_routes=…, /_root.data) loads the data of. */
function pageOf(dataUrl: URL): string {
  const page = new URL(dataUrl);
  page.pathname = page.pathname.replace(/\.data$/, '').replace(/^\/_root$/, '/');
  page.searchParams.delete('_routes');
  return `${page.pathname}${page.search}`;
}

/**
 * Single-fetch data responses (client navigations, form posts with JavaScript): the document's
 * headers. A navigation whose loaders failed becomes a document load of the page instead, so the
 * error page comes from the server as without JavaScript: its status, and the request id that is
 * in the log (a data response's body is turbo-stream, which can't carry it to the page).
 */
export const handleDataRequest: HandleDataRequestFunction = async (response, { request }) => {
  const headers = new Headers(response.headers);
  headers.set('X-Request-Id', requestIdFor(request));
  applySecurityHeaders(headers);
  applyCacheHeaders(headers, { document: false });
  if (request.method === 'GET' && response.status >= 400) {
    await response.body?.cancel();
    headers.set('Location', pageOf(new URL(request.url)));
    headers.set('X-Remix-Reload-Document', 'true');
    return new Response(null, { status: 302, headers });
  }
  logResponse(request, response.status);
  // A form post that met backend_unavailable gets its text back on the error page (kept-form.server.ts).
  const kept = request.method === 'POST' && response.status === 503 ? await keptForm(request) : null;
  if (kept) {
    headers.delete('Content-Length');
    const body = keepInErrors(await response.text(), kept);
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
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
