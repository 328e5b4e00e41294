// Browser bundles carry no server-only code: every route module and shared chunk the manifest lists
// (what any page may load) and the island modules (docs/decisions/006-javascript-budget.md) are
// free of zod (server-side validation, ~90 KB gzip), of secrets and of Phoenix's long polling; islands
// carry no Remix either.
import { randomUUID } from 'node:crypto';
import { pageJavaScript } from '../../scripts/page-js.ts';
import { expect, requestCode, signInByForm, test, uniqueEmail } from './fixtures.ts';

const SERVER_ONLY = /ZodError|\$ZodType|SUPABASE_SERVICE_ROLE_KEY|SESSION_SECRET/;

test('no route module or chunk sent to browsers contains zod or a server secret', async ({ page }) => {
  await page.goto('/login');
  // The page carries the routes it matches (v3_lazyRouteDiscovery); the manifest file lists them all.
  const url = await page.evaluate(
    () => (window as unknown as { __remixManifest: { url: string } }).__remixManifest.url,
  );
  const source = await (await page.request.get(url)).text();
  type Manifest = {
    entry: { module: string; imports?: string[] };
    routes: Record<string, { module: string; imports?: string[] }>;
  };
  const m = JSON.parse(source.replace(/^window\.__remixManifest=/, '').replace(/;\s*$/, '')) as Manifest;
  const files = new Set<string>([m.entry.module, ...(m.entry.imports ?? [])]);
  for (const r of Object.values(m.routes)) for (const f of [r.module, ...(r.imports ?? [])]) files.add(f);
  expect(Object.keys(m.routes).length).toBeGreaterThan(10);
  // All at once, as a browser fetches a page's modules: one after another they outlast the test's 30 s at load ~35.
  await Promise.all(
    [...files].map(async (file) => {
      const res = await page.request.get(file);
      expect(res.status(), file).toBe(200);
      const code = await res.text();
      const found = SERVER_ONLY.exec(code)?.[0];
      expect(found, `${file} contains ${found}`).toBeUndefined();
      // Phoenix's long-poll transport and its XHR helper stay out (patches/@supabase+phoenix+0.4.5.patch).
      expect(code, file).not.toMatch(/XDomainRequest/);
    }),
  );
});

test('the island of /login/verify and what it imports contain no zod, server secret or Remix runtime', async ({
  page,
}) => {
  await page.goto('/login');
  await requestCode(page, uniqueEmail('bundles'));
  const queue = await page.evaluate(() =>
    [
      ...document.querySelectorAll<HTMLScriptElement | HTMLLinkElement>(
        'script[type="module"][src], link[rel="modulepreload"]',
      ),
    ].map((el) => new URL(el instanceof HTMLScriptElement ? el.src : el.href).pathname),
  );
  expect(queue).toEqual([expect.stringMatching(/^\/build\/islands\//)]);
  const seen = new Set<string>();
  for (let file = queue.shift(); file; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const res = await page.request.get(file);
    expect(res.status(), file).toBe(200);
    const code = await res.text();
    const found = (SERVER_ONLY.exec(code) ?? /__remixContext|__remixManifest|X-Remix-/.exec(code))?.[0];
    expect(found, `${file} contains ${found}`).toBeUndefined();
    for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{0,2}\/[^"']+\.js)["']/g))
      queue.push(new URL(m[1], new URL(file, 'http://x')).pathname);
  }
});

/** docs/decisions/006-javascript-budget.md: what a page may load, gzip bytes with its inline scripts. */
const PAGE_BUDGET = 121_000;

test("the agent's inbox and ticket page and the customer's thread stay within the JavaScript budget", async ({
  page,
}) => {
  test.setTimeout(60_000);
  await signInByForm(page, uniqueEmail('budget'));
  const slug = `budget-${randomUUID().slice(0, 8)}`;
  await page.goto('/onboarding');
  await page.getByLabel('Workspace name').fill('Budget');
  await page.getByLabel('Address').fill(slug);
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.waitForURL(`/w/${slug}`);
  await page.goto(`/support/${slug}/new`);
  await page.getByLabel('Subject').fill('How big is this page?');
  await page.getByLabel('Message').fill('Counting bytes.');
  await page.getByRole('button', { name: 'Submit request' }).click();
  await page.waitForURL(/\/requests\/\d+$/);
  const thread = new URL(page.url()).pathname;
  const number = thread.split('/').at(-1);
  const measured: Record<string, number> = {};
  for (const path of [`/w/${slug}`, `/w/${slug}/tickets/${number}`, thread]) {
    const res = await page.request.get(path);
    expect(res.status(), path).toBe(200);
    const js = await pageJavaScript(await res.text(), new URL(res.url()), async (url) => {
      const file = await page.request.get(url.href, { headers: { 'accept-encoding': 'identity' } });
      expect(file.status(), url.pathname).toBe(200);
      return file.body();
    });
    measured[path] = js.total;
    expect(js.total, `${path}: ${js.files.length} files + inline scripts, gzip bytes`).toBeLessThanOrEqual(PAGE_BUDGET);
  }
  await test
    .info()
    .attach('javascript-gzip-bytes', { body: JSON.stringify(measured), contentType: 'application/json' });
});
