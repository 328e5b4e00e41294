// What signed-out readers of the help center get, remembered per worker process
// (docs/decisions/065-help-center-speed.md): an article page, the home, a collection, a search's results
// are the same for every reader without a session, so each is asked of the database once and then
// served from memory until its help center changes. Every help center remembered has a version
// (help_versions in supabase/schemas/65_help_center.sql, moved on by any change to what its public pages
// show); the versions are asked for at most CHECK_MS apart, and a request waits for that check when the
// last one started longer ago — so a reader sees an edit at most CHECK_MS after it was committed.
import { anonClient } from '../supabase/client.server.ts';
import { log } from '../http/log.server.ts';

/** How stale a signed-out reader's page may be after an edit. */
export const CHECK_MS = 1_000;
/**
 * The most a worker keeps (an estimate of the strings' sizes); the documents rendered from it
 * (shared-documents.server.ts) go with it and add about as much again.
 */
const MAX_BYTES = 32 * 1024 * 1024;

interface Entry {
  value: unknown;
  at: number;
  bytes: number;
  maxAgeMs?: number;
}

interface HelpCenterCache {
  /** help_versions' number when this was made: anything remembered below is at least that recent. */
  version: number;
  entries: Map<string, Entry>;
}

const centers = new Map<string, HelpCenterCache>();
/** Every entry of every help center, least recently used first (its key: slug + NUL + key). */
const lru = new Map<string, HelpCenterCache>();
let bytes = 0;
let checkStarted = 0;
let checking: Promise<void> | null = null;
const opening = new Map<string, Promise<HelpCenterCache | null>>();
/** Where each remembered object is kept: to tell, without loading, whether it is still what a load would give. */
const places = new WeakMap<object, { slug: string; key: string }>();

async function versions(slugs: string[]): Promise<Record<string, number>> {
  const { data, error } = await anonClient().rpc('help_versions', { p_slugs: slugs });
  if (error) throw new Error(error.message);
  return (data ?? {}) as Record<string, number>;
}

function forget(slug: string) {
  const center = centers.get(slug);
  if (!center) return;
  centers.delete(slug);
  for (const [key, entry] of center.entries) {
    bytes -= entry.bytes;
    lru.delete(`${slug}\0${key}`);
  }
}

/** Forgets every help center whose version moved on (or that is no workspace's any more). */
async function check(): Promise<void> {
  checkStarted = Date.now();
  const slugs = [...centers.keys()];
  if (!slugs.length) return;
  try {
    const now = await versions(slugs);
    for (const slug of slugs) if (centers.get(slug)?.version !== now[slug]) forget(slug);
  } catch (error) {
    // Not known to be current: nothing remembered is served.
    for (const slug of slugs) forget(slug);
    log.warn('help: versions not read; the remembered pages are dropped', { message: String(error) });
  }
}

/** Waits for a check of the versions if the last one started more than CHECK_MS ago. */
function fresh(): Promise<void> | undefined {
  if (Date.now() - checkStarted < CHECK_MS) return checking ?? undefined;
  checking ??= check().finally(() => {
    checking = null;
  });
  return checking;
}

/** The help center's cache, its version read before anything of it is (so nothing older gets in). */
function open(slug: string): Promise<HelpCenterCache | null> {
  const known = centers.get(slug);
  if (known) return Promise.resolve(known);
  let pending = opening.get(slug);
  if (!pending) {
    pending = versions([slug])
      .then((now) => {
        if (now[slug] === undefined) return null; // no such workspace: the page's call says so
        const center = centers.get(slug) ?? { version: now[slug], entries: new Map() };
        centers.set(slug, center);
        return center;
      })
      .catch(() => null)
      .finally(() => opening.delete(slug));
    opening.set(slug, pending);
  }
  return pending;
}

const sizeOf = (value: unknown) => JSON.stringify(value)?.length ?? 0;

const young = (entry: Entry, maxAgeMs: number | undefined) =>
  maxAgeMs === undefined || Date.now() - entry.at < maxAgeMs;

/** Whether `value` (an object rememberedForAnon gave) is still remembered: a load now would give it again. */
function isRemembered(value: object): boolean {
  const place = places.get(value);
  const center = place && centers.get(place.slug);
  const entry = center?.entries.get(place!.key);
  if (entry?.value !== value || !young(entry, entry.maxAgeMs)) return false;
  const id = `${place!.slug}\0${place!.key}`;
  lru.delete(id);
  lru.set(id, center!);
  return true;
}

/**
 * Whether `value` is still what rememberedForAnon would give, after the same check of the versions
 * (a document made from it is sent again without loading: shared-documents.server.ts).
 */
export function stillRemembered(value: object): boolean | Promise<boolean> {
  const check = fresh();
  return check ? check.then(() => isRemembered(value)) : isRemembered(value);
}

/**
 * `load()`'s answer for a signed-out reader of help center `slug`, remembered under `key` until the
 * help center changes (or `maxAgeMs` passes: what views decide, such as the popular articles). An
 * error thrown by `load` is not remembered.
 */
export async function rememberedForAnon<T>(
  slug: string,
  key: string,
  load: () => Promise<T>,
  opts: { maxAgeMs?: number } = {},
): Promise<T> {
  await fresh();
  const center = await open(slug);
  if (!center) return load();
  const hit = center.entries.get(key);
  const id = `${slug}\0${key}`;
  if (hit && young(hit, opts.maxAgeMs)) {
    lru.delete(id);
    lru.set(id, center);
    return hit.value as T;
  }
  const value = await load();
  // A check that found a change while this loaded forgot `center`: what was loaded may predate it.
  if (centers.get(slug) !== center) return value;
  const old = center.entries.get(key);
  if (old) bytes -= old.bytes;
  const entry = { value, at: Date.now(), bytes: 2 * sizeOf(value) + 200, maxAgeMs: opts.maxAgeMs };
  center.entries.set(key, entry);
  if (typeof value === 'object' && value !== null) places.set(value, { slug, key });
  bytes += entry.bytes;
  lru.delete(id);
  lru.set(id, center);
  while (bytes > MAX_BYTES && lru.size) {
    const [oldest, owner] = lru.entries().next().value!;
    lru.delete(oldest);
    const at = oldest.indexOf('\0');
    const gone = owner.entries.get(oldest.slice(at + 1));
    if (gone) bytes -= gone.bytes;
    owner.entries.delete(oldest.slice(at + 1));
  }
  return value;
}
