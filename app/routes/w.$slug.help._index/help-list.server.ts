// The team's help center page's loader and action (route.tsx): the articles with their figures, filtered
// and in pages, and the collections; admins add, rename (`?rename=<id>`: the old address redirects) and
// delete collections.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { CollectionSchema } from '~/lib/forms/help-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import type { HelpArticleStatus } from '~/lib/help/articles.ts';
import { HELP_LIST_PAGE_SIZE } from '~/lib/help/limits.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { requireAdmin, requireMembership } from '~/lib/helpdesk/workspace-access.server.ts';
import {
  dataWithSession,
  errorResponse,
  readFormData,
  redirectWithSession,
  requireSameOrigin,
} from '~/lib/http/responses.server.ts';

const NOTICES: Record<string, string> = {
  deleted: 'Article deleted.',
  collection_added: 'Collection added.',
  collection_deleted: 'Collection deleted. Its articles are kept, without a collection.',
  collection_renamed: 'Collection renamed. Links to its old address lead to the new one.',
};

interface ListedArticle {
  id: number;
  title: string;
  slug: string;
  status: HelpArticleStatus;
  updated_at: string;
  collection: string | null;
  views: number;
  helpful: number;
  votes: number;
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { workspace, role } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const url = new URL(request.url);
  const statusParam = url.searchParams.get('status');
  const status = statusParam === 'draft' || statusParam === 'published' ? statusParam : null;
  const collectionParam = url.searchParams.get('collection') ?? '';
  const collection = collectionParam === 'none' || UUID_RE.test(collectionParam) ? collectionParam : null;
  const page = Math.min(Math.max(Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1, 1), 10_000);
  const [list, collections, zoneOf] = await Promise.all([
    supabase.rpc('help_article_list', {
      p_slug: workspace.slug,
      ...(status ? { p_status: status } : {}),
      ...(collection ? { p_collection: collection } : {}),
      p_offset: (page - 1) * HELP_LIST_PAGE_SIZE,
      p_limit: HELP_LIST_PAGE_SIZE,
    }),
    supabase
      .from('help_collections')
      .select('id, title, description, slug, position')
      .eq('workspace_id', workspace.id)
      .order('position')
      .order('title'),
    viewerZones({ request, context }, supabase),
  ]);
  if (list.error) throwDbError(request, list.error, 'help list');
  if (collections.error) throwDbError(request, collections.error, 'help collections');
  const { total, articles } = list.data as unknown as { total: number; articles: ListedArticle[] };
  const zone = zoneOf(workspace.time_zone);
  return dataWithSession(request, {
    adminOf: role === 'admin' ? workspace.slug : null,
    workspace,
    isAdmin: role === 'admin',
    // The last edit in my time zone (docs/product.md §2).
    articles: articles.map((a) => ({ ...a, updated: formatDateIn(a.updated_at, zone) })),
    total,
    page,
    status,
    collection,
    collections: collections.data,
    // The collection being renamed (admins), its form open in the list.
    renaming:
      role === 'admin' ? (collections.data.find((c) => c.id === url.searchParams.get('rename'))?.id ?? null) : null,
    notice: NOTICES[url.searchParams.get('done') ?? ''] ?? null,
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const form = await readFormData(request);
  const base = `/w/${workspace.slug}/help`;
  if (form.get('intent') === 'delete_collection') {
    const id = String(form.get('collection_id') ?? '');
    if (!UUID_RE.test(id)) throw errorResponse(request, 'bad_request');
    const { error } = await supabase.from('help_collections').delete().eq('id', id).eq('workspace_id', workspace.id);
    if (error) throwDbError(request, error, 'help collection delete');
    return redirectWithSession(request, `${base}?done=collection_deleted`, { status: 303 });
  }
  const intent = form.get('intent');
  if (intent !== 'add_collection' && intent !== 'rename_collection') throw errorResponse(request, 'bad_request');
  const id = String(form.get('collection_id') ?? '');
  if (intent === 'rename_collection' && !UUID_RE.test(id)) throw errorResponse(request, 'bad_request');
  const submission = parseSubmission(form, CollectionSchema);
  // Which form the errors belong to: the new collection's, or the one being renamed.
  const at = intent === 'add_collection' ? null : id;
  if (submission.status !== 'success')
    return dataWithSession(request, { result: submission.reply(), at }, { status: 400 });
  // A new title gives a new slug; the database keeps the old one, which redirects (help_remember_collection_slug).
  const { data, error } =
    intent === 'add_collection'
      ? await supabase
          .from('help_collections')
          .insert({ workspace_id: workspace.id, ...submission.value })
          .select('id')
      : await supabase
          .from('help_collections')
          .update(submission.value)
          .eq('id', id)
          .eq('workspace_id', workspace.id)
          .select('id');
  if (error) {
    const mapped = mapDbError(error, 'help collection save');
    const code = error.code === '23505' ? 'collection_taken' : null;
    const message = code ? errorMessage(code) : mapped.message;
    return dataWithSession(
      request,
      {
        result: submission.reply({ fieldErrors: code ? { title: [message] } : {}, formErrors: code ? [] : [message] }),
        at,
      },
      { status: code ? errorStatus(code) : mapped.status },
    );
  }
  if (!data.length) throw errorResponse(request, 'not_found');
  const done = intent === 'add_collection' ? 'collection_added' : 'collection_renamed';
  return redirectWithSession(request, `${base}?done=${done}`, { status: 303 });
}
