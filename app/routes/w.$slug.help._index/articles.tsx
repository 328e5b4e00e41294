// The team's articles: filters by status and collection, the table with each one's figures, pages.
import { Form, Link, useLoaderData } from '@remix-run/react';
import { SubmitButton } from '~/components/forms.tsx';
import { StatusBadge } from '~/components/ticket-labels.tsx';
import { articlePath, helpfulPercent } from '~/lib/help/articles.ts';
import { HELP_LIST_PAGE_SIZE } from '~/lib/help/limits.ts';
import type { loader } from './help-list.server.ts';

export function Articles() {
  const { workspace, articles, total, page, status, collection, collections } = useLoaderData<typeof loader>();
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
                  <td>{a.updated}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>{total === 0 && !status && !collection ? 'No articles yet. Write the first one.' : 'No articles match.'}</p>
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
  );
}
