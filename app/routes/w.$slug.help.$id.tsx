// An article in the editor (docs/product.md#the-help-center-for-the-team): edit, preview, save, publish or unpublish,
// insert an image; drafts save themselves with JavaScript; the other members who have it open are shown; admins
// may delete it. Members only (RLS); another workspace's article is not found.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useActionData, useLoaderData } from '@remix-run/react';
import { HelpEditor } from '~/components/help-editor.tsx';
import { LiveEditors } from '~/components/live/live-editors.tsx';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import { articlePath } from '~/lib/help/articles.ts';
import { editorAction, editorContext } from '~/lib/help/editor.server.ts';
import { dataWithSession, errorResponse, requireSameOrigin } from '~/lib/http/responses.server.ts';
import helpStyles from '~/styles/help.css';

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: helpStyles }];
export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.article.title} · Help center · Tend` : 'Article · Tend' },
  { name: 'description', content: 'Edit a help center article.' },
];

const NOTICES: Record<string, string> = {
  saved: 'Saved.',
  published: 'Published: the article is on the help center.',
  unpublished: 'Unpublished: only your team sees it now.',
};

function articleId(request: Request, raw: string | undefined): number {
  if (!/^[1-9][0-9]{0,14}$/.test(raw ?? '')) throw errorResponse(request, 'not_found');
  return Number(raw);
}

async function loadEditable(request: Request, params: { slug?: string; id?: string }) {
  const id = articleId(request, params.id);
  const context = await editorContext(request, params.slug);
  const { data: article, error } = await context.supabase
    .from('help_articles')
    .select('id, title, slug, body, status, collection_id, updated_at')
    .eq('id', id)
    .eq('workspace_id', context.workspace.id)
    .maybeSingle();
  if (error) throwDbError(request, error, 'help article');
  if (!article) throw errorResponse(request, 'not_found');
  return { ...context, article };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, workspace, role, collections, members, article } = await loadEditable(request, params);
  return dataWithSession(request, {
    adminOf: role === 'admin' ? workspace.slug : null,
    workspace,
    isAdmin: role === 'admin',
    collections,
    members,
    me: user.id,
    article,
    notice: NOTICES[new URL(request.url).searchParams.get('done') ?? ''] ?? null,
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase, workspace, article } = await loadEditable(request, params);
  return editorAction(request, supabase, { workspace, userId: user.id, article });
}

export default function EditArticle() {
  const { workspace, isAdmin, collections, members, me, article, notice } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <section className="stack-lg" aria-labelledby="editor-title">
      <div className="hd-page-head">
        <div>
          <p className="eyebrow">
            <Link to={`/w/${workspace.slug}/help`}>Help center</Link> ·{' '}
            {article.status === 'published' ? 'Published' : 'Draft'}
          </p>
          <h1 id="editor-title">{article.title}</h1>
        </div>
        <p>
          <a href={articlePath(workspace.slug, article)} className="button button--secondary">
            {article.status === 'published' ? 'View on the help center' : 'View as readers will'}
          </a>
        </p>
      </div>
      {notice ? (
        <p className="notice notice--success" role="status">
          {notice}
        </p>
      ) : null}
      <LiveEditors articleId={article.id} me={me} members={members} />
      <HelpEditor
        slug={workspace.slug}
        article={article}
        collections={collections}
        isAdmin={isAdmin}
        reply={actionData && 'result' in actionData ? actionData.result : null}
        preview={actionData && 'preview' in actionData ? actionData.preview : null}
        confirmDelete={!!(actionData && 'confirmDelete' in actionData && actionData.confirmDelete)}
      />
    </section>
  );
}
