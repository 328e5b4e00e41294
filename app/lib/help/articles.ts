// The help center's addresses and shapes, for the server and the browser alike
// (docs/product.md#the-help-center-public).

/** The help center's home. */
export const helpPath = (slug: string) => `/support/${slug}/help`;

/** An article's address: its id finds it; the slug (from the title) is for people and search engines. */
export const articlePath = (slug: string, article: { id: number; slug: string }) =>
  `/support/${slug}/help/articles/${article.id}${article.slug ? `-${article.slug}` : ''}`;

export const collectionPath = (slug: string, collection: { slug: string }) =>
  `/support/${slug}/help/${collection.slug}`;

export const helpSearchPath = (slug: string, query: string) =>
  `/support/${slug}/help/search?q=${encodeURIComponent(query)}`;

/** A new request with its subject filled in (the search's "Submit a request"). */
export const newRequestPath = (slug: string, subject?: string) =>
  `/support/${slug}/new${subject ? `?subject=${encodeURIComponent(subject)}` : ''}`;

/** An article suggested while a customer writes a request; `href` records the click when opened. */
export type SuggestedArticle = { id: number; title: string; href: string; snippet: string };

/** Where a suggestion shown while writing a request leads: the article, which records the click. */
export const SUGGESTED_PARAM = 'suggested';

/** The id and slug of `/articles/<id>-<slug>`; null when it isn't one. */
export function parseArticleParam(raw: string | undefined): { id: number; slug: string } | null {
  const m = /^([1-9][0-9]{0,14})(?:-([a-z0-9-]*))?$/.exec(raw ?? '');
  return m ? { id: Number(m[1]), slug: m[2] ?? '' } : null;
}

export type HelpArticleStatus = 'draft' | 'published';

/** One search result: the title and a snippet, each with its matches marked (see snippetParts). */
export interface HelpSearchResult {
  id: number;
  title: string;
  slug: string;
  status: HelpArticleStatus;
  title_marked: string;
  snippet: string;
}

export interface HelpSearch {
  results: HelpSearchResult[];
  /** The corrected query that was searched instead ("Showing results for …"), or null. */
  corrected: string | null;
}

// help_search marks matches between U+E000 and U+E001 (private-use characters, which the app never
// writes): the page escapes the text as any text and wraps the marked parts in <mark>.
const MARK_START = '\uE000';
const MARK_END = '\uE001';

/** A marked text as parts, `marked` for the matches. */
export function snippetParts(text: string): { text: string; marked: boolean }[] {
  const parts: { text: string; marked: boolean }[] = [];
  for (const [i, chunk] of text.split(MARK_START).entries()) {
    const [inside, after] = i === 0 ? [null, chunk] : splitOnce(chunk, MARK_END);
    if (inside) parts.push({ text: inside, marked: true });
    if (after) parts.push({ text: after, marked: false });
  }
  return parts;
}

function splitOnce(s: string, sep: string): [string, string] {
  const at = s.indexOf(sep);
  return at < 0 ? [s, ''] : [s.slice(0, at), s.slice(at + sep.length)];
}

/** The text without its marks (a snippet as plain text). */
export const unmarked = (text: string) => text.replaceAll(MARK_START, '').replaceAll(MARK_END, '');

/** "Helpful" as people read it: 3 of 4 → "75 %", nothing yet → "—". */
export function helpfulPercent(helpful: number, votes: number): string {
  return votes > 0 ? `${Math.round((helpful / votes) * 100)} %` : '—';
}

/** A public help page's meta tags: title, description, canonical address and Open Graph. */
export function helpMeta(page: {
  title: string;
  ogTitle?: string;
  description: string;
  canonical: string;
  siteName: string;
  type?: 'website' | 'article';
}) {
  return [
    { title: page.title },
    { name: 'description', content: page.description },
    { tagName: 'link', rel: 'canonical', href: page.canonical },
    { property: 'og:type', content: page.type ?? 'website' },
    { property: 'og:title', content: page.ogTitle ?? page.title },
    { property: 'og:description', content: page.description },
    { property: 'og:url', content: page.canonical },
    { property: 'og:site_name', content: page.siteName },
  ];
}
