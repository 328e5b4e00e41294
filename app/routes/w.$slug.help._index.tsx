// The help center for the team (docs/product.md §2.3): the workspace's articles, drafts too, with status,
// collection, views in the last 30 days, helpful votes and last edit; filters by status and collection;
// "New article". Admins also keep the collections and the search language. Members only (RLS).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { AdminNav } from '~/components/admin-nav.tsx';
import { ErrorList, Field, SubmitButton, replyErrors, replyFormErrors } from '~/components/forms.tsx';
import { StatusBadge } from '~/components/helpdesk-ui.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { COLLECTION_TITLE_MAX_LENGTH, HELP_LIST_PAGE_SIZE } from '~/lib/help/limits.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { CollectionSchema } from '~/lib/forms/help-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { articlePath, helpfulPercent, helpPath, type HelpArticleStatus } from '~/lib/help/articles.ts';
import { requireMembership } from '~/lib/helpdesk/queries.server.ts';
import { formatDate, UUID_RE } from '~/lib/helpdesk/vocabulary.ts';
import {
  data,
  errorResponse,
  readFormData,
  redirectWithHeaders,
  requireSameOrigin,
} from '~/lib/http/responses.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Help center · ${data.workspace.name} · Tend` : 'Help center · Tend' },
];

