// One id per HTTP request, shared by handleError, the document/data handlers and the log.
// Remix hands loaders a copy of the Request, but entry.server's hooks all see the original one.
import { randomUUID } from 'node:crypto';

const ids = new WeakMap<Request, string>();
const FROM_PROXY = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestIdFor(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    const incoming = request.headers.get('x-request-id');
    id = incoming && FROM_PROXY.test(incoming) ? incoming : randomUUID();
    ids.set(request, id);
  }
  return id;
}
