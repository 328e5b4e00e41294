// Renaming a help center collection (issue 30; docs/product.md#the-help-center-for-the-team): an admin renames one on
// /w/:slug/help (`?rename=<id>`, with and without JavaScript); the collection's address follows its new
// title, the old address redirects to it, its articles' addresses don't change, a title another
// collection has is refused at the field with what was typed kept, and agents get no rename form.
import { randomUUID } from 'node:crypto';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  serviceRest,
  test,
  userId,
} from './fixtures.ts';

for (const javaScript of [true, false]) {
  test(`an admin renames a collection; old links keep working (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const { context, page } = await newContext(browser, { javaScript });
    const slug = await newWorkspace(page, { label: 'coll' });
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    const tag = randomUUID().slice(0, 6);
    const [billing, other] = await serviceRest('help_collections', {
      method: 'POST',
      body: JSON.stringify([
        { workspace_id: workspace.id, title: `Billing ${tag}` },
        { workspace_id: workspace.id, title: `Shipping ${tag}` },
      ]),
    });
    const [article] = await serviceRest('help_articles', {
      method: 'POST',
      body: JSON.stringify({
        workspace_id: workspace.id,
        collection_id: billing.id,
        title: 'Change your card',
        body: 'Open Settings.',
        status: 'published',
      }),
    });
    const articlePath = `/support/${slug}/help/articles/${article.id}-${article.slug}`;

    await page.goto(`/w/${slug}/help`);
    await page.getByRole('link', { name: `Rename Billing ${tag}` }).click();
    await expect(page).toHaveURL(new RegExp(`\\?rename=${billing.id}$`));
    const form = page.getByRole('form', { name: `Rename Billing ${tag}` });
    await expect(form.getByLabel('Title')).toHaveValue(`Billing ${tag}`);
    // axe runs in the page: with JavaScript on.
    if (javaScript) await expectNoViolations(page);
    await screenshots(page, `collection-rename-${javaScript ? 'js' : 'nojs'}`);

    // Another collection's title: refused at the field, the title typed kept.
    await form.getByLabel('Title').fill(`shipping ${tag}`);
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form.getByText('That collection exists already.')).toBeVisible();
    await expect(form.getByLabel('Title')).toHaveValue(`shipping ${tag}`);

    await form.getByLabel('Title').fill(`Payments ${tag}`);
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('status')).toHaveText(
      'Collection renamed. Links to its old address lead to the new one.',
    );
    await expect(page.getByText(`/help/payments-${tag}`)).toBeVisible();
    const [renamed] = await serviceRest(`help_collections?id=eq.${billing.id}&select=title,slug`);
    expect(renamed).toEqual({ title: `Payments ${tag}`, slug: `payments-${tag}` });
    const [untouched] = await serviceRest(`help_collections?id=eq.${other.id}&select=title`);
    expect(untouched.title).toBe(`Shipping ${tag}`);

    // The old address redirects, signed out too; the article's address is the same as before.
    const { context: visitor, page: followed } = await newContext(browser);
    const old = await visitor.request.get(`/support/${slug}/help/billing-${tag}`, { maxRedirects: 0 });
    expect(old.status()).toBe(301);
    expect(old.headers().location).toBe(`/support/${slug}/help/payments-${tag}`);
    await followed.goto(`/support/${slug}/help/billing-${tag}`);
    await expect(followed.getByRole('heading', { level: 1, name: `Payments ${tag}` })).toBeVisible();
    await expect(followed.getByRole('link', { name: 'Change your card' })).toHaveAttribute('href', articlePath);
    expect((await visitor.request.get(articlePath, { maxRedirects: 0 })).status()).toBe(200);
    await visitor.close();
    await context.close();
  });
}

test('an agent is offered no rename, and a rename sent by hand changes nothing', async ({ browser }) => {
  test.setTimeout(90_000);
  const { context, page } = await newContext(browser);
  const slug = await newWorkspace(page, { label: 'coll-agent' });
  const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
  const [collection] = await serviceRest('help_collections', {
    method: 'POST',
    body: JSON.stringify({ workspace_id: workspace.id, title: 'Returns' }),
  });
  // The creator becomes an agent (a seeded user the admin): the page lists the collection without a
  // rename, and the action refuses one.
  await serviceRest('memberships', {
    method: 'POST',
    body: JSON.stringify({
      workspace_id: workspace.id,
      user_id: 'b0000000-0000-4000-8000-000000000001',
      role: 'admin',
    }),
  });
  await serviceRest(`memberships?workspace_id=eq.${workspace.id}&user_id=eq.${await userId(page)}`, {
    method: 'PATCH',
    body: JSON.stringify({ role: 'agent' }),
  });
  await page.goto(`/w/${slug}/help?rename=${collection.id}`);
  await expect(page.getByRole('region', { name: 'Collections' }).getByText('Returns', { exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: /^Rename/ })).toHaveCount(0);
  await expect(page.getByRole('form', { name: /^Rename/ })).toHaveCount(0);
  const res = await page.request.post(`/w/${slug}/help`, {
    form: { intent: 'rename_collection', collection_id: collection.id, title: 'Taken over', description: '' },
    headers: { Origin: new URL(page.url()).origin },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(403);
  const [after] = await serviceRest(`help_collections?id=eq.${collection.id}&select=title`);
  expect(after.title).toBe('Returns');
  await context.close();
});
