// /robots.txt (docs/product.md#the-help-center-public): crawlers may read the portals and help centers, not the agents'
// pages, sign-in or a customer's requests; the sitemaps of the workspaces that publish articles.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { absoluteUrl, ROBOTS_RULES } from '~/lib/help/help.server.ts';
import { log } from '~/lib/http/log.server.ts';
import { responseHeaders } from '~/lib/http/responses.server.ts';
import { anonClient } from '~/lib/supabase/client.server.ts';

export async function loader({ request }: LoaderFunctionArgs) {
  const { data, error } = await anonClient().rpc('help_sitemap_workspaces');
  // Without the list the rules still hold; the sitemaps come back with the database.
  if (error) log.warn('robots.txt: no sitemaps', { message: error.message });
  const sitemaps = (data ?? []).map((slug) => `Sitemap: ${absoluteUrl(request, `/support/${slug}/sitemap.xml`)}`);
  return new Response(`${[...ROBOTS_RULES, '', ...sitemaps].join('\n')}\n`, {
    headers: responseHeaders(request, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    }),
  });
}
