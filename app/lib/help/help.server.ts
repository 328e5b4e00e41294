// The help center's server side (docs/product.md#the-help-center-public, docs/decisions/041-help-center.md): the public
// pages' data through the security invoker functions of supabase/schemas/65_help_center.sql (a reader
// without a session shares one anon client, and what they get is remembered: docs/decisions/065-help-center-speed.md),
// rendering, the visitor cookie votes are counted by, and the per-IP limit on votes.
import { createCookie } from '@remix-run/node';
import { HELP_SEARCH_MAX_LENGTH, HELP_SUGGESTIONS, HELP_VOTES_PER_IP } from './limits.ts';
import { env } from '../env.server.ts';
import { type mapDbError, throwDbError } from '../errors/from-db.server.ts';
import { isHttps, clientIp, publicOrigin } from '../http/request-info.server.ts';
import { RateLimiter } from '../http/rate-limit.server.ts';
import { errorResponse, redirectWithSession } from '../http/responses.server.ts';
import { renderMarkdown, renderMarkdownCached } from '../markdown/render.server.ts';
import { anonClient, authCookies, getSupabase, type Supabase } from '../supabase/client.server.ts';
import { log } from '../http/log.server.ts';
import { countHelpSearchMiss, countHelpView } from './counts.server.ts';
import { rememberedForAnon } from './public-cache.server.ts';
import { sameForEveryone } from '../http/shared-documents.server.ts';
import { parseSlug, throwNotFound } from '../helpdesk/workspace-access.server.ts';
import {
  articlePath,
  type HelpArticleStatus,
  type HelpSearch,
  parseArticleParam,
  SUGGESTED_PARAM,
  type SuggestedArticle,
  unmarked,
} from './articles.ts';

/** Who reads: a reader with a session as themselves (members see drafts), anyone else as anon. */
export function readerClient(request: Request): Supabase {
  return authCookies(request) ? getSupabase(request).supabase : anonClient();
}

type PostgrestErrorLike = Parameters<typeof mapDbError>[0];

/**
 * A public help function's answer, or its error page: an unknown workspace goes through throwNotFound
 * (a renamed workspace's old address redirects to the new one), anything else through throwDbError.
 */
export async function helpCall<T>(
  request: Request,
  client: Supabase,
  slug: string,
  call: PromiseLike<{ data: unknown; error: PostgrestErrorLike | null }>,
  context: string,
): Promise<T> {
  const { data, error } = await call;
  if (error) {
    if (error.message === 'not_found' && error.details === 'workspace') return throwNotFound(request, client, slug);
    throwDbError(request, error, context);
  }
  return data as T;
}

/** Where article images live: the public URL prefix of the `help` bucket. */
export const HELP_BUCKET = 'help';
export const helpImagePrefix = () => `${env.SUPABASE_URL.replace(/\/$/, '')}/storage/v1/object/public/${HELP_BUCKET}/`;

/** Markdown of an article as safe HTML; images only from the help bucket. */
export const renderArticleBody = (markdown: string) => renderMarkdown(markdown, { imagePrefixes: [helpImagePrefix()] });

export interface HelpWorkspace {
  slug: string;
  name: string;
}

export interface HelpArticle {
  workspace: HelpWorkspace;
  id: number;
  title: string;
  slug: string;
  body: string;
  status: HelpArticleStatus;
  description: string;
  updated_at: string;
  published_at: string | null;
  collection: { id: string; title: string; slug: string } | null;
  siblings: { id: number; title: string; slug: string }[];
}

/**
 * An old address of an article or collection (a renamed title's slug) sent to the current one, the query
 * kept: 301, cached 5 minutes only, so renaming back is not trapped in browsers' caches.
 */
export function movedTo(request: Request, path: string): Response {
  return redirectWithSession(request, `${path}${new URL(request.url).search}`, {
    status: 301,
    headers: { 'Cache-Control': 'public, max-age=300' },
  });
}

/** A reader without a session: what they get is everyone's without one, remembered (public-cache.server.ts). */
export const isAnonymous = (request: Request) => !authCookies(request);

/**
 * `load()` for this reader: remembered for one without a session until help center `slug` changes (or
 * `maxAgeMs` passes), asked each time for anyone else.
 */
export function readerCached<T>(
  request: Request,
  slug: string,
  key: string,
  load: () => Promise<T>,
  opts?: { maxAgeMs?: number },
): Promise<T> {
  return isAnonymous(request) ? rememberedForAnon(slug, key, load, opts) : load();
}

/**
 * A page's data made from `remembered` (what readerCached gave): for a reader without a session the same
 * object for every such reader with this `key`, so the document is rendered once (shared-documents.server.ts).
 */
export function pageData<T extends object>(request: Request, remembered: object, key: string, make: () => T): T {
  return isAnonymous(request) ? sameForEveryone(remembered, key, make) : make();
}

/**
 * The article of `/support/:slug/help/articles/:article` as this reader may see it, its body rendered
 * (remembered by id and last update) in place of its Markdown, or a thrown 404. A GET at another slug
 * than the article's is redirected to its address (movedTo). A view is counted with the page's call for
 * a reader with a session, and added up in the app for one without (counts.server.ts).
 */
