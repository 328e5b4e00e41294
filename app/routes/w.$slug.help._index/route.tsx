// The help center for the team (docs/product.md#the-help-center-for-the-team): the workspace's articles, drafts too,
// with status, collection, views in the last 30 days, helpful votes and last edit; filters by status and collection;
// "New article". Admins also add, rename and delete collections. Members only (RLS).
import type { LinksFunction, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { AdminNav } from '~/components/admin-nav.tsx';
import { helpPath } from '~/lib/help/articles.ts';
import { Articles } from './articles.tsx';
import { Collections } from './collections.tsx';
import type { loader } from './help-list.server.ts';
import helpStyles from '~/styles/help.css';

export { action, loader } from './help-list.server.ts';

// The list's table scrolls inside its card on a phone (help.css), the page never sideways.
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: helpStyles }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Help center · ${data.workspace.name} · Tend` : 'Help center · Tend' },
  {
    name: 'description',
    content: 'The help center articles of this workspace: drafts, views and what readers found helpful.',
  },
];

export default function HelpArticles() {
  const { workspace, isAdmin, notice } = useLoaderData<typeof loader>();
  const base = `/w/${workspace.slug}/help`;
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
      <Articles />
      <Collections />
    </section>
  );
}
