// Documents that are the same for every reader, rendered once and then sent from memory without Remix
// (docs/decisions/065-help-center-speed.md, docs/decisions/072-help-pages-sent-from-memory.md): when
// every loader of an island page returned data marked here — the same object for every reader, such as
// the help center's pages for a signed-out reader, built from what app/lib/help/public-cache.server.ts
// remembers — entry.server.tsx renders it without a nonce or request id (its island loaded by a script
// the CSP allows by its hash) and keeps the bytes under the page's address. server.ts then asks
// keptDocument() first: a kept page whose data is still current goes out as it is (compressed once,
// with a strong ETag and a 304 for a browser that has it), with only its X-Request-Id made per response;
// what the loaders did per reader (a view counted) is done again.
import { createHash } from 'node:crypto';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import { authCookiesIn } from '../supabase/client.server.ts';
import { publicOrigin, type RequestAddress } from './request-info.server.ts';
import { requestIdFrom } from './request-id.server.ts';
import { utf8Bytes } from './utf8.server.ts';

/** Whether shared data is still what its loader would return now (a check may have to be waited for). */
export type StillCurrent = () => boolean | Promise<boolean>;

const ALWAYS: StillCurrent = () => true;
/** Shared data, and how to tell it is still current. */
const shared = new WeakMap<object, StillCurrent>();
const variants = new WeakMap<object, Map<string, object>>();

/**
 * The data of `key` made from `base` (an object remembered for every reader, current while `current`
 * says so): the same object each time, so the document rendered from it can be kept (`make` runs once
 * per base and key).
 */
export function sameForEveryone<T extends object>(base: object, key: string, make: () => T, current: StillCurrent): T {
  let byKey = variants.get(base);
  if (!byKey) variants.set(base, (byKey = new Map()));
  let data = byKey.get(key);
  if (!data) {
    data = make();
    shared.set(data, current);
    byKey.set(key, data);
  }
  return data as T;
}

/** Data that is the same object for every reader, always (the root's for a signed-out one). */
export function sharedConstant<T extends object>(data: T): T {
  shared.set(data, ALWAYS);
  return data;
}

/** True when every loader's data of a page is shared: the document is the same for every reader. */
export function isSharedPage(loaderData: Record<string, unknown>): boolean {
  const values = Object.values(loaderData);
  return values.length > 0 && values.every((v) => typeof v === 'object' && v !== null && shared.has(v));
}

const repeats = new WeakMap<object, (() => void)[]>();

/**
 * What a loader does for each reader of a shared page (count a view), done again for each reader the
 * kept document is sent to. `context` is the loader's (Remix hands the same object to entry.server).
 */
export function repeatForEachReader(context: object, effect: () => void): void {
  const effects = repeats.get(context);
  if (effects) effects.push(effect);
  else repeats.set(context, [effect]);
}

/** Where a document is kept: its full URL and the origin its links were made for (publicOrigin). */
const addressOf = (request: RequestAddress) => `${publicOrigin(request)} ${request.url}`;

type Encoding = 'br' | 'gzip';

interface Kept {
  address: string;
  body: Buffer;
  /** Compressed once, on the first request that takes it. */
  encoded: Partial<Record<Encoding, Buffer | 'pending'>>;
  /** The body's hash: the ETag is `"<tag>"`, `"<tag>-gzip"` or `"<tag>-br"` (one per representation). */
  tag: string;
  /** Every header but X-Request-Id, the ETag and the body's length and encoding. */
  headers: Record<string, string>;
  current: StillCurrent[];
  repeat: (() => void)[];
  /** The data it was made from (kept alive with it). */
  data: object[];
  bytes: number;
}

/**
 * At most this much per worker (bodies and their compressed forms), least recently sent out first; the
 * data they were made from is remembered apart (public-cache.server.ts).
 */
const MAX_BYTES = 32 * 1024 * 1024;
/** Addresses per data: a query string makes another, and made-up ones must not push the real pages out. */
const ADDRESSES_PER_DATA = 4;
/** Below this a compressed body saves less than a TCP packet. */
const COMPRESS_MIN_BYTES = 1024;

const kept = new Map<string, Kept>();
const addressCount = new WeakMap<object, number>();
let bytes = 0;

function drop(doc: Kept) {
  if (kept.get(doc.address) !== doc) return;
  kept.delete(doc.address);
  bytes -= doc.bytes;
  const data = doc.data.at(-1)!;
  addressCount.set(data, (addressCount.get(data) ?? 1) - 1);
}

/**
 * Keeps the document rendered for `request` (a GET, status 200, every loader's data shared: isSharedPage)
 * to send again without Remix. `headers` are the response's (no Set-Cookie: nothing per reader);
 * `context` is the loaders', for what they do per reader (repeatForEachReader).
 */
export function keepDocument(
  request: Request,
  html: string,
  headers: Headers,
  loaderData: Record<string, unknown>,
  context: object,
): void {
  if (headers.has('set-cookie')) return;
  const data = Object.values(loaderData) as object[];
  // Counted under the page's own data (the root's is one object for every page).
  const page = data.at(-1)!;
  const address = addressOf(request);
  const old = kept.get(address);
  if (old) drop(old);
  if ((addressCount.get(page) ?? 0) >= ADDRESSES_PER_DATA) return;
  const body = utf8Bytes(html);
  const own: Record<string, string> = {};
  for (const [name, value] of headers) if (name !== 'x-request-id') own[name] = value;
  own.vary = own.vary ? `${own.vary}, Accept-Encoding` : 'Accept-Encoding';
  const doc: Kept = {
    address,
    body,
    encoded: {},
    tag: createHash('sha256').update(body).digest('base64url').slice(0, 27),
    headers: own,
    current: data.map((d) => shared.get(d)!).filter((c) => c !== ALWAYS),
    repeat: repeats.get(context) ?? [],
    data,
    bytes: body.length + 500,
  };
  kept.set(address, doc);
  unshared.delete(address);
  addressCount.set(page, (addressCount.get(page) ?? 0) + 1);
  bytes += doc.bytes;
  while (bytes > MAX_BYTES && kept.size) drop(kept.values().next().value!);
}

