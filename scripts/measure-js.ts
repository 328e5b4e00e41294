// npm run measure:js [page]: gzip bytes of the JavaScript a page loads (default /login/verify; an
// agent's page /w/… is fetched signed in as agent@acme.test, a requester's /support/…/requests/… as
// customer@example.test, from the seed), from the production
// build served by server.ts: every <script src> and <link rel="modulepreload"> of the page and what
// those modules import in turn, fetched from the server, plus inline scripts. For an island module
// (docs/decisions/006-javascript-budget.md) it also prints what it is made of, from esbuild's metafile.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '@tend/supabase-local';
import { signIn, startApp } from './lib/bench.ts';
import { METAFILE_FILE } from './build-islands.ts';
import { pageJavaScript } from './page-js.ts';

const PAGE = process.argv[2] ?? '/login/verify';

// A private production build served by server.ts (scripts/lib/bench.ts) on a fresh stack.
const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-measure-js-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
const app = await startApp(dir, stack, { env: { WEB_CONCURRENCY: '1' } }).catch(async (error) => {
  await stack.stop();
  throw error;
});
const { base, buildDir } = app;

// The verify page is reached the way a user reaches it: POST /login, then follow the redirect.
async function verifyPageHtml(): Promise<string> {
  const email = `measure-${Date.now()}@example.com`;
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    body: new URLSearchParams({ email }),
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`POST /login answered ${res.status}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const page = await fetch(new URL(location, base), { headers: { cookie }, redirect: 'manual' });
  if (page.status !== 200) throw new Error(`${location} answered ${page.status}`);
  return page.text();
}

/**
 * For each island module the page loaded: its minified bytes by package or source file, from
 * esbuild's metafile (raw bytes: gzip compresses the file as a whole, not part by part).
 */
function printIslandBreakdown(files: string[]) {
  const metafileFile = path.join(buildDir, METAFILE_FILE);
  if (!existsSync(metafileFile)) return;
  const metafile = JSON.parse(readFileSync(metafileFile, 'utf8')) as import('esbuild').Metafile;
  for (const [output, info] of Object.entries(metafile.outputs)) {
    const file = files.find((f) => f.endsWith(`/${path.basename(output)}`));
    if (!file || output.endsWith('.map')) continue;
    const parts = new Map<string, number>();
    for (const [input, { bytesInOutput }] of Object.entries(info.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      const key = pkg ?? input;
      parts.set(key, (parts.get(key) ?? 0) + bytesInOutput);
    }
    const rows = [...parts]
      .sort((a, b) => b[1] - a[1])
      .map(([part, bytes]) => ({
        part,
        'bytes in output': bytes,
        share: `${((bytes / info.bytes) * 100).toFixed(1)} %`,
      }));
    console.log(`\n${file} (${info.bytes} bytes raw):`);
    console.table(rows);
  }
}

try {
  const pageUrl = new URL(PAGE, base);
  const as = PAGE.startsWith('/w/')
    ? 'agent@acme.test'
    : /^\/support\/[^/]+\/requests\//.test(PAGE)
      ? 'customer@example.test'
      : null;
  const cookie = as ? await signIn(base, stack.mailUrl, as) : '';
  const html =
    PAGE === '/login/verify'
      ? await verifyPageHtml()
      : await (await fetch(pageUrl, { headers: { cookie }, redirect: 'error' })).text();
  const {
    files: rows,
    inlineGzip: inlineGz,
    onDemand: lazyRows,
  } = await pageJavaScript(html, pageUrl, async (url) => {
    const res = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
    if (!res.ok) throw new Error(`${url.pathname} answered ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  });
  console.table(rows);
  const total = rows.reduce((n, r) => n + r.gzip, 0);
  const raw = rows.reduce((n, r) => n + r.bytes, 0);
  printIslandBreakdown(rows.map((r) => r.file));
  console.log(
    `${PAGE}: ${rows.length} JS files, ${raw} bytes raw, ${total} bytes gzip (+ ${inlineGz} bytes gzip of inline scripts, ${total + inlineGz} in all)`,
  );
  if (lazyRows.length) {
    console.table(lazyRows);
    const lazy = lazyRows.reduce((n, r) => n + r.gzip, 0);
    console.log(`loaded on demand, not with the page: ${lazyRows.length} JS files, ${lazy} bytes gzip`);
  }
} finally {
  await app.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