const NOTICES: Record<string, string> = {
  deleted: 'Article deleted.',
  collection_added: 'Collection added.',
  collection_deleted: 'Collection deleted. Its articles are kept, without a collection.',
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

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { workspace, role } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const url = new URL(request.url);
  const statusParam = url.searchParams.get('status');
  const status = statusParam === 'draft' || statusParam === 'published' ? statusParam : null;
  const collectionParam = url.searchParams.get('collection') ?? '';
  const collection = collectionParam === 'none' || UUID_RE.test(collectionParam) ? collectionParam : null;
  const page = Math.min(Math.max(Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1, 1), 10_000);
  const [list, collections] = await Promise.all([
    supabase.rpc('help_article_list', {
      p_slug: workspace.slug,
      ...(status ? { p_status: status } : {}),
      ...(collection ? { p_collection: collection } : {}),
      p_offset: (page - 1) * HELP_LIST_PAGE_SIZE,
      p_limit: HELP_LIST_PAGE_SIZE,
    }),
    supabase
      .from('help_collections')
      .select('id, title, slug, position')
      .eq('workspace_id', workspace.id)
      .order('position')
      .order('title'),
  ]);
  if (list.error) throwDbError(request, list.error, 'help list');
  if (collections.error) throwDbError(request, collections.error, 'help collections');
  const { total, articles } = list.data as unknown as { total: number; articles: ListedArticle[] };
  return data(request, {
    adminOf: role === 'admin' ? workspace.slug : null,
    workspace,
    isAdmin: role === 'admin',
    articles,
    total,
    page,
    status,
    collection,
    collections: collections.data,
    notice: NOTICES[url.searchParams.get('done') ?? ''] ?? null,
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const { workspace, role } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  if (role !== 'admin') throw errorResponse(request, 'forbidden');
  const form = await readFormData(request);
  const base = `/w/${workspace.slug}/help`;
  if (form.get('intent') === 'delete_collection') {
    const id = String(form.get('collection_id') ?? '');
    if (!UUID_RE.test(id)) throw errorResponse(request, 'bad_request');
    const { error } = await supabase.from('help_collections').delete().eq('id', id).eq('workspace_id', workspace.id);
    if (error) throwDbError(request, error, 'help collection delete');
    return redirectWithHeaders(request, `${base}?done=collection_deleted`, { status: 303 });
  }
  if (form.get('intent') !== 'add_collection') throw errorResponse(request, 'bad_request');
  const submission = parseSubmission(form, CollectionSchema);
  if (submission.status !== 'success') return data(request, { result: submission.reply() }, { status: 400 });
  const { error } = await supabase.from('help_collections').insert({ workspace_id: workspace.id, ...submission.value });
  if (error) {
    const mapped = mapDbError(error, 'help collection add');
    const code = error.code === '23505' ? 'collection_taken' : null;
    const message = code ? errorMessage(code) : mapped.message;
    return data(
      request,
      {
        result: submission.reply({ fieldErrors: code ? { title: [message] } : {}, formErrors: code ? [] : [message] }),
      },
      { status: code ? errorStatus(code) : mapped.status },
    );
  }
  return redirectWithHeaders(request, `${base}?done=collection_added`, { status: 303 });
}

export default function HelpArticles() {
  const { workspace, isAdmin, articles, total, page, status, collection, collections, notice } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const base = `/w/${workspace.slug}/help`;
  const pages = Math.max(1, Math.ceil(total / HELP_LIST_PAGE_SIZE));
  const pageLink = (p: number) => {
    const q = new URLSearchParams();
    if (status) q.set('status', status);
    if (collection) q.set('collection', collection);
    if (p > 1) q.set('page', String(p));
    return `${base}${q.size ? `?${q}` : ''}`;
  };
  return (
    <section className="stack-lg" aria-labelledby="help-title">
      <div className="hd-page-head">
        <div>
          <p className="eyebrow">{workspace.name}</p>
          <h1 id="help-title">Help center</h1>
        </div>
        <p className="hd-actions">
          <a href={helpPath(workspace.slug)} className="button button--secondary">
            View the help center
          </a>
          <Link to={`${base}/new`} className="button">
            New article
          </Link>
        </p>
      </div>
      {isAdmin ? <AdminNav slug={workspace.slug} current="help" /> : null}
      {notice ? (
        <p className="notice notice--success" role="status">
          {notice}
        </p>
      ) : null}
      <section className="card stack" aria-labelledby="articles-title">
        <h2 id="articles-title">Articles</h2>
        <Form method="get" className="hd-filters">
          <label className="field">
            <span>Status</span>
            <select name="status" className="input" defaultValue={status ?? ''}>
              <option value="">Any</option>
              <option value="published">Published</option>
              <option value="draft">Draft</option>
            </select>
          </label>
          <label className="field">
            <span>Collection</span>
            <select name="collection" className="input" defaultValue={collection ?? ''}>
              <option value="">Any</option>
              <option value="none">No collection</option>
              {collections.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.title}
                </option>
              ))}
            </select>
          </label>
          <SubmitButton className="button button--secondary">Filter</SubmitButton>
        </Form>
        {articles.length ? (
          <div className="help-table-wrap">
            <table className="help-table" data-testid="help-articles">
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Status</th>
                  <th scope="col">Collection</th>
                  <th scope="col">Views (30 days)</th>
                  <th scope="col">Helpful</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {articles.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <Link to={`${base}/${a.id}`}>{a.title}</Link>
                      {a.status === 'published' ? (
                        <>
                          {' '}
                          <a href={articlePath(workspace.slug, a)} className="muted small">
                            (view)
                          </a>
                        </>
                      ) : null}
                    </td>
                    <td>
                      <StatusBadge status={a.status} label={a.status === 'published' ? 'Published' : 'Draft'} />
                    </td>
                    <td>{a.collection ?? '—'}</td>
                    <td>{a.views}</td>
                    <td>{helpfulPercent(a.helpful, a.votes)}</td>
                    <td>{formatDate(a.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>
            {total === 0 && !status && !collection ? 'No articles yet. Write the first one.' : 'No articles match.'}
          </p>
        )}
        {pages > 1 ? (
          <nav aria-label="Pages" className="hd-pager">
            {page > 1 ? <Link to={pageLink(page - 1)}>Previous</Link> : null}
            <span>
              Page {page} of {pages}
            </span>
            {page < pages ? <Link to={pageLink(page + 1)}>Next</Link> : null}
          </nav>
        ) : null}
      </section>
      <section className="card stack" aria-labelledby="collections-title">
        <h2 id="collections-title">Collections</h2>
        {collections.length ? (
          <ul className="hd-list">
            {collections.map((c) => (
              <li key={c.id} className="hd-list__item">
                <span>{c.title}</span>
                {isAdmin ? (
                  <Form method="post">
                    <input type="hidden" name="collection_id" value={c.id} />
                    <button type="submit" name="intent" value="delete_collection" className="button button--ghost">
                      Delete<span className="visually-hidden"> {c.title}</span>
                    </button>
                  </Form>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No collections yet.</p>
        )}
        {isAdmin ? (
          <Form method="post" className="stack" noValidate aria-label="New collection">
            <Field
              label="New collection"
              errors={replyErrors(actionData?.result, 'title')}
              inputProps={{
                id: 'collection-title',
                name: 'title',
                required: true,
                maxLength: COLLECTION_TITLE_MAX_LENGTH,
              }}
            />
            <Field
              label="Description (optional)"
              errors={replyErrors(actionData?.result, 'description')}
              inputProps={{ id: 'collection-description', name: 'description', maxLength: 300 }}
            />
            <ErrorList errors={replyFormErrors(actionData?.result)} />
            <SubmitButton name="intent" value="add_collection" className="button button--secondary">
              Add collection
            </SubmitButton>
          </Form>
        ) : null}
      </section>
    </section>
  );
}
