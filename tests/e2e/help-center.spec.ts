// The help center end to end (docs/product.md#the-help-center-public, docs/product.md#the-help-center-for-the-team): an
// admin writes an article with an image and publishes it; a signed-out visitor finds it by search with JavaScript off,
// reads it and votes; the article page is an island within its JavaScript and HTML budget; a renamed article's old
// address redirects; hostile Markdown stays text; a customer writing a request is offered the article, opens
// it and sends nothing, and a deflection shows in the reports once 30 minutes have passed (moved in
// the database, not waited for); without JavaScript the suggestions come after the first submit.
// Screenshots of the help home, an article and the editor at 1366 and 375 px.
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from '@playwright/test';
import { pageJavaScript } from '../../scripts/page-js.ts';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  service,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
  userId,
} from './fixtures.ts';

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const BODY = [
  'If you forgot your password, you can set a new one in a minute.',
  '',
  '## Steps',
  '',
  '1. Open the **sign-in** page.',
  '2. Choose *Forgot password* and check your email.',
  '',
  '| Plan | Reset by |',
  '|------|----------|',
  '| Free | email    |',
  '',
  'Still stuck? [Contact us](/support).',
].join('\n');

/** Writes and publishes an article in the editor as the signed-in admin; its public path. */
async function writeArticle(page: Page, slug: string, title: string, body: string) {
  await page.goto(`/w/${slug}/help`);
  await page.getByRole('link', { name: 'New article' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New article' })).toBeVisible();
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Text', { exact: true }).fill(body);
  await page.getByLabel('Image').setInputFiles({ name: 'screen shot.png', mimeType: 'image/png', buffer: PNG });
  await page.getByRole('button', { name: 'Insert image' }).click();
  await expect(page.getByLabel('Text', { exact: true })).toHaveValue(
    /!\[screen shot\]\(http.+\/storage\/v1\/object\/public\/help\/.+\/screen%20shot\.png\)/,
  );
  await expect(page.getByLabel('Text', { exact: true })).toHaveValue(/^If you forgot/);
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('preview').getByRole('heading', { name: 'Steps' })).toBeVisible();
  await expectNoViolations(page);
  await screenshots(page, 'help-editor');
  await page.getByRole('button', { name: 'Publish' }).click();
  await expect(page.getByText('Published: the article is on the help center.')).toBeVisible();
  return (await page.getByRole('link', { name: 'View on the help center' }).getAttribute('href'))!;
}

async function visitor(browser: Browser, javaScript: boolean) {
  return newContext(browser, { javaScript });
}

test.describe('help center', () => {
  test.setTimeout(180_000);

  test('an admin publishes an article with an image; a signed-out visitor finds it by search with JavaScript off, reads it and votes', async ({
    browser,
  }) => {
    const { context: adminContext, page: admin } = await newContext(browser);
    const slug = await newWorkspace(admin, { label: 'help' });
    const tag = randomUUID().slice(0, 6);
    const title = `Reset your password ${tag}`;
    const path = await writeArticle(admin, slug, title, BODY);
    expect(path).toMatch(new RegExp(`^/support/${slug}/help/articles/\\d+-reset-your-password-${tag}$`));

    // The image is public, stored as uploaded, and cached for a year.
    const imageUrl = /\((http[^)]+\.png)\)/.exec(await admin.getByLabel('Text', { exact: true }).inputValue())![1]!;
    const image = await admin.request.get(imageUrl);
    expect(image.status()).toBe(200);
    expect(image.headers()['content-type']).toBe('image/png');
    expect(image.headers()['cache-control']).toContain('max-age=31536000');

    // The list shows it, published.
    await admin.goto(`/w/${slug}/help`);
    await expect(admin.getByTestId('help-articles').getByRole('row', { name: new RegExp(title) })).toContainText(
      'Published',
    );

    // A visitor without JavaScript, signed out: the portal's search box, results, the article.
    const { context: anonContext, page } = await visitor(browser, false);
    await page.goto(`/support/${slug}`);
    await page.getByRole('searchbox', { name: 'Search the help center' }).fill('forgot pass');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page).toHaveURL(new RegExp(`/support/${slug}/help/search\\?q=forgot\\+pass`));
    const result = page.getByTestId('help-results').getByRole('link', { name: title });
    await expect(result).toBeVisible();
    await expect(page.getByTestId('help-results').locator('mark').first()).toHaveText(/forgot|pass/i);
    await result.click();
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(page.getByRole('heading', { level: 2, name: 'Steps' })).toBeVisible();
    await expect(page.getByRole('img', { name: 'screen shot' })).toHaveAttribute('src', imageUrl);
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', new RegExp(`${path}$`));
    await expect(page.locator('meta[property="og:title"]')).toHaveAttribute('content', title);
    await expect(page.locator('meta[name="description"]')).toHaveAttribute('content', /^If you forgot your password/);

    // "Was this article helpful?" without JavaScript: the form posts, the page comes back.
    await page.getByRole('button', { name: 'Yes' }).click();
    await expect(page.getByText('Thanks for your feedback.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Yes' })).toHaveAttribute('aria-pressed', 'true');
    // Changing one's mind replaces the vote.
    await page.getByRole('button', { name: 'No' }).click();
    await expect(page.getByRole('button', { name: 'No' })).toHaveAttribute('aria-pressed', 'true');
    const id = Number(/articles\/(\d+)-/.exec(path)![1]);
    const votes = await serviceRest(`help_article_votes?article_id=eq.${id}&select=helpful`);
    expect(votes).toEqual([{ helpful: false }]);

    // No result: "Submit a request" with the query as subject.
    await page.goto(`/support/${slug}/help/search?q=${encodeURIComponent('refund my order')}`);
    await expect(page.getByTestId('no-results')).toContainText('No articles match “refund my order”.');
    await expect(page.getByRole('link', { name: 'Submit a request' }).first()).toHaveAttribute(
      'href',
      `/support/${slug}/new?subject=refund%20my%20order`,
    );

    // With JavaScript: the same pages, screenshots, no axe violations; the vote is sent in place.
    const { context: jsContext, page: reader } = await visitor(browser, true);
    const errors: string[] = [];
    reader.on('console', (m) => (m.type() === 'error' || m.type() === 'warning' ? errors.push(m.text()) : undefined));
    await reader.goto(`/support/${slug}/help`);
    await expect(reader.getByRole('heading', { level: 1, name: 'How can we help?' })).toBeVisible();
    await expectNoViolations(reader);
    await screenshots(reader, 'help-home');
    await reader.goto(path);
    await expectNoViolations(reader);
    await screenshots(reader, 'help-article');
    await reader.getByRole('button', { name: 'Yes' }).click();
    await expect(reader.getByText('Thanks for your feedback.')).toBeVisible();
    await expect(reader).toHaveURL(new RegExp(`${path}$`));
    expect(errors).toEqual([]);

    // The article page: an island (no Remix runtime), within its budgets.
    const html = await (await reader.request.get(path)).text();
    const js = await pageJavaScript(html, new URL(path, reader.url()), async (url) =>
      Buffer.from(await (await reader.request.get(url.toString())).body()),
    );
    expect(js.files.map((f) => f.file)).toEqual([expect.stringMatching(/^\/build\/islands\/help-/)]);
    expect(js.total).toBeLessThanOrEqual(20_000);
    await Promise.all([adminContext.close(), anonContext.close(), jsContext.close()]);
  });

  test('a 2 000-word article: HTML ≤ 30 KB gzip; a renamed article redirects; hostile Markdown stays text', async ({
    browser,
  }) => {
    const { context, page: admin } = await newContext(browser);
    const slug = await newWorkspace(admin, { label: 'help-long' });
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    const words = 'the quick brown fox jumps over the lazy dog while customers read answers'.split(' ');
    const paragraphs = Array.from({ length: 40 }, (_, p) =>
      Array.from({ length: 50 }, (_, i) => words[(p * 7 + i) % words.length]).join(' '),
    );
    const long = `## Overview\n\n${paragraphs.join('\n\n')}`;
    const hostile = '<script>alert(1)</script>\n\n[click](javascript:alert(1))\n\n<img src=x onerror=alert(1)>';
    const [created] = await serviceRest('help_articles', {
      method: 'POST',
      body: JSON.stringify({
        workspace_id: workspace.id,
        title: 'A long article',
        body: `${long}\n\n${hostile}`,
        status: 'published',
      }),
    });
    const path = `/support/${slug}/help/articles/${created.id}-a-long-article`;
    const res = await admin.request.get(path);
    expect(res.status()).toBe(200);
    const html = await res.text();
    expect(html.split(/\s+/).length).toBeGreaterThan(2_000);
    expect(gzipSync(html).length).toBeLessThanOrEqual(30_000);

    // Hostile Markdown: shown as text, nothing runs.
    await admin.goto(path);
    const body = admin.locator('.help-body');
    await expect(body).toContainText('<script>alert(1)</script>');
    expect(await body.locator('script, [onerror], a[href^="javascript"]').count()).toBe(0);

    // Renamed: the old address redirects (301, cached 5 minutes only) to the new one, keeping the query.
    await admin.goto(`/w/${slug}/help/${created.id}`);
    await admin.getByLabel('Title').fill('A longer article');
    await admin.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(admin.getByText('Saved.')).toBeVisible();
    const old = await admin.request.get(`${path}?x=1`, { maxRedirects: 0 });
    expect(old.status()).toBe(301);
    expect(old.headers().location).toBe(`/support/${slug}/help/articles/${created.id}-a-longer-article?x=1`);
    expect(old.headers()['cache-control']).toBe('public, max-age=300');
    // Sitemap and robots list it.
    const sitemap = await (await admin.request.get(`/support/${slug}/sitemap.xml`)).text();
    expect(sitemap).toContain(`/support/${slug}/help/articles/${created.id}-a-longer-article</loc>`);
    const robots = await (await admin.request.get('/robots.txt')).text();
    expect(robots).toContain(`/support/${slug}/sitemap.xml`);
    expect(robots).toContain('Disallow: /w/');
    await context.close();
  });

  for (const javaScript of [true, false]) {
    test(`a customer writing a request is offered the article and sends nothing: a deflection in the reports (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
      browser,
    }) => {
      const { context: adminContext, page: admin } = await newContext(browser);
      const slug = await newWorkspace(admin, { label: 'deflect' });
      const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
      const title = `Change the delivery address ${randomUUID().slice(0, 6)}`;
      const [article] = await serviceRest('help_articles', {
        method: 'POST',
        body: JSON.stringify({
          workspace_id: workspace.id,
          title,
          body: 'Open the order and choose **Edit address**.',
          status: 'published',
        }),
      });

      const { context, page } = await signedInContext(browser, uniqueEmail('customer'), { javaScript });
      await page.goto(`/support/${slug}/new`);
      await page.getByLabel('Subject').fill('How do I change the delivery addr');
      let opened: Page;
      if (javaScript) {
        const suggestion = page.getByTestId('suggestions').getByRole('link', { name: title });
        await expect(suggestion).toBeVisible();
        [opened] = await Promise.all([context.waitForEvent('page'), suggestion.click()]);
      } else {
        await page.getByLabel('Message').fill('My parcel goes to my old flat.');
        await page.getByRole('button', { name: 'Submit request' }).click();
        await expect(page.getByRole('heading', { name: /these articles may answer your question/ })).toBeVisible();
        // Everything typed is kept.
        await expect(page.getByLabel('Subject')).toHaveValue('How do I change the delivery addr');
        await expect(page.getByLabel('Message')).toHaveValue('My parcel goes to my old flat.');
        const suggestion = page.getByTestId('suggestions').getByRole('link', { name: title });
        [opened] = await Promise.all([context.waitForEvent('page'), suggestion.click()]);
      }
      await expect(opened.getByRole('heading', { level: 1, name: title })).toBeVisible();
      // The request stays unsent; the page it was written on keeps it.
      await expect(page.getByLabel('Subject')).toHaveValue('How do I change the delivery addr');
      const events = await serviceRest(`help_suggestion_events?workspace_id=eq.${workspace.id}&select=kind,article_id`);
      expect(events).toEqual([{ kind: 'click', article_id: article.id }]);
      if (!javaScript) {
        await page.getByRole('button', { name: 'My question is answered' }).click();
        await expect(page.getByText('Glad you found your answer. Nothing was sent.')).toBeVisible();
      }

      // Before 30 minutes nothing counts; then the click is a deflection (time moved in the database).
      await admin.goto(`/w/${slug}/reports`);
      await expect(admin.getByTestId('help-deflections')).toHaveText('0');
      await service(`/rest/v1/help_suggestion_events?workspace_id=eq.${workspace.id}`, {
        method: 'PATCH',
        body: JSON.stringify({ created_at: new Date(Date.now() - 31 * 60_000).toISOString() }),
      });
      await admin.reload();
      await expect(admin.getByTestId('help-deflections')).toHaveText('1');
      await expect(admin.getByTestId('help-views')).toHaveText('1');
      if (javaScript) await expectNoViolations(admin);
      await Promise.all([adminContext.close(), context.close()]);
    });
  }

  test('without JavaScript a request with files is offered the articles too, and sent with its files; "answered" keeps none', async ({
    browser,
  }) => {
    const { context: adminContext, page: admin } = await newContext(browser);
    const slug = await newWorkspace(admin, { label: 'help-files' });
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    const title = `Replace a cracked screen ${randomUUID().slice(0, 6)}`;
    await serviceRest('help_articles', {
      method: 'POST',
      body: JSON.stringify({ workspace_id: workspace.id, title, body: 'Send us a photo.', status: 'published' }),
    });
    const { context, page } = await signedInContext(browser, uniqueEmail('customer'), { javaScript: false });
    const customerId = await userId(page);
    const write = async (subject: string) => {
      await page.goto(`/support/${slug}/new`);
      await page.getByLabel('Subject').fill(subject);
      await page.getByLabel('Message').fill('Photo and receipt attached.');
      await page.getByLabel('Attachments').setInputFiles([
        { name: 'cracked screen.png', mimeType: 'image/png', buffer: PNG },
        { name: 'receipt.txt', mimeType: 'text/plain', buffer: Buffer.from('Paid 20 EUR') },
      ]);
      await page.getByRole('button', { name: 'Submit request' }).click();
      await expect(page.getByRole('heading', { name: /these articles may answer your question/ })).toBeVisible();
      await expect(page.getByTestId('suggestions').getByRole('link', { name: title })).toBeVisible();
      // Nothing typed or chosen is lost: the files wait, named, for the next button.
      await expect(page.getByLabel('Subject')).toHaveValue(subject);
      await expect(page.getByTestId('attached-files')).toHaveText(
        'Attached, sent with your request: cracked screen.png, receipt.txt',
      );
    };

    await write('My cracked screen');
    await screenshots(page, 'new-request-suggestions-files');
    await page.getByRole('button', { name: 'Send my request anyway' }).click();
    await page.waitForURL(/\/requests\/1$/);
    const files = page.getByTestId('attachment');
    await expect(files).toHaveCount(2);
    await expect(files.filter({ hasText: 'cracked screen.png' }).locator('img')).toBeVisible();

    // "My question is answered": nothing is sent, and the files are removed from storage.
    await write('The cracked screen');
    const ticket = /[?&]ticket=([0-9a-f-]{36})/.exec((await page.locator('form[enctype]').getAttribute('action'))!)![1];
    const listed = () =>
      service('/storage/v1/object/list/attachments', {
        method: 'POST',
        body: JSON.stringify({ prefix: `${customerId}/${workspace.id}/${ticket}/`, limit: 10 }),
      });
    expect(await listed()).toHaveLength(2);
    await page.getByRole('button', { name: 'My question is answered' }).click();
    await expect(page.getByText('Glad you found your answer. Nothing was sent.')).toBeVisible();
    expect(await listed()).toEqual([]);
    const tickets = await serviceRest(`tickets?workspace_id=eq.${workspace.id}&select=number`);
    expect(tickets).toEqual([{ number: 1 }]);
    await Promise.all([adminContext.close(), context.close()]);
  });

  test("a renamed collection's old address redirects to its new one", async ({ browser }) => {
    const { context, page } = await newContext(browser);
    const slug = await newWorkspace(page, { label: 'help-coll' });
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    const [collection] = await serviceRest('help_collections', {
      method: 'POST',
      body: JSON.stringify({ workspace_id: workspace.id, title: 'Billing' }),
    });
    await serviceRest('help_articles', {
      method: 'POST',
      body: JSON.stringify({
        workspace_id: workspace.id,
        collection_id: collection.id,
        title: 'Invoices',
        body: 'Monthly.',
        status: 'published',
      }),
    });
    await serviceRest(`help_collections?id=eq.${collection.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ title: 'Payments and invoices' }),
    });
    const old = await page.request.get(`/support/${slug}/help/billing?x=1`, { maxRedirects: 0 });
    expect(old.status()).toBe(301);
    expect(old.headers().location).toBe(`/support/${slug}/help/payments-and-invoices?x=1`);
    expect(old.headers()['cache-control']).toBe('public, max-age=300');
    await page.goto(`/support/${slug}/help/billing`);
    await expect(page.getByRole('heading', { level: 1, name: 'Payments and invoices' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Invoices' })).toBeVisible();
    expect((await page.request.get(`/support/${slug}/help/never-was`)).status()).toBe(404);
    await context.close();
  });

  test('an agent inserts an article’s link into a reply from the composer, and makes an article from a reply', async ({
    browser,
  }) => {
    const { context: adminContext, page: admin } = await newContext(browser);
    const slug = await newWorkspace(admin, { label: 'help-link' });
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    const title = `Track your parcel ${randomUUID().slice(0, 6)}`;
    const [article] = await serviceRest('help_articles', {
      method: 'POST',
      body: JSON.stringify({
        workspace_id: workspace.id,
        title,
        body: 'Use the tracking link in your email.',
        status: 'published',
      }),
    });
    const { context, page: customer } = await signedInContext(browser, uniqueEmail('customer'), { javaScript: false });
    await customer.goto(`/support/${slug}/new`);
    await customer.getByLabel('Subject').fill('Where is my order');
    await customer.getByLabel('Message').fill('It left a week ago.');
    await customer.getByRole('button', { name: 'Submit request' }).click();
    await customer.waitForURL(/\/requests\/1$/);

    // The picker's replies arrive only after the agent has typed (a slow network, a busy machine):
    // what was typed while they loaded still searches the articles.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await admin.route(`**/w/${slug}/tickets/1/canned-replies*`, async (route) => {
      await held;
      await route.continue();
    });
    await admin.goto(`/w/${slug}/tickets/1`);
    const picker = admin.getByRole('combobox', { name: 'Canned reply or article' });
    await picker.click();
    await picker.pressSequentially('parcel');
    release();
    const option = admin.getByRole('option', { name: new RegExp(`Article: ${title}`) });
    await expect(option).toBeVisible();
    await option.click();
    const url = `/support/${slug}/help/articles/${article.id}-${article.slug}`;
    await expect(admin.getByLabel('Message')).toHaveValue(new RegExp(`${title}: http://[^ ]+${url}$`));
    await admin.getByRole('button', { name: 'Send', exact: true }).click();
    // Sent once the agent's page shows it (the send goes in the background); then the customer reloads.
    await expect(admin.locator('[data-kind="reply"]', { hasText: `${title}: http` })).toBeVisible();
    await customer.reload();
    await expect(customer.getByText(new RegExp(`${title}: http://[^ ]+${url}`))).toBeVisible();

    // "Create article from this reply": a new article with the reply as its text, the ticket's subject as its title.
    await admin.getByRole('link', { name: 'Create article from this reply' }).last().click();
    await expect(admin).toHaveURL(new RegExp(`/w/${slug}/help/new\\?from=`));
    await expect(admin.getByLabel('Title')).toHaveValue('Where is my order');
    await expect(admin.getByLabel('Text', { exact: true })).toHaveValue(new RegExp(`^${title}: http`));
    await Promise.all([adminContext.close(), context.close()]);
  });
});