/** A request as server.ts has it: method, the URL Remix would be given, its headers. */
export interface DocumentAsked extends RequestAddress {
  method: string;
}

export interface DocumentAnswer {
  status: 200 | 304;
  headers: Record<string, string>;
  /** Null for a 304 and for HEAD. */
  body: Buffer | null;
}

function acceptedEncoding(accept: string | null): Encoding | null {
  if (!accept) return null;
  if (/\bbr\b/.test(accept)) return 'br';
  return /\bgzip\b/.test(accept) ? 'gzip' : null;
}

/** Compresses `doc` for `encoding` in the background (libuv's pool): this response goes out as it is. */
function compress(doc: Kept, encoding: Encoding) {
  doc.encoded[encoding] = 'pending';
  const done = (error: Error | null, out: Buffer) => {
    if (error || kept.get(doc.address) !== doc) return;
    doc.encoded[encoding] = out;
    doc.bytes += out.length;
    bytes += out.length;
  };
  if (encoding === 'gzip') gzip(doc.body, { level: 9 }, done);
  else
    brotliCompress(
      doc.body,
      {
        params: {
          [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
          [zlibConstants.BROTLI_PARAM_QUALITY]: 9,
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: doc.body.length,
        },
      },
      done,
    );
}

/** The ETag of the request's If-None-Match that names this document in any encoding, or null. */
function matchingTag(doc: Kept, ifNoneMatch: string | null): string | null {
  if (!ifNoneMatch) return null;
  for (const raw of ifNoneMatch.split(',')) {
    const tag = raw.trim().replace(/^W\//, '');
    if (tag === '*' || tag === `"${doc.tag}"` || tag === `"${doc.tag}-gzip"` || tag === `"${doc.tag}-br"`)
      return tag === '*' ? `"${doc.tag}"` : tag;
  }
  return null;
}

/** This request renders its address through Remix: call `finished` once Remix has answered it. */
export interface DocumentRendering {
  finished(): void;
}

/**
 * Renders under way of an address a reader without a session asked for: the others asking for it
 * meanwhile wait for that one and get the kept copy, rather than render it again each (20 readers of a
 * page just changed, or just kept nowhere yet).
 */
const rendering = new Map<string, Promise<void>>();
/** Addresses whose last render was not kept (not the same for every reader): nobody waits for those. */
const unshared = new Set<string>();
const UNSHARED_MAX = 10_000;

function leadRendering(address: string): DocumentRendering {
  let done!: () => void;
  rendering.set(address, new Promise<void>((resolve) => (done = resolve)));
  return {
    finished() {
      rendering.delete(address);
      if (!kept.has(address)) {
        if (unshared.size >= UNSHARED_MAX) unshared.clear();
        unshared.add(address);
      }
      done();
    },
  };
}

/**
 * The kept document for this GET or HEAD of a reader without a session, when its data is still current;
 * otherwise null, or the rendering this request leads (Remix answers, and may keep it again). A GET is
 * counted as the loaders would have.
 */
export async function keptDocument(asked: DocumentAsked): Promise<DocumentAnswer | DocumentRendering | null> {
  if (asked.method !== 'GET' && asked.method !== 'HEAD') return null;
  if (authCookiesIn(asked.headers.get('cookie') ?? '') !== '') return null;
  const address = addressOf(asked);
  let doc = kept.get(address);
  if (!doc) {
    const pending = rendering.get(address);
    // A HEAD is never kept: it leads nothing.
    if (!pending) return asked.method === 'GET' && !unshared.has(address) ? leadRendering(address) : null;
    await pending;
    doc = kept.get(address);
    if (!doc) return null;
  }
  for (const current of doc.current) {
    const now = current();
    if (now === false || (now !== true && !(await now))) {
      drop(doc);
      return keptDocument(asked); // rendered again: by this request, or by the one already doing it
    }
  }
  if (kept.get(address) !== doc) return null; // replaced while a check was waited for
  kept.delete(doc.address);
  kept.set(doc.address, doc);
  if (asked.method === 'GET') for (const effect of doc.repeat) effect();
  const headers: Record<string, string> = {
    ...doc.headers,
    'x-request-id': requestIdFrom(asked.headers.get('x-request-id')),
  };
  const known = matchingTag(doc, asked.headers.get('if-none-match'));
  if (known) {
    headers.etag = known;
    return { status: 304, headers, body: null };
  }
  let body = doc.body;
  const encoding =
    doc.body.length >= COMPRESS_MIN_BYTES ? acceptedEncoding(asked.headers.get('accept-encoding')) : null;
  const encoded = encoding && doc.encoded[encoding];
  if (encoding && encoded === undefined) compress(doc, encoding);
  if (encoding && encoded instanceof Buffer) {
    body = encoded;
    headers['content-encoding'] = encoding;
    headers.etag = `"${doc.tag}-${encoding}"`;
  } else headers.etag = `"${doc.tag}"`;
  headers['content-length'] = String(body.length);
  return { status: 200, headers, body: asked.method === 'HEAD' ? null : body };
}
