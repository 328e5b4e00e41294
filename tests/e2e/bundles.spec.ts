// Browser bundles carry no server-only code: every route module and shared chunk the manifest lists
// (what any page may load) and the island modules (docs/decisions/006-javascript-budget.md) are
// free of zod (server-side validation, ~90 KB gzip) and of secrets; islands carry no Remix either.
import { expect, requestCode, test, uniqueEmail } from './fixtures.ts';

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
  for (const file of files) {
    const res = await page.request.get(file);
    expect(res.status(), file).toBe(200);
    const found = SERVER_ONLY.exec(await res.text())?.[0];
    expect(found, `${file} contains ${found}`).toBeUndefined();
  }
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
