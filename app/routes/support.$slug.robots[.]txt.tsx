// A workspace's own robots.txt (docs/product.md#the-help-center-public), for when its portal is served at a host of its
// own: the same rules as /robots.txt, and its sitemap. Crawlers read the host's /robots.txt only.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { absoluteUrl, ROBOTS_RULES } from '~/lib/help/help.server.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { responseHeaders } from '~/lib/http/responses.server.ts';

export function loader({ request, params }: LoaderFunctionArgs) {
  const slug = parseSlug(request, params.slug);
  const body = [...ROBOTS_RULES, '', `Sitemap: ${absoluteUrl(request, `/support/${slug}/sitemap.xml`)}`].join('\n');
  return new Response(`${body}\n`, {
    headers: responseHeaders(request, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    }),
  });
}
