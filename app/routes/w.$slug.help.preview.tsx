// POST /w/:slug/help/preview (docs/product.md#the-help-center-for-the-team): an article's Markdown as the help center
// will show it, rendered and sanitised on the server, for the editor's live preview. Members only; JSON.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { ARTICLE_BODY_MAX_LENGTH } from '~/lib/help/limits.ts';
import { renderArticleBody } from '~/lib/help/help.server.ts';
import { requireMembership } from '~/lib/helpdesk/workspace-access.server.ts';
import { errorResponse, jsonResponse, readFormData, requireSameOrigin } from '~/lib/http/responses.server.ts';

export function loader({ request }: LoaderFunctionArgs) {
  throw errorResponse(request, 'not_found');
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  await requireMembership(request, supabase, user.id, params.slug ?? '');
  const body = (await readFormData(request)).get('body');
  if (typeof body !== 'string' || body.length > ARTICLE_BODY_MAX_LENGTH) throw errorResponse(request, 'bad_request');
  return jsonResponse(request, { html: renderArticleBody(body) }, { headers: { 'Cache-Control': 'no-store' } });
}
