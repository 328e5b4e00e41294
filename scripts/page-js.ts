// The JavaScript a page loads, as gzip bytes: every <script src> and <link rel="modulepreload"> of the
// document, the modules an island loader adds (a page the same for every reader: islands.server.tsx)
// and what those modules import in turn, fetched from the server, plus its inline scripts;
// apart, what its modules load later on demand (dynamic `import("…")`, e.g. the canned-reply picker on
// its first use). `npm run measure:js` prints it; tests/e2e/bundles.spec.ts holds pages to the budget
// (docs/decisions/006-javascript-budget.md).
import { gzipSync } from 'node:zlib';

type FileSize = { file: string; bytes: number; gzip: number };

export interface PageJavaScript {
  /** Loaded with the page. */
  files: FileSize[];
  /** The inline scripts, gzipped together. */
  inlineGzip: number;
  /** Files loaded with the page and inline scripts, gzip bytes. */
  total: number;
  /** Loaded later, when the page's code asks (with what those import). */
  onDemand: FileSize[];
}

/**
 * The imports of a module (or an inline module script), as URLs on this server: static ones (loaded
 * with the page), or dynamic ones (`import("…")`, loaded when the page's code asks).
 */
function importsOf(code: string, from: URL, kind: 'static' | 'dynamic' = 'static'): URL[] {
  const pattern =
    kind === 'static'
      ? /(?:\bfrom\s*|\bimport\s*)["'](\.{0,2}\/[^"']+\.js)["']/g
      : /\bimport\s*\(\s*["'](\.{0,2}\/[^"']+\.js)["']/g;
  const urls: URL[] = [];
  for (const m of code.matchAll(pattern)) urls.push(new URL(m[1], from));
  return urls.filter((url) => url.origin === from.origin);
}

/** `fetchBytes` gets a file as the production server sends it (uncompressed); gzip here at one fixed level. */
export async function pageJavaScript(
  html: string,
  pageUrl: URL,
  fetchBytes: (url: URL) => Promise<Buffer>,
): Promise<PageJavaScript> {
  const queue: URL[] = [];
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) queue.push(new URL(m[1], pageUrl));
  for (const m of html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g))
    queue.push(new URL(m[1], pageUrl));
  for (const m of html.matchAll(/<link\b[^>]*href="([^"]+)"[^>]*rel="modulepreload"/g))
    queue.push(new URL(m[1], pageUrl));
  for (const m of html.matchAll(/<script\b[^>]*\bdata-island-loader\b[^>]*>([\s\S]*?)<\/script>/g))
    for (const src of m[1].matchAll(/"(\/[^"]+\.js)"/g)) queue.push(new URL(src[1], pageUrl));
  const inlineScripts = [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  for (const code of inlineScripts) queue.push(...importsOf(code, pageUrl));

  const files: FileSize[] = [];
  const onDemand: FileSize[] = [];
  const later: URL[] = [];
  const seen = new Set<string>();
  for (const [list, out] of [
    [queue, files],
    [later, onDemand],
  ] as const) {
    for (let url = list.shift(); url; url = list.shift()) {
      if (seen.has(url.pathname)) continue;
      seen.add(url.pathname);
      const body = await fetchBytes(url);
      out.push({ file: url.pathname, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length });
      const code = body.toString('utf8');
      list.push(...importsOf(code, url));
      later.push(...importsOf(code, url, 'dynamic'));
    }
    out.sort((a, b) => b.gzip - a.gzip);
  }
  const inline = inlineScripts.join('\n');
  const inlineGzip = inline ? gzipSync(inline, { level: 9 }).length : 0;
  return { files, inlineGzip, total: files.reduce((n, f) => n + f.gzip, 0) + inlineGzip, onDemand };
}
