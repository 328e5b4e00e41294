// One id per HTTP request, shared by handleError, the document/data handlers and the log.
// Remix hands loaders a copy of the Request, but entry.server's hooks all see the original one.
import { randomUUID } from 'node:crypto';

const ids = new WeakMap<Request, string>();
const FROM_PROXY = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestIdFor(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    id = requestIdFrom(request.headers.get('x-request-id'));
    ids.set(request, id);
  }
  return id;
}

/** A request's id: the proxy's X-Request-Id when it looks like one, else a new one. */
export function requestIdFrom(incoming: string | null | undefined): string {
  return incoming && FROM_PROXY.test(incoming) ? incoming : randomUUID();
}
