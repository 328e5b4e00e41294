// Responses from loaders and actions. Every one carries the Supabase client's Set-Cookie and
// cache headers (docs/reference/remix-ssr.md §1.4: data, redirects, thrown redirects and errors alike).
import { json, redirect, data as withInit } from '@remix-run/node';
import {
  errorMessage,
  errorStatus,
  type ErrorCode,
  type ErrorParams,
  type ErrorPayload,
} from '../errors/catalogue.server.ts';
import { rememberForm } from './kept-form.server.ts';
import { isSameOriginPost } from './request-info.server.ts';
import { supabaseHeaders } from '../supabase/client.server.ts';

type HeadersLike = HeadersInit | undefined | null;

/** Appends entry by entry so several Set-Cookie headers survive (remix-ssr.md §1.4, pitfall 3). */
export function combineHeaders(...sources: HeadersLike[]): Headers {
  const out = new Headers();
  for (const source of sources) {
    if (!source) continue;
    for (const [name, value] of new Headers(source).entries()) out.append(name, value);
  }
  return out;
}

export function responseHeaders(request: Request, extra?: HeadersLike): Headers {
  return combineHeaders(supabaseHeaders(request), extra);
}

/**
 * A loader's or action's data with a status and headers, and the session's cookies. Single fetch
 * hands the object itself to the document or the data response (no JSON string made and parsed
 * again on the way).
 */
export function dataWithSession<T>(request: Request, body: T, init: ResponseInit = {}) {
  return withInit(body, { ...init, headers: responseHeaders(request, init.headers) });
}

/** A resource route's JSON (routes without a page: single fetch wants a Response from them). */
export function jsonResponse<T>(request: Request, body: T, init: ResponseInit = {}) {
  return json(body, { ...init, headers: responseHeaders(request, init.headers) });
}

/** A redirect that carries the session's cookies (a refreshed token, a sign-out) with it. */
export function redirectWithSession(request: Request, url: string, init: ResponseInit = {}) {
  return redirect(url, { ...init, headers: responseHeaders(request, init.headers) });
}

/** A catalogue error as a response; `throw` it from loaders for the error boundary. */
export function errorResponse<C extends ErrorCode>(request: Request, code: C, ...params: ErrorParams<C>) {
  const body: ErrorPayload = { code, message: errorMessage(code, ...params) };
  return json(body, { status: errorStatus(code), headers: responseHeaders(request) });
}

/** Every action starts with this (docs/decisions/001-csrf-samesite.md). */
export function requireSameOrigin(request: Request): void {
  if (!isSameOriginPost(request)) throw errorResponse(request, 'forbidden');
}

/**
 * The most a form without files may send. A full message (20 000 characters) is at most ~240 KB
 * URL-encoded; a body far bigger is not a person typing, and would be held in memory whole.
 */
export const FORM_MAX_BYTES = 1024 * 1024;

/**
 * The posted form. A body that is not a form is the catalogue's bad_request (400) and one over
 * `maxBytes` is too_large (413), read no further: never a 500.
 */
export async function readFormData(request: Request, maxBytes = FORM_MAX_BYTES): Promise<FormData> {
  const declared = request.headers.get('Content-Length');
  if (declared !== null && Number(declared) > maxBytes) throw errorResponse(request, 'too_large');
  let form: Request | Response = request;
  // Without a length (chunked), count while reading: Node's parser holds a declared length to its word.
  if (declared === null && request.body) {
    const body = await readAtMost(request.body, maxBytes);
    if (!body) throw errorResponse(request, 'too_large');
    form = new Response(body, { headers: { 'Content-Type': request.headers.get('Content-Type') ?? '' } });
  }
  let parsed: FormData;
  try {
    parsed = await form.formData();
  } catch {
    throw errorResponse(request, 'bad_request');
  }
  // For the backend_unavailable page, should the backend fail after this (kept-form.server.ts).
  rememberForm(request, parsed);
  return parsed;
}

/** The whole stream, or null (and the stream cancelled) once it passes `maxBytes`. */
async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
