// Browser bundles carry no server-only code: every route module and shared chunk the manifest lists
// (what any page may load) is free of zod (server-side validation, ~90 KB gzip) and of secrets.
import { expect, test } from './fixtures.ts';

test('no route module or chunk sent to browsers contains zod or a server secret', async ({ page }) => {
  await page.goto('/login');
  const files = await page.evaluate(() => {
    type Manifest = { entry: { module: string; imports?: string[] }; routes: Record<string, { module: string; imports?: string[] }> };
    const m = (window as unknown as { __remixManifest: Manifest }).__remixManifest;
    const all = new Set<string>([m.entry.module, ...(m.entry.imports ?? [])]);
    for (const r of Object.values(m.routes)) for (const f of [r.module, ...(r.imports ?? [])]) all.add(f);
    return [...all];
  });
  expect(files.length).toBeGreaterThan(10);
  for (const file of files) {
    const res = await page.request.get(file);
    expect(res.status(), file).toBe(200);
    const found = /ZodError|\$ZodType|SUPABASE_SERVICE_ROLE_KEY|SESSION_SECRET/.exec(await res.text())?.[0];
    expect(found, `${file} contains ${found}`).toBeUndefined();
  }
});