export async function loadArticle(
  request: Request,
  params: { slug?: string; article?: string },
  opts: { countView: boolean },
) {
  const slug = parseSlug(request, params.slug);
  const parsed = parseArticleParam(params.article);
  if (!parsed) throw errorResponse(request, 'not_found');
  const anonymous = isAnonymous(request);
  const page = await readerCached(request, slug, `article:${parsed.id}`, async () => {
    const client = readerClient(request);
    const { body, ...article } = await helpCall<HelpArticle>(
      request,
      client,
      slug,
      client.rpc('help_article', { p_slug: slug, p_id: parsed.id, p_count_view: opts.countView && !anonymous }),
      'help article',
    );
    const html = renderMarkdownCached(`help:${article.id}:${article.updated_at}`, body, {
      imagePrefixes: [helpImagePrefix()],
    });
    return { article, html };
  });
  const { article, html } = page;
  if (anonymous && opts.countView && article.status === 'published') countHelpView(article.id);
  if (request.method === 'GET' && parsed.slug !== article.slug) throw movedTo(request, articlePath(slug, article));
  return { slug, article, html, page };
}

/** Search the help center: `publishedOnly` false lets members find their drafts too. */
export async function searchHelp(
  request: Request,
  client: Supabase,
  slug: string,
  query: string,
  opts: { limit: number; publishedOnly?: boolean },
): Promise<HelpSearch & { workspace: HelpWorkspace }> {
  const args = { p_slug: slug, p_query: query, p_limit: opts.limit, p_published_only: opts.publishedOnly ?? true };
  return readerCached(request, slug, `search:${opts.limit}:${args.p_published_only}:${query}`, () =>
    helpCall(request, client, slug, client.rpc('help_search', args), 'help search'),
  );
}

export interface HelpCenter {
  workspace: HelpWorkspace;
  collections: { id: string; title: string; slug: string; description: string; articles: number }[];
  popular: { id: number; title: string; slug: string }[];
  published: number;
}

/** How old the popular articles (from views, which change no version) may be for a reader without a session. */
const POPULAR_MAX_AGE_MS = 60_000;

/** The help center's home as this reader may see it (help_center), or its error page. */
export function helpCenter(request: Request, slug: string): Promise<HelpCenter> {
  return readerCached(
    request,
    slug,
    'home',
    () => {
      const client = readerClient(request);
      return helpCall<HelpCenter>(request, client, slug, client.rpc('help_center', { p_slug: slug }), 'help center');
    },
    { maxAgeMs: POPULAR_MAX_AGE_MS },
  );
}

/** A search that found nothing, for the reports: recorded now, or added up in the app for a reader without a session. */
export async function recordSearchMiss(request: Request, slug: string, query: string): Promise<void> {
  if (isAnonymous(request)) return countHelpSearchMiss(slug, query);
  const { error } = await readerClient(request).rpc('record_help_search_miss', { p_slug: slug, p_query: query });
  if (error) log.warn('help: search miss not recorded', { message: error.message });
}

/**
 * A search box's text: control characters as spaces, at most HELP_SEARCH_MAX_LENGTH, trimmed at the
 * start only (a space after the last word says it is finished: help_search takes it whole, not as a
 * prefix); '' when there are no words.
 */
export function searchQuery(url: URL): string {
  const query = (url.searchParams.get('q') ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .trimStart()
    .slice(0, HELP_SEARCH_MAX_LENGTH);
  return query.trim() ? query : '';
}

/** The page's absolute address, for canonical links, Open Graph and the sitemap. */
export const absoluteUrl = (request: Request, path: string) => `${publicOrigin(request)}${path}`;

// Votes: one per visitor per article (the database keeps it so); the visitor is the signed-in user or
// the random id this cookie holds, signed so nobody picks someone else's. A year, set only on voting.
const visitorCookie = createCookie('tend_visitor', {
  httpOnly: true,
  sameSite: 'lax',
  path: '/',
  maxAge: 365 * 24 * 60 * 60,
  secrets: [env.SESSION_SECRET],
});

/** The visitor's id, and the Set-Cookie that gives them one when they had none. */
export async function visitorId(request: Request): Promise<{ id: string; setCookie: string | null }> {
  const value = await visitorCookie.parse(request.headers.get('Cookie'));
  if (typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value)) return { id: value, setCookie: null };
  const id = crypto.randomUUID();
  return { id, setCookie: await visitorCookie.serialize(id, { secure: isHttps(request) }) };
}

// Per worker process (server.ts runs one per core), as a first line; the database holds every
// article to 100 votes an hour whatever the caller (help_vote).
const votesPerIp = new RateLimiter(HELP_VOTES_PER_IP);

/** False when this client IP has voted too often lately (counts this vote otherwise). */
export function allowVote(request: Request): boolean {
  const ip = clientIp(request);
  return ip === null || votesPerIp.hit(ip);
}

/** What /robots.txt says to every crawler (the sitemaps follow). */
export const ROBOTS_RULES = [
  'User-agent: *',
  'Disallow: /w/',
  'Disallow: /login',
  'Disallow: /auth/',
  'Disallow: /account',
  'Disallow: /onboarding',
  'Disallow: /invite/',
  'Disallow: /support/*/new',
  'Disallow: /support/*/requests/',
  'Disallow: /support/*/help/search',
  'Allow: /support/',
];

/** Up to HELP_SUGGESTIONS published articles for the subject being typed. */
export async function suggest(request: Request, slug: string, query: string): Promise<SuggestedArticle[]> {
  // A subject as typed may hold what a search can't (a NUL can't even reach Postgres): spaces instead.
  query = query.replace(/[\u0000-\u001f\u007f]/g, ' ');
  if (!query.trim()) return [];
  const found = await searchHelp(request, readerClient(request), slug, query, { limit: HELP_SUGGESTIONS });
  return found.results.map((r) => ({
    id: r.id,
    title: r.title,
    href: `${articlePath(slug, r)}?${SUGGESTED_PARAM}=1`,
    snippet: unmarked(r.snippet),
  }));
}
