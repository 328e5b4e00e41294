// Responses from loaders and actions. Every one carries the Supabase client's Set-Cookie and
// cache headers (reference/remix-ssr.md §1.4: data, redirects, thrown redirects and errors alike).
import { json, redirect } from '@remix-run/node';
import { errorMessage, errorStatus, type ErrorCode, type ErrorParams, type ErrorPayload } from './errors.ts';
import { isSameOriginPost } from './request-info.server.ts';
import { supabaseHeaders } from './supabase.server.ts';

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

export function data<T>(request: Request, body: T, init: ResponseInit = {}) {
  return json(body, { ...init, headers: responseHeaders(request, init.headers) });
}

export function redirectWithHeaders(request: Request, url: string, init: ResponseInit = {}) {
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

/** The posted form; a body that is not a form is the catalogue's bad_request (400), never a 500. */
export async function readFormData(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch {
    throw errorResponse(request, 'bad_request');
  }
}
