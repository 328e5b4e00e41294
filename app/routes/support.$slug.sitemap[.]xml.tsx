// A workspace's sitemap (docs/product.md#the-help-center-public): its help center, the collections with a published
// article, and every published article with its last update. /robots.txt lists it.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { articlePath, collectionPath, helpPath } from '~/lib/help/articles.ts';
import { absoluteUrl, helpCall, readerClient } from '~/lib/help/help.server.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { responseHeaders } from '~/lib/http/responses.server.ts';

interface Sitemap {
  collections: { slug: string }[];
  articles: { id: number; slug: string; updated_at: string }[];
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function loader({ request, params }: LoaderFunctionArgs) {
  const slug = parseSlug(request, params.slug);
  const client = readerClient(request);
  const map = await helpCall<Sitemap>(request, client, slug, client.rpc('help_sitemap', { p_slug: slug }), 'sitemap');
  const url = (path: string, lastmod?: string) =>
    `<url><loc>${xml(absoluteUrl(request, path))}</loc>${lastmod ? `<lastmod>${lastmod.slice(0, 10)}</lastmod>` : ''}</url>`;
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    url(helpPath(slug)),
    ...map.collections.map((c) => url(collectionPath(slug, c))),
    ...map.articles.map((a) => url(articlePath(slug, a), a.updated_at)),
    '</urlset>',
  ].join('\n');
  return new Response(body, {
    headers: responseHeaders(request, {
      'Content-Type': 'application/xml; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    }),
  });
}
