// A new help article (docs/product.md#the-help-center-for-the-team): the editor, empty, or filled from a message of a
// ticket (?from=<message id>: "Create article from this reply"; the title from its ticket's subject). Saved
// as a draft or published at once; then the editor continues at /w/:slug/help/:id.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useActionData, useLoaderData } from '@remix-run/react';
import { HelpEditor } from '~/components/help-editor.tsx';
import { editorAction, editorContext } from '~/lib/help/editor.server.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { dataWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import helpStyles from '~/styles/help.css';

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: helpStyles }];
export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `New article · ${data.workspace.name} · Tend` : 'New article · Tend' },
  { name: 'description', content: 'Write a new help center article.' },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const context = await editorContext(request, params.slug);
  const from = new URL(request.url).searchParams.get('from') ?? '';
  let title = '';
  let body = '';
  if (UUID_RE.test(from)) {
    // RLS: a message of this workspace the member may read; anything else fills nothing.
    const { data: message } = await context.supabase
      .from('messages')
      .select('body, tickets!inner(subject, workspace_id)')
      .eq('id', from)
      .eq('tickets.workspace_id', context.workspace.id)
      .maybeSingle();
    if (message) {
      body = message.body;
      title = message.tickets.subject;
    }
  }
  return dataWithSession(request, {
    adminOf: context.role === 'admin' ? context.workspace.slug : null,
    workspace: context.workspace,
    collections: context.collections,
    article: { id: null, title, body, status: 'draft' as const, collection_id: null, updated_at: null },
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase, workspace } = await editorContext(request, params.slug);
  return editorAction(request, supabase, { workspace, userId: user.id, article: null });
}

export default function NewArticle() {
  const { workspace, collections, article } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <section className="stack-lg" aria-labelledby="editor-title">
      <div>
        <p className="eyebrow">
          <Link to={`/w/${workspace.slug}/help`}>Help center</Link>
        </p>
        <h1 id="editor-title">New article</h1>
      </div>
      <HelpEditor
        slug={workspace.slug}
        article={article}
        collections={collections}
        isAdmin={false}
        reply={actionData && 'result' in actionData ? actionData.result : null}
        preview={actionData && 'preview' in actionData ? actionData.preview : null}
        confirmDelete={false}
      />
    </section>
  );
}
