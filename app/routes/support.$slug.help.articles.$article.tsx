// An article of the help center (docs/product.md#the-help-center-public): server-rendered Markdown, readable without
// any JavaScript; meta description, canonical address, Open Graph; "Was this article helpful?" (one vote
// per visitor, changeable); the other articles of its collection. /articles/<id>-<slug>: a GET at an old
// slug is redirected to the current one. A draft is there for the workspace's members only (RLS).
// Opened from a suggestion while writing a request (?suggested=1), a signed-in customer's click is
// recorded for the deflection count. An island page: its one small script sends the vote without
// leaving the page (app/islands/help.ts); without it the form posts and the page comes back.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { HelpHeader, StillNeedHelp } from '~/components/help-ui.tsx';
import type { IslandHandle } from '~/components/island.tsx';
import { getOptionalUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { HelpVoteSchema } from '~/lib/forms/help-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { articlePath, collectionPath, helpMeta, parseArticleParam, SUGGESTED_PARAM } from '~/lib/help/articles.ts';
import { absoluteUrl, allowVote, loadArticle, pageData, readerClient, visitorId } from '~/lib/help/help.server.ts';
import { formatDate } from '~/lib/helpdesk/format-date.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { log } from '~/lib/http/log.server.ts';
import {
  dataWithSession,
  errorResponse,
  readFormData,
  redirectWithSession,
  requireSameOrigin,
} from '~/lib/http/responses.server.ts';
import { getSupabase } from '~/lib/supabase/client.server.ts';
import helpStyles from '~/styles/help.css';

export const handle: IslandHandle = { island: 'help' };
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: helpStyles }];

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: 'Help center · Tend' }];
  const { article, canonical } = data;
  const description = article.description.slice(0, 160);
  return [
    ...helpMeta({
      title: `${article.title} · ${article.workspace.name} help center`,
      ogTitle: article.title,
      description,
      canonical,
      siteName: article.workspace.name,
      type: 'article',
    }),
    { property: 'article:modified_time', content: article.updated_at },
    ...(article.status === 'draft' ? [{ name: 'robots', content: 'noindex' }] : []),
  ];
};

export async function loader({ request, params }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  // Coming back from a vote (?feedback=) is no new reading.
  const { slug, article, html, page } = await loadArticle(request, params, {
    countView: request.method === 'GET' && !url.searchParams.has('feedback'),
  });
  // A suggestion opened while writing a request: the customer is signed in (only they write requests).
  if (url.searchParams.has(SUGGESTED_PARAM) && article.status === 'published' && (await getOptionalUser(request))) {
    const { error } = await getSupabase(request).supabase.rpc('record_help_suggestion', {
      p_slug: slug,
      p_kind: 'click',
      p_article_id: article.id,
    });
    if (error) log.warn('help: suggestion click not recorded', { message: error.message });
  }
  const feedback = url.searchParams.get('feedback');
  const canonical = absoluteUrl(request, articlePath(slug, article));
  const voted = feedback === 'yes' || feedback === 'no' ? feedback : null;
  return dataWithSession(
    request,
    pageData(request, page, `${canonical}\0${voted}`, () => ({ article, html, canonical, voted })),
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const slug = parseSlug(request, params.slug);
  const parsed = parseArticleParam(params.article);
  if (!parsed) throw errorResponse(request, 'not_found');
  const submission = parseSubmission(await readFormData(request), HelpVoteSchema);
  const fail = (code: 'bad_request' | 'too_many_attempts' | 'not_found' | 'backend_unavailable' | 'unexpected') =>
    dataWithSession(request, { error: errorMessage(code) }, { status: errorStatus(code) });
  if (submission.status !== 'success') return fail('bad_request');
  if (!allowVote(request)) return fail('too_many_attempts');
  const visitor = await visitorId(request);
  const { error } = await readerClient(request).rpc('help_vote', {
    p_article_id: parsed.id,
    p_visitor: visitor.id,
    p_helpful: submission.value.helpful === 'yes',
  });
  if (error) {
    const mapped = mapDbError(error, 'help vote');
    if (mapped.code === 'not_found') throw errorResponse(request, 'not_found');
    return fail(
      mapped.code === 'too_many_attempts' || mapped.code === 'backend_unavailable' ? mapped.code : 'unexpected',
    );
  }
  const to = `/support/${slug}/help/articles/${params.article}?feedback=${submission.value.helpful}#feedback`;
  return redirectWithSession(request, to, {
    status: 303,
    headers: visitor.setCookie ? { 'Set-Cookie': visitor.setCookie } : undefined,
  });
}

export default function HelpArticlePage() {
  const { article, html, voted } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { workspace } = article;
  const trail = article.collection
    ? [{ label: article.collection.title, href: collectionPath(workspace.slug, article.collection) }]
    : [];
  return (
    <div className="help stack-lg">
      <HelpHeader slug={workspace.slug} workspaceName={workspace.name} trail={trail} />
      <article className="card help-article" aria-labelledby="article-title">
        {article.status === 'draft' ? (
          <p className="notice notice--warning">Draft — only your team can see this article.</p>
        ) : null}
        <h1 id="article-title">{article.title}</h1>
        <p className="muted small">
          Updated <time dateTime={article.updated_at}>{formatDate(article.updated_at)}</time>
        </p>
        {/* Rendered and sanitised on the server: app/lib/markdown/render.server.ts. */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised HTML from the renderer */}
        <div className="help-body" dangerouslySetInnerHTML={{ __html: html }} />
      </article>
      {article.status === 'published' ? (
        <section id="feedback" className="card help-feedback" aria-labelledby="feedback-title" data-help-feedback>
          <h2 id="feedback-title">Was this article helpful?</h2>
          <form method="post" action={`/support/${workspace.slug}/help/articles/${article.id}-${article.slug}`}>
            <button
              type="submit"
              name="helpful"
              value="yes"
              className="button button--secondary"
              aria-pressed={voted === 'yes'}
            >
              Yes
            </button>{' '}
            <button
              type="submit"
              name="helpful"
              value="no"
              className="button button--secondary"
              aria-pressed={voted === 'no'}
            >
              No
            </button>
          </form>
          <p role="status" data-help-feedback-status>
            {actionData?.error ?? (voted ? 'Thanks for your feedback.' : '')}
          </p>
        </section>
      ) : null}
      {article.siblings.length && article.collection ? (
        <nav className="card help-related" aria-labelledby="related-title">
          <h2 id="related-title">More in {article.collection.title}</h2>
          <ul className="help-articles">
            {article.siblings.map((s) => (
              <li key={s.id}>
                <a href={articlePath(workspace.slug, s)}>{s.title}</a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <StillNeedHelp slug={workspace.slug} />
    </div>
  );
}
