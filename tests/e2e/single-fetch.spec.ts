// Remix's future flags (docs/decisions/014-single-fetch.md): a client navigation loads every loader
// of the next page in one `.data` request (v3_singleFetch), a document carries only the routes it
// matches and asks /__manifest for the rest (v3_lazyRouteDiscovery), and a navigation whose loader
// fails loads the error page from the server, with the request id that is in the log.
import { expect, test } from './fixtures.ts';

test('a client navigation loads its loaders in one .data request', async ({ page }) => {
  await page.goto('/login');
  await page.waitForFunction(() => '__remixRouter' in window);
  const data: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.endsWith('.data') || url.searchParams.has('_data')) data.push(`${url.pathname}${url.search}`);
  });
  await page.getByRole('link', { name: 'Tend' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(data).toEqual([expect.stringMatching(/^\/_root\.data(\?|$)/)]);
});

test('a document lists only the routes it matches; the others come from /__manifest', async ({ page }) => {
  const manifest = page.waitForRequest((r) => new URL(r.url()).pathname === '/__manifest');
  await page.goto('/login');
  const routes = await page.evaluate(() =>
    Object.keys((window as unknown as { __remixManifest: { routes: object } }).__remixManifest.routes),
  );
  expect(routes).toContain('routes/login');
  expect(routes).not.toContain('routes/w.$slug.tickets.$number');
  // Links on the page (the header's "Tend") are looked up as they render.
  expect(new URL((await manifest).url()).searchParams.getAll('p')).toContain('/');
});

test('a client navigation to a page that fails shows the server’s error page and its request id', async ({ page }) => {
  await page.goto('/login');
  await page.waitForFunction(() => '__remixRouter' in window);
  const document = page.waitForResponse((r) => r.request().resourceType() === 'document');
  await page.evaluate(() =>
    (window as unknown as { __remixRouter: { navigate(to: string): void } }).__remixRouter.navigate(
      '/support/no-such-place',
    ),
  );
  const response = await document;
  expect(new URL(response.url()).pathname).toBe('/support/no-such-place');
  expect(response.status()).toBe(404);
  await expect(page.getByRole('heading', { name: "We couldn't find that." })).toBeVisible();
  await expect(page.getByTestId('request-id')).toHaveText(response.headers()['x-request-id']!);
});
