// The help center's public pages (docs/product.md#the-help-center-public): their header with the search box, text with
// its matches marked, and a search result. Server-rendered; these pages load no React in the browser
// (an island page with the small script of app/islands/help.ts), so everything here is plain HTML.
import type { ReactNode } from 'react';
import { articlePath, helpPath, type HelpSearchResult, newRequestPath, snippetParts } from '~/lib/help/articles.ts';
import { HELP_SEARCH_MAX_LENGTH } from '~/lib/help/limits.ts';

/** A text whose matches are marked (help_search's title_marked and snippet) with <mark>. */
export function Marked({ text }: { text: string }) {
  return (
    <>
      {snippetParts(text).map((part, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one string, in order
        part.marked ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>,
      )}
    </>
  );
}

/** The search box of every help page: a GET form, so it works without JavaScript. */
export function HelpSearchForm({ slug, query = '', id = 'help-q' }: { slug: string; query?: string; id?: string }) {
  return (
    <form method="get" action={`${helpPath(slug)}/search`} className="help-search">
      <label htmlFor={id} className="visually-hidden">
        Search the help center
      </label>
      <input
        id={id}
        name="q"
        type="search"
        className="input"
        defaultValue={query}
        placeholder="Search the help center"
        maxLength={HELP_SEARCH_MAX_LENGTH}
        autoComplete="off"
        enterKeyHint="search"
      />
      <button type="submit" className="button">
        Search
      </button>
    </form>
  );
}

/** The top of a help page: the workspace's help center, where the page is, and the search box. */
export function HelpHeader({
  slug,
  workspaceName,
  trail = [],
  query,
}: {
  slug: string;
  workspaceName: string;
  trail?: { label: string; href: string }[];
  query?: string;
}) {
  return (
    <div className="help-header">
      <nav aria-label="Breadcrumb" className="help-trail">
        <ol>
          <li>
            <a href={`/support/${slug}`}>{workspaceName}</a>
          </li>
          <li>
            <a href={helpPath(slug)}>Help center</a>
          </li>
          {trail.map((t) => (
            <li key={t.href}>
              <a href={t.href}>{t.label}</a>
            </li>
          ))}
        </ol>
      </nav>
      <HelpSearchForm slug={slug} query={query} />
    </div>
  );
}

export function SearchResultItem({
  slug,
  result,
  extra,
}: {
  slug: string;
  result: HelpSearchResult;
  extra?: ReactNode;
}) {
  return (
    <li className="help-result">
      <a href={articlePath(slug, result)} className="help-result__title">
        <Marked text={result.title_marked} />
      </a>
      {extra}
      {result.snippet ? (
        <p className="help-result__snippet">
          <Marked text={result.snippet} />
        </p>
      ) : null}
    </li>
  );
}

/** "Still need help?" at the foot of the help pages. */
export function StillNeedHelp({ slug, subject }: { slug: string; subject?: string }) {
  return (
    <aside className="card help-cta" aria-labelledby="still-need-help">
      <h2 id="still-need-help">Still need help?</h2>
      <p>
        <a className="button" href={newRequestPath(slug, subject)}>
          Submit a request
        </a>
      </p>
    </aside>
  );
}
