// The workspace's tags as JSON ({ tags: [{ name, colour }] }), for the ticket page's tag field, which
// asks once, on its first focus (the page itself carries only the ticket's own tags). Members only:
// anyone else gets 404, as for the workspace.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { parseSlug, throwNotFound } from '~/lib/helpdesk/workspace-access.server.ts';
import { jsonResponse } from '~/lib/http/responses.server.ts';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  const slug = parseSlug(request, params.slug);
  const { data, error } = await supabase.rpc('workspace_tags', { p_slug: slug }, { get: true });
  if (error) {
    if (mapDbError(error, 'tags').code === 'not_found') await throwNotFound(request, supabase, slug);
    throwDbError(request, error, 'tags');
  }
  const tags = (data as { name: string; colour: string }[]).map(({ name, colour }) => ({ name, colour }));
  return jsonResponse(request, { tags }, { headers: { 'Cache-Control': 'private, no-store' } });
}
