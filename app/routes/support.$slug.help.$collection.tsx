// A collection of the help center (docs/product.md#the-help-center-public): its published articles in order; an old
// slug (the collection renamed) redirects to the current one. An island page.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { HelpHeader, StillNeedHelp } from '~/components/help-ui.tsx';
import type { IslandHandle } from '~/components/island.tsx';
import { articlePath, collectionPath, helpMeta } from '~/lib/help/articles.ts';
import {
  absoluteUrl,
  helpCall,
  type HelpWorkspace,
  movedTo,
  pageData,
  readerCached,
  readerClient,
} from '~/lib/help/help.server.ts';
import { parseSlug } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, errorResponse } from '~/lib/http/responses.server.ts';
import helpStyles from '~/styles/help.css';

export const handle: IslandHandle = { island: 'help' };
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: helpStyles }];

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: 'Help center · Tend' }];
  const { collection, canonical } = data;
  const title = `${collection.title} · ${collection.workspace.name} help center`;
  const description = collection.description || `Articles about ${collection.title} from ${collection.workspace.name}.`;
  return helpMeta({ title, ogTitle: collection.title, description, canonical, siteName: collection.workspace.name });
};

interface HelpCollection {
  workspace: HelpWorkspace;
  id: string;
  title: string;
  slug: string;
  description: string;
  articles: { id: number; title: string; slug: string; updated_at: string; excerpt: string }[];
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const slug = parseSlug(request, params.slug);
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(params.collection ?? '')) throw errorResponse(request, 'not_found');
  const collection = await readerCached(request, slug, `collection:${params.collection}`, () => {
    const client = readerClient(request);
    return helpCall<HelpCollection | { workspace: HelpWorkspace; moved_to: string }>(
      request,
      client,
      slug,
      client.rpc('help_collection', { p_slug: slug, p_collection: params.collection! }),
      'help collection',
    );
  });
  // A renamed collection's old address.
  if ('moved_to' in collection) throw movedTo(request, collectionPath(slug, { slug: collection.moved_to }));
  const canonical = absoluteUrl(request, collectionPath(slug, collection));
  return dataWithSession(
    request,
    pageData(request, collection, canonical, () => ({ collection, canonical })),
  );
}

export default function HelpCollectionPage() {
  const { collection } = useLoaderData<typeof loader>();
  const { workspace } = collection;
  return (
    <div className="help stack-lg">
      <HelpHeader slug={workspace.slug} workspaceName={workspace.name} />
      <section className="card stack" aria-labelledby="collection-title">
        <h1 id="collection-title">{collection.title}</h1>
        {collection.description ? <p className="lead">{collection.description}</p> : null}
        {collection.articles.length ? (
          <ul className="help-articles help-articles--excerpts">
            {collection.articles.map((a) => (
              <li key={a.id}>
                <a href={articlePath(workspace.slug, a)}>{a.title}</a>
                {a.excerpt ? <p className="muted">{a.excerpt}</p> : null}
              </li>
            ))}
          </ul>
        ) : (
          <p>There are no articles in this collection yet.</p>
        )}
      </section>
      <StillNeedHelp slug={workspace.slug} />
    </div>
  );
}
