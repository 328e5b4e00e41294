// A signed-out reader's help page is the same bytes for everyone, sent from memory
// (docs/decisions/072-help-pages-sent-from-memory.md): no nonce and no request id in it, its island
// allowed by the hash of its loader, a strong ETag and a 304 for a browser that has it, compressed once;
// still a request id per response, the views counted for every reader, an edit seen within the check,
// a signed-in member's page their own; and the CSP still blocks what is injected into it.
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { env, expect, newContext, newWorkspace, serviceRest, test } from './fixtures.ts';

const SOON = { timeout: 5_000, intervals: [100, 200, 250] };

test.setTimeout(120_000);

/** A workspace with one published article; its page's path. */
async function article(browser: Parameters<typeof newContext>[0], label: string) {
  const { context: adminContext, page: admin } = await newContext(browser);
  const slug = await newWorkspace(admin, { label });
  const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
  const tag = randomUUID().slice(0, 6);
  const [row] = await serviceRest('help_articles', {
    method: 'POST',
    body: JSON.stringify({
      workspace_id: workspace.id,
      title: `Change your card ${tag}`,
      // Long enough to be worth compressing.
      body: `Open the billing settings. ${'Then choose a new card and save it. '.repeat(60)}`,
      status: 'published',
    }),
  });
  return { adminContext, admin, id: row.id as number, path: `/support/${slug}/help/articles/${row.id}-${row.slug}` };
}

/** GET `path` with exactly these headers (no client decompression), the body as sent. */
function rawGet(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get(new URL(path, env.baseURL), { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

test('the same bytes for every signed-out reader: hashed CSP, ETag and 304, compressed once, a request id each, every view counted, an edit seen', async ({
  browser,
}) => {
  const { adminContext, admin, id, path } = await article(browser, 'help-documents');
  const reader = { 'X-Forwarded-For': '10.250.0.1' };
  // Each GET of the page by a signed-out reader is a view.
  let gets = 0;
  const get = (headers: Record<string, string> = {}) => {
    gets += 1;
    return rawGet(path, { ...reader, ...headers });
  };
  const first = await get();
  const second = await get();
  expect([first.status, second.status]).toEqual([200, 200]);
  expect(second.body.equals(first.body)).toBe(true);
  const html = first.body.toString();
  expect(html).toContain('Open the billing settings.');
  expect(html).not.toContain('nonce=');
  expect(html).not.toContain('tend-request-id');
  for (const res of [first, second]) {
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const csp = res.headers['content-security-policy']!;
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*' 'strict-dynamic';/);
    expect(csp).not.toContain('nonce-');
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(res.headers['cache-control']).toBe('private, no-cache');
  }
  expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  // The island is loaded by the one inline script, which the CSP allows by its hash.
  const loader = /<script data-island-loader="">([^<]*)<\/script>/.exec(html)![1]!;
  expect(second.headers['content-security-policy']).toContain(
    `'sha256-${createHash('sha256').update(loader).digest('base64')}'`,
  );
  expect(html.match(/<script\b/g)).toHaveLength(1);

  // A browser that has the page revalidates it: 304, no body, a request id of its own.
  const etag = second.headers.etag!;
  expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
  const again = await get({ 'If-None-Match': etag });
  expect(again.status).toBe(304);
  expect(again.body.length).toBe(0);
  expect(again.headers.etag).toBe(etag);
  expect(again.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
  expect(again.headers['content-security-policy']).toBe(second.headers['content-security-policy']);

  // Compressed once, then the same bytes each time, with an ETag of their own.
  await expect.poll(async () => (await get({ 'Accept-Encoding': 'br' })).headers['content-encoding'], SOON).toBe('br');
  const brotli = await get({ 'Accept-Encoding': 'gzip, deflate, br' });
  expect(brotliDecompressSync(brotli.body).equals(first.body)).toBe(true);
  expect(brotli.headers.etag).toBe(etag.replace(/"$/, '-br"'));
  expect(brotli.headers.vary).toContain('Accept-Encoding');
  await expect
    .poll(async () => (await get({ 'Accept-Encoding': 'gzip' })).headers['content-encoding'], SOON)
    .toBe('gzip');
  const gzipped = await get({ 'Accept-Encoding': 'gzip' });
  expect(gunzipSync(gzipped.body).equals(first.body)).toBe(true);
  expect((await get({ 'If-None-Match': gzipped.headers.etag! })).status).toBe(304);

  // Every GET was a reading, each 304 too (the reader saw the page again), exactly once; a HEAD is none.
  expect((await rawHead(path)).status).toBe(200);
  const views = async () =>
    (await serviceRest(`help_article_views?article_id=eq.${id}&select=views`)).reduce(
      (n: number, r: { views: number }) => n + r.views,
      0,
    );
  await expect.poll(views, SOON).toBe(gets);

  // A signed-in member's page is their own: a nonce of this response, never the kept bytes.
  const member = await admin.request.get(path);
  expect(member.headers()['content-security-policy']).toMatch(/'nonce-[^']+'/);
  expect(await member.text()).toContain(`nonce="`);

  // An edit: within the check the reader gets the new page and a new ETag; the old one is no match.
  await serviceRest(`help_articles?id=eq.${id}`, {
    method: 'PATCH',
    body: JSON.stringify({ body: 'Open the wallet page.' }),
  });
  await expect.poll(async () => (await get()).body.toString(), SOON).toContain('Open the wallet page.');
  const edited = await get({ 'If-None-Match': etag });
  expect(edited.status).toBe(200);
  expect(edited.headers.etag).not.toBe(etag);
  await adminContext.close();
});

function rawHead(path: string) {
  return new Promise<{ status: number }>((resolve, reject) => {
    http
      .request(new URL(path, env.baseURL), { method: 'HEAD' }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode! }));
      })
      .on('error', reject)
      .end();
  });
}

test('the CSP of a page the same for every reader runs its island and blocks scripts injected into it', async ({
  browser,
}) => {
  const { adminContext, path } = await article(browser, 'help-csp');
  const { context, page } = await newContext(browser);
  // What an attacker's markup would be, had it got into the page: an inline script, and a script of our
  // own origin without the (absent) nonce; the page's headers, CSP included, stay the server's.
  await page.route(`**${path}`, async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const response = await route.fetch();
    const body = (await response.text()).replace(
      '</body>',
      '<script>window.injected = "inline"</script><script src="/favicon.svg"></script></body>',
    );
    await route.fulfill({ response, body });
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const response = await page.goto(path);
  expect(response!.headers()['content-security-policy']).toContain("'strict-dynamic'");
  // The island runs: the vote is sent in place, the reader stays on the page.
  await page.getByRole('button', { name: 'Yes' }).click();
  await expect(page.getByText('Thanks for your feedback.')).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`${path}$`));
  expect(await page.evaluate(() => (window as unknown as { injected?: string }).injected)).toBeUndefined();
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { violations: string[] }).violations.sort()))
    .toEqual([`script-src-elem ${new URL('/favicon.svg', env.baseURL)}`, 'script-src-elem inline']);
  await Promise.all([context.close(), adminContext.close()]);
});
