// Citations can't go stale: every decision record cited in code comments and docs names one that
// exists (by its file name, which says what it decided, so a wrong number is caught too), and every
// file or folder of this repository cited there exists, and every subsection of docs/product.md cited by its
// heading's anchor (docs/product.md#tags) has that heading. Landed migrations are history and are left
// as they are; docs/reference/ and the local stack cite upstream's own files, so only paths from
// this repository's top folders are checked there.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..', '..');
const SKIP_DIRS = new Set(['node_modules', '.git', 'build', '.supabase-local', 'test-results', 'playwright-report']);
const TEXT = /\.(ts|tsx|js|mjs|cjs|sql|md|toml|html)$/;

/** Every text file of the repository, relative to its root (landed migrations and generated types left out). */
function repoFiles(dir = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && rel !== 'public/build' && rel !== 'supabase/migrations')
        out.push(...repoFiles(rel));
    } else out.push(rel);
  }
  return out;
}

const files = repoFiles();
const basenames = new Set(files.map((f) => path.basename(f)));
const decisions = new Set(readdirSync(path.join(ROOT, 'docs', 'decisions')));

/** Paths .gitignore names (made at run time: builds, secrets, data) may be cited without existing. */
const ignored = readFileSync(path.join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
function isIgnored(rel: string): boolean {
  return ignored.some((pattern) => {
    const dirPattern = pattern.replace(/\/$/, '');
    if (pattern.startsWith('/')) return `/${rel}/`.startsWith(`${dirPattern}/`);
    if (pattern.startsWith('*')) return rel.endsWith(pattern.slice(1));
    return rel.split('/').includes(dirPattern);
  });
}

/** File names cited as upstream's or as examples, not this repository's. */
const NOT_OURS = new Set([
  'actions.ts', // @remix-run/server-runtime
  'storage.ts', // storage-api's src/storage/
  'uploader.ts', // storage-api's src/storage/
  'vite.config.ts', // a Vite project's
  'pg_net--0.20.0.sql', // written into Postgres's extension folder at start
  'pg_cron--1.6.sql', // the same
  'file.ts', // a stack frame's, in an example
]);

/** The comments of a source file, line by line (empty where a line has none); a Markdown file is all prose. */
function prose(file: string, text: string): string[] {
  const lines = text.split('\n');
  if (file.endsWith('.md')) return lines;
  let inBlock = false;
  return lines.map((line) => {
    if (file.endsWith('.sql')) return /--(.*)$/.exec(line.replace(/'[^']*'/g, "''"))?.[1] ?? '';
    if (file.endsWith('.toml')) return /#(.*)$/.exec(line.replace(/"[^"]*"/g, '""'))?.[1] ?? '';
    if (file.endsWith('.html')) return /<!--(.*?)(?:-->|$)/.exec(line)?.[1] ?? '';
    if (inBlock) {
      const end = line.indexOf('*/');
      if (end >= 0) inBlock = false;
      return end >= 0 ? line.slice(0, end) : line;
    }
    // String literals hold no comments (and a URL's `//` is not one).
    const code = line.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '""');
    const slash = code.search(/(?<![:\\])\/\/(?!\/)/);
    const star = code.indexOf('/*');
    if (star >= 0 && (slash < 0 || star < slash)) {
      const end = code.indexOf('*/', star + 2);
      if (end < 0) inBlock = true;
      return end < 0 ? code.slice(star + 2) : code.slice(star + 2, end);
    }
    return slash >= 0 ? code.slice(slash + 2) : '';
  });
}

/** A Markdown file's headings as GitHub anchors them: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, title] of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

interface Citation {
  where: string;
  cited: string;
}

const adrNames: Citation[] = [];
const adrNumbers: Citation[] = [];
const repoPaths: Citation[] = [];
const fileNames: Citation[] = [];
const sections: Citation[] = [];
const productAnchors: Citation[] = [];
const numberedProduct: Citation[] = [];

const OUR_TOP =
  /^(?:app|docs|scripts|tests|patches|public|supabase\/(?:local|functions|schemas|templates|seed\.sql|config\.toml))(?:\/|$)/;
const PLACEHOLDER = /[<>*{}…]|NNN/;

for (const file of files.filter((f) => TEXT.test(f))) {
  const upstreamNames = file.startsWith('supabase/local/');
  // A fixture project's paths are relative to that project; docs/reference/ cites upstream's folders.
  const otherTree = file.startsWith('tests/fixtures/') || file.startsWith('docs/reference/');
  prose(file, readFileSync(path.join(ROOT, file), 'utf8')).forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    for (const m of line.matchAll(/\b(\d{3}-[a-z0-9-]+)\.md\b/g)) adrNames.push({ where, cited: `${m[1]}.md` });
    for (const m of line.matchAll(/\b(?:ADRs?|[Dd]ecision)\s+(\d{3})\b/g)) adrNumbers.push({ where, cited: m[0] });
    for (const m of line.matchAll(/\b(README|docs\/[\w/-]+\.md) "([^"]+)"/g))
      sections.push({ where, cited: `${m[1] === 'README' ? 'README.md' : m[1]} "${m[2]}"` });
    for (const m of line.matchAll(/docs\/product\.md#([\w-]+)/g)) productAnchors.push({ where, cited: m[1] });
    if (file === 'docs/product.md')
      for (const m of line.matchAll(/\]\(#([\w-]+)\)/g)) productAnchors.push({ where, cited: m[1] });
    // §2's subsections are cited by anchor, not by number; another file's §2.x (docs/reference/remix-ssr.md §2.4) is its own.
    for (const m of line.matchAll(/§ ?2\.\d/g)) {
      const other = /([\w-]+\.md) $/.exec(line.slice(0, m.index))?.[1];
      if (other ? other === 'product.md' : !file.startsWith('docs/reference/'))
        numberedProduct.push({ where, cited: m[0] });
    }
    if (otherTree) return;
    for (const m of line.matchAll(/(?<![\w.~@$/-])(~\/|\/)?([\w$.[\]+-]+(?:\/[\w$.[\]+<>*{}…-]*)*)/g)) {
      let cited = m[2].replace(/[.,:]+$/, '');
      if (m[1] === '~/') cited = `app/${cited}`;
      else if (m[1] === '/') continue; // a URL path
      if (cited.includes('/')) {
        if (!OUR_TOP.test(cited)) continue; // upstream's, or a URL
        // A pattern (`supabase/schemas/*.sql`, `docs/decisions/NNN-title.md`): its folder must exist.
        const segments = cited.split('/');
        const fixed = segments.slice(0, segments.findIndex((s) => PLACEHOLDER.test(s)) >>> 0).join('/');
        repoPaths.push({ where, cited: PLACEHOLDER.test(cited) ? fixed : cited.replace(/\/$/, '') });
      } else if (!upstreamNames && /^[^.].*\.(?:tsx?|sql|mjs|cjs|toml)$/.test(cited) && !/^\d{3}-/.test(cited)) {
        fileNames.push({ where, cited });
      }
    }
  });
}

describe('citations', () => {
  it('are found (the scan reads what it should)', () => {
    expect(adrNames.length).toBeGreaterThan(100);
    expect(repoPaths.length).toBeGreaterThan(300);
    expect(fileNames.length).toBeGreaterThan(20);
  });

  it('name decision records that exist, by their file name', () => {
    expect(adrNames.filter((c) => !decisions.has(c.cited))).toEqual([]);
  });

  it('cite a decision by its file name, never by its number alone ("docs/decisions/NNN-title.md" says which was meant)', () => {
    expect(adrNumbers).toEqual([]);
  });

  it("name this repository's files and folders that exist", () => {
    expect(repoPaths.filter((c) => !existsSync(path.join(ROOT, c.cited)) && !isIgnored(c.cited))).toEqual([]);
  });

  it('name sections of the README and the docs that exist (README "Email": a heading that starts so)', () => {
    expect(sections.length).toBeGreaterThan(5);
    const missing = sections.filter(({ cited }) => {
      const [, file, title] = /^(\S+) "(.*)"$/.exec(cited)!;
      const text = existsSync(path.join(ROOT, file)) ? readFileSync(path.join(ROOT, file), 'utf8') : '';
      return !text.split('\n').some((l) => /^#+ /.test(l) && l.replace(/^#+ /, '').startsWith(title));
    });
    expect(missing).toEqual([]);
  });

  it("name docs/product.md's headings by their anchor (GitHub's: docs/product.md#tags; [Tags](#tags) inside it)", () => {
    expect(productAnchors.length).toBeGreaterThan(150);
    const anchors = headingAnchors(readFileSync(path.join(ROOT, 'docs', 'product.md'), 'utf8'));
    expect(productAnchors.filter((c) => !anchors.has(c.cited))).toEqual([]);
  });

  it("cite §2's subsections by anchor, never by a number (docs/product.md §2.4 went stale)", () => {
    expect(numberedProduct).toEqual([]);
  });

  it('name files, even without their folder, that exist somewhere in the repository', () => {
    expect(fileNames.filter((c) => !basenames.has(c.cited) && !NOT_OURS.has(c.cited))).toEqual([]);
  });
});

describe('decision records', () => {
  it('each say under their title whether they stand: "Status: accepted" or "Status: superseded by NNN-title.md"', () => {
    const missing = [...decisions].filter((name) => {
      const text = readFileSync(path.join(ROOT, 'docs', 'decisions', name), 'utf8');
      const status = /^Status: (accepted|superseded by (\d{3}-[a-z0-9-]+\.md))\b/m.exec(text);
      return !status || (status[2] !== undefined && !decisions.has(status[2]));
    });
    expect(missing).toEqual([]);
  });
});
