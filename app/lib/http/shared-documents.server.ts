// Documents that are the same for every reader, rendered once (docs/decisions/065-help-center-speed.md):
// when every loader of a page returned data marked here — the same object for every reader, such as the
// help center's pages for a signed-out reader, built from what app/lib/help/public-cache.server.ts
// remembers — entry.server.tsx keeps the rendered HTML under those objects and the address, with
// placeholders where the response's CSP nonce and request id go. The objects are the key: when the
// remembered data is dropped (its help center changed) they and their HTML go with it.
import { randomBytes } from 'node:crypto';

const shared = new WeakSet<object>();
const variants = new WeakMap<object, Map<string, object>>();

/**
 * The data of `key` made from `base` (an object remembered for every reader): the same object each time,
 * so the document rendered from it can be kept (`make` runs once per base and key).
 */
export function sameForEveryone<T extends object>(base: object, key: string, make: () => T): T {
  let byKey = variants.get(base);
  if (!byKey) variants.set(base, (byKey = new Map()));
  let data = byKey.get(key);
  if (!data) {
    data = make();
    shared.add(data);
    byKey.set(key, data);
  }
  return data as T;
}

/** Data that is the same object for every reader (the root's for a signed-out one). */
export function sharedConstant<T extends object>(data: T): T {
  shared.add(data);
  return data;
}

// Random per process: no text of a page can hold them by chance or on purpose.
const NONCE_SLOT = `n${randomBytes(12).toString('hex')}`;
const REQUEST_ID_SLOT = `r${randomBytes(12).toString('hex')}`;
const URLS_PER_DATA = 4;
const rendered = new WeakMap<object, Map<string, { html: string; with: unknown[] }>>();

/**
 * The kept document of `url` for these loaders' data, or a way to keep it; null when some of the data is
 * not the same for every reader.
 */
export function sharedDocument(loaderData: Record<string, unknown>, url: string) {
  const values = Object.values(loaderData);
  const last = values.at(-1);
  if (!values.every((v) => typeof v === 'object' && v !== null && shared.has(v)) || !last) return null;
  // Kept under the deepest route's data; the other routes' (the root's) must be the objects it was made with.
  const others = values.slice(0, -1);
  const byUrl = rendered.get(last as object) ?? new Map<string, { html: string; with: unknown[] }>();
  return {
    slots: { nonce: NONCE_SLOT, requestId: REQUEST_ID_SLOT },
    get(nonce: string, requestId: string): string | null {
      const kept = byUrl.get(url);
      if (!kept || kept.with.length !== others.length || kept.with.some((v, i) => v !== others[i])) return null;
      return kept.html.replaceAll(NONCE_SLOT, nonce).replaceAll(REQUEST_ID_SLOT, requestId);
    },
    keep(html: string) {
      // A few addresses per data (a query string makes another): not one per made-up query.
      if (byUrl.size >= URLS_PER_DATA && !byUrl.has(url)) return;
      rendered.set(last as object, byUrl);
      byUrl.set(url, { html, with: others });
    },
  };
}
