// The help center's home (docs/product.md#the-help-center-public): the search box, the collections that hold a
// published article, the most read articles, and "Submit a request". An island page: nothing of React or Remix
// runs in the browser (docs/decisions/041-help-center.md).
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { HelpSearchForm, StillNeedHelp } from '~/components/help-ui.tsx';
import type { IslandHandle } from '~/components/island.tsx';
import { articlePath, collectionPath, helpMeta, helpPath } from '~/lib/help/articles.ts';
import { absoluteUrl, helpCenter, pageData } from '~/lib/help/help.server.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession } from '~/lib/http/responses.server.ts';
import helpStyles from '~/styles/help.css';

export const handle: IslandHandle = { island: 'help' };
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: helpStyles }];

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: 'Help center · Tend' }];
  const title = `${data.center.workspace.name} help center`;
  const description = `Answers from ${data.center.workspace.name}: search the articles or browse the collections.`;
  return helpMeta({ title, description, canonical: data.canonical, siteName: data.center.workspace.name });
};

export async function loader({ request, params }: LoaderFunctionArgs) {
  const slug = parseSlug(request, params.slug);
  const center = await helpCenter(request, slug);
  const canonical = absoluteUrl(request, helpPath(center.workspace.slug));
  return dataWithSession(
    request,
    pageData(request, center, canonical, () => ({ center, canonical })),
  );
}

export default function HelpHome() {
  const { center } = useLoaderData<typeof loader>();
  const { workspace } = center;
  return (
    <div className="help stack-lg">
      <section className="help-hero" aria-labelledby="help-title">
        <p className="eyebrow">
          <a href={`/support/${workspace.slug}`}>{workspace.name}</a>
        </p>
        <h1 id="help-title">How can we help?</h1>
        <HelpSearchForm slug={workspace.slug} />
      </section>
      {center.published === 0 ? (
        <p className="card">There are no articles here yet.</p>
      ) : (
        <>
          {center.collections.length ? (
            <section aria-labelledby="collections-title">
              <h2 id="collections-title">Collections</h2>
              <ul className="help-collections">
                {center.collections.map((c) => (
                  <li key={c.id} className="card help-collection">
                    <h3>
                      <a href={collectionPath(workspace.slug, c)}>{c.title}</a>
                    </h3>
                    {c.description ? <p>{c.description}</p> : null}
                    <p className="muted small">
                      {c.articles} {c.articles === 1 ? 'article' : 'articles'}
                    </p>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {center.popular.length ? (
            <section className="card" aria-labelledby="popular-title">
              <h2 id="popular-title">Popular articles</h2>
              <ul className="help-articles">
                {center.popular.map((a) => (
                  <li key={a.id}>
                    <a href={articlePath(workspace.slug, a)}>{a.title}</a>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </>
      )}
      <StillNeedHelp slug={workspace.slug} />
    </div>
  );
}
