// Search the help center (docs/product.md#the-help-center-public): results with the matches marked in the title and a
// snippet, "Showing results for …" after a correction, and when nothing is found, "Submit a request"
// with the query as its subject (the query is recorded for the reports' "searches with no result").
// A GET form: works without JavaScript. An island page.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { HelpHeader, SearchResultItem, StillNeedHelp } from '~/components/help-ui.tsx';
import type { IslandHandle } from '~/components/island.tsx';
import { HELP_SEARCH_RESULTS } from '~/lib/help/limits.ts';
import { helpSearchPath, newRequestPath } from '~/lib/help/articles.ts';
import {
  helpCenter,
  pageData,
  readerClient,
  recordSearchMiss,
  searchHelp,
  searchQuery,
} from '~/lib/help/help.server.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession } from '~/lib/http/responses.server.ts';
import helpStyles from '~/styles/help.css';

export const handle: IslandHandle = { island: 'help' };
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: helpStyles }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data?.query ? `“${data.query}” · Help center search` : 'Search · Help center' },
  { name: 'description', content: 'Search the help center’s articles.' },
  // Result pages are for people; the articles are what search engines should list.
  { name: 'robots', content: 'noindex, follow' },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const slug = parseSlug(request, params.slug);
  const query = searchQuery(new URL(request.url));
  if (!query) {
    const center = await helpCenter(request, slug);
    const empty = () => ({ workspace: center.workspace, query, results: [], corrected: null });
    return dataWithSession(request, pageData(request, center, 'search', empty));
  }
  const found = await searchHelp(request, readerClient(request), slug, query, { limit: HELP_SEARCH_RESULTS });
  if (!found.results.length) await recordSearchMiss(request, slug, query);
  return dataWithSession(
    request,
    pageData(request, found, query.trim(), () => ({ ...found, query: query.trim() })),
  );
}

export default function HelpSearchPage() {
  const { workspace, query, results, corrected } = useLoaderData<typeof loader>();
  return (
    <div className="help stack-lg">
      <HelpHeader slug={workspace.slug} workspaceName={workspace.name} query={query} />
      <section className="card stack" aria-labelledby="search-title">
        <h1 id="search-title">{query ? `Results for “${query}”` : 'Search the help center'}</h1>
        {corrected ? (
          <p data-testid="corrected">
            Showing results for <a href={helpSearchPath(workspace.slug, corrected)}>{corrected}</a>.
          </p>
        ) : null}
        {!query ? (
          <p>Type a few words about your question.</p>
        ) : results.length ? (
          <ol className="help-results" data-testid="help-results">
            {results.map((r) => (
              <SearchResultItem key={r.id} slug={workspace.slug} result={r} />
            ))}
          </ol>
        ) : (
          <div className="stack" data-testid="no-results">
            <p>No articles match “{query}”.</p>
            <p>
              <a className="button" href={newRequestPath(workspace.slug, query)}>
                Submit a request
              </a>{' '}
              and we'll answer you.
            </p>
          </div>
        )}
      </section>
      {results.length ? <StillNeedHelp slug={workspace.slug} subject={query} /> : null}
    </div>
  );
}
