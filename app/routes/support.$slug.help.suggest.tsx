// GET /support/:slug/help/suggest?q=… (docs/product.md#the-help-center-public): JSON, up to 3 published articles for
// the subject a customer is typing on /support/:slug/new, each with its address (which records the click
// when opened). Nothing is recorded by asking. Public, like the articles.
import type { LoaderFunctionArgs } from '@remix-run/node';
import type { SuggestedArticle } from '~/lib/help/articles.ts';
import { searchQuery, suggest } from '~/lib/help/help.server.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { jsonResponse } from '~/lib/http/responses.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const slug = parseSlug(request, params.slug);
  const query = searchQuery(new URL(request.url));
  const suggestions: SuggestedArticle[] = query.trim().length < 3 ? [] : await suggest(request, slug, query);
  return jsonResponse(request, { suggestions }, { headers: { 'Cache-Control': 'public, max-age=60' } });
}
