// npm run measure:js: gzip bytes of the JavaScript the /login/verify page loads, read from the
// production build's HTML (every <script src> and <link rel="modulepreload">), plus inline scripts.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import { freePort, PROJECT_DIR, startStack } from '../supabase/local/stack.ts';

const bin = (name: string) => path.join(PROJECT_DIR, 'node_modules', '.bin', name);
const PAGE = process.argv[2] ?? '/login/verify';


// The verify page is reached the way a user reaches it: POST /login, then follow the redirect.
const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-measure-js-'));
chmodSync(dir, 0o755);
const buildDir = path.join(dir, 'app'); // private production build (TEND_BUILD_DIR in remix.config.js)
prepareBuildDir(buildDir);
const build = spawnSync(bin('remix'), ['build'], { cwd: PROJECT_DIR, stdio: 'inherit', env: { ...process.env, TEND_BUILD_DIR: buildDir } });
if (build.status !== 0) process.exit(1);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const app = spawn(bin('remix-serve'), [path.join(buildDir, 'index.js')], {
  cwd: PROJECT_DIR,
  env: { ...process.env, NODE_ENV: 'production', PORT: String(port), SUPABASE_URL: stack.apiUrl, SUPABASE_ANON_KEY: stack.anonKey },
  stdio: ['ignore', 'ignore', 'inherit'],
});

async function verifyPageHtml(): Promise<string> {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/login`)).ok) break;
    } catch {}
    if (i > 300) throw new Error('app did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
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
  console.log(`${PAGE}: ${rows.length} JS files, ${raw} bytes raw, ${total} bytes gzip (+ ${inlineGz} bytes gzip of inline scripts)`);
} finally {
  if (app.exitCode === null) {
    const exited = new Promise((r) => app.once('exit', r));
    app.kill('SIGTERM');
    await exited;
  }
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** A private build dir outside the checkout still resolves the project's packages as ESM. */
function prepareBuildDir(buildDir: string) {
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(path.join(buildDir, 'package.json'), '{ "type": "module" }\n');
  if (!existsSync(path.join(buildDir, 'node_modules'))) symlinkSync(path.join(PROJECT_DIR, 'node_modules'), path.join(buildDir, 'node_modules'), 'dir');
}
