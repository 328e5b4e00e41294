// GET /w/:slug/help/lookup?q=… (docs/product.md#canned-replies-in-the-composer): JSON, up to 5 published articles for
// the composer's picker, each as the text it inserts into a reply — its title and public address. Members
// only (anyone else: 404); the picker asks as the agent types.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { articlePath } from '~/lib/help/articles.ts';
import { absoluteUrl, searchHelp, searchQuery } from '~/lib/help/help.server.ts';
import { requireMembership } from '~/lib/helpdesk/workspace-access.server.ts';
import { jsonResponse } from '~/lib/http/responses.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { workspace } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const query = searchQuery(new URL(request.url));
  const found =
    query.trim().length < 2
      ? { results: [] }
      : await searchHelp(request, supabase, workspace.slug, query, { limit: 5 });
  const articles = found.results.map((r) => ({
    title: r.title,
    text: `${r.title}: ${absoluteUrl(request, articlePath(workspace.slug, r))}`,
  }));
  return jsonResponse(request, { articles }, { headers: { 'Cache-Control': 'private, no-store' } });
}
