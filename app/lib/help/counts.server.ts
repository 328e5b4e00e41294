// What signed-out readers of the help center are counted for — article views and searches with no
// result — added up per worker and sent to the database together once a second (count_help_views,
// record_help_search_misses; the service role only), instead of a write per page view
// (docs/decisions/065-help-center-speed.md). A worker that dies loses at most its last second of
// counts, as a crash lost views committed without waiting for the disk before. Without the secret key
// (another project that didn't set it) each one is recorded at once as anon, as before.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { env } from '../env.server.ts';
import { log } from '../http/log.server.ts';
import type { Database } from '../supabase/database.types.ts';
import { anonClient } from '../supabase/client.server.ts';

const FLUSH_MS = 1_000;

const views = new Map<number, number>();
const misses = new Map<string, Map<string, number>>();
let timer: NodeJS.Timeout | null = null;
let system: SupabaseClient<Database> | null | undefined;

function systemClient(): SupabaseClient<Database> | null {
  system ??= env.signInKey
    ? createClient<Database>(env.SUPABASE_URL, env.signInKey, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        db: { retry: false },
        global: { fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(10_000) }) },
      })
    : null;
  return system;
}

function later() {
  timer ??= setTimeout(() => void flushHelpCounts(), FLUSH_MS);
  // A worker shutting down doesn't wait for it.
  timer.unref();
}

/** Sends what was counted since the last time. */
export async function flushHelpCounts(): Promise<void> {
  timer = null;
  const client = systemClient();
  if (!client) return;
  const counted = [...views];
  views.clear();
  const missed = [...misses].map(([slug, queries]) => [slug, [...queries]] as const);
  misses.clear();
  const calls: PromiseLike<{ error: { message: string } | null }>[] = [];
  if (counted.length)
    calls.push(
      client.rpc('count_help_views', { p_article_ids: counted.map(([id]) => id), p_views: counted.map(([, n]) => n) }),
    );
  for (const [slug, queries] of missed)
    calls.push(
      client.rpc('record_help_search_misses', {
        p_slug: slug,
        p_queries: queries.map(([q]) => q),
        p_searches: queries.map(([, n]) => n),
      }),
    );
  for (const { error } of await Promise.all(calls))
    if (error) log.warn('help: views or searches with no result not recorded', { message: error.message });
}

/** A signed-out reader read a published article. */
export function countHelpView(articleId: number): void {
  if (!systemClient()) {
    void anonClient()
      .rpc('count_help_view', { p_article_id: articleId })
      .then(({ error }) => error && log.warn('help: view not counted', { message: error.message }));
    return;
  }
  views.set(articleId, (views.get(articleId) ?? 0) + 1);
  later();
}

/** A signed-out reader's search found nothing. */
export function countHelpSearchMiss(slug: string, query: string): void {
  if (!systemClient()) {
    void anonClient()
      .rpc('record_help_search_miss', { p_slug: slug, p_query: query })
      .then(({ error }) => error && log.warn('help: search miss not recorded', { message: error.message }));
    return;
  }
  const queries = misses.get(slug) ?? new Map<string, number>();
  misses.set(slug, queries);
  queries.set(query, (queries.get(query) ?? 0) + 1);
  later();
}
