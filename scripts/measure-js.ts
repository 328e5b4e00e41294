// npm run measure:js: gzip bytes of the JavaScript the /login/verify page loads, read from the
// production build's HTML (every <script src> and <link rel="modulepreload">), plus inline scripts.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { startStack } from '../supabase/local/stack.ts';
import { startApp } from './bench-support.ts';

const PAGE = process.argv[2] ?? '/login/verify';

// A private production build served by server.ts (scripts/bench-support.ts) on a fresh stack.
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
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const page = await fetch(new URL(location, base), { headers: { cookie }, redirect: 'manual' });
  if (page.status !== 200) throw new Error(`${location} answered ${page.status}`);
  return page.text();
}

try {
  const html = PAGE === '/login/verify' ? await verifyPageHtml() : await (await fetch(`${base}${PAGE}`)).text();
  const srcs = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) srcs.add(m[1]);
  for (const m of html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) srcs.add(m[1]);
  for (const m of html.matchAll(/<link\b[^>]*href="([^"]+)"[^>]*rel="modulepreload"/g)) srcs.add(m[1]);
  // Dynamic imports in the entry (import("/build/…")) are loaded too.
  for (const m of html.matchAll(/import\(?\s*"(\/build\/[^"]+\.js)"/g)) srcs.add(m[1]);

  const rows = [...srcs].map((src) => {
    const file = path.join(buildDir, 'public', src.replace(/^\//, ''));
    const body = readFileSync(file);
    return { file: src, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length };
  });
  const inline = [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
  rows.sort((a, b) => b.gzip - a.gzip);
  console.table(rows);
  const total = rows.reduce((n, r) => n + r.gzip, 0);
  const raw = rows.reduce((n, r) => n + r.bytes, 0);
  const inlineGz = gzipSync(inline, { level: 9 }).length;
  console.log(`${PAGE}: ${rows.length} JS files, ${raw} bytes raw, ${total} bytes gzip (+ ${inlineGz} bytes gzip of inline scripts, ${total + inlineGz} in all)`);
} finally {
  await app.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
