// What the app remembers for signed-out readers of the help center (docs/decisions/065-help-center-speed.md,
// app/lib/help/public-cache.server.ts) follows every change within about a second: an edited article,
// a search finding the new text, an unpublished article gone, a renamed collection on the home page;
// and their views, added up in the app, reach the database. The pages are asked for by a signed-out
// visitor before each change, so what they were is remembered, and polled after it (the app checks
// the help center's version at most a second apart; the polls allow for a loaded machine).
import { randomUUID } from 'node:crypto';
import { expect, newContext, newWorkspace, serviceRest, test } from './fixtures.ts';

const SOON = { timeout: 5_000, intervals: [100, 200, 250] };

test.setTimeout(120_000);

test('a signed-out reader sees an edit, a search, an unpublished article and a renamed collection within seconds; their views are counted', async ({
  browser,
}) => {
  const { context: adminContext, page: admin } = await newContext(browser);
  const slug = await newWorkspace(admin, { label: 'help-cache' });
  const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
  const tag = randomUUID().slice(0, 6);
  const [collection] = await serviceRest('help_collections', {
    method: 'POST',
    body: JSON.stringify({ workspace_id: workspace.id, title: `Billing ${tag}` }),
  });
  const [article] = await serviceRest('help_articles', {
    method: 'POST',
    body: JSON.stringify({
      workspace_id: workspace.id,
      collection_id: collection.id,
      title: `Change your card ${tag}`,
      body: 'Open the billing settings.',
      status: 'published',
    }),
  });
  const path = `/support/${slug}/help/articles/${article.id}-${article.slug}`;
  const { context, page } = await newContext(browser);
  const text = async (url: string) => {
    const res = await page.request.get(url, { maxRedirects: 0 });
    return `${res.status()} ${res.headers().location ?? ''} ${await res.text()}`;
  };
  const search = (q: string) => text(`/support/${slug}/help/search?q=${encodeURIComponent(q)}`);

  // Read (and so remembered) before each change.
  expect(await text(path)).toContain('Open the billing settings.');
  expect(await search('wallet')).toContain('No articles match');
  expect(await text(`/support/${slug}/help`)).toContain(`Billing ${tag}`);
  // Views of a signed-out reader, added up in the app, reach the database: the read above and three more.
  for (let i = 0; i < 3; i++) expect((await page.request.get(path)).status()).toBe(200);
  const views = async () =>
    (await serviceRest(`help_article_views?article_id=eq.${article.id}&select=views`)).reduce(
      (n: number, r: { views: number }) => n + r.views,
      0,
    );
  await expect.poll(views, SOON).toBe(4);

  await serviceRest(`help_articles?id=eq.${article.id}`, {
    method: 'PATCH',
    body: JSON.stringify({ title: `Change your wallet ${tag}`, body: 'Open the wallet page.' }),
  });
  const moved = `/support/${slug}/help/articles/${article.id}-change-your-wallet-${tag}`;
  await expect.poll(() => text(path), SOON).toContain(`301 ${moved}`);
  expect(await text(moved)).toContain('Open the wallet page.');
  await expect.poll(() => search('wallet'), SOON).toContain(`href="${moved}"`);

  await serviceRest(`help_collections?id=eq.${collection.id}`, {
    method: 'PATCH',
    body: JSON.stringify({ title: `Payments ${tag}` }),
  });
  await expect.poll(() => text(`/support/${slug}/help`), SOON).toContain(`Payments ${tag}`);

  await serviceRest(`help_articles?id=eq.${article.id}`, {
    method: 'PATCH',
    body: JSON.stringify({ status: 'draft' }),
  });
  await expect.poll(async () => (await page.request.get(moved)).status(), SOON).toBe(404);
  await expect.poll(() => search('wallet'), SOON).toContain('No articles match');
  await Promise.all([adminContext.close(), context.close()]);
});
