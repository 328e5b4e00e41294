// npm run build: `remix build`, then the island bundles (scripts/build-islands.ts), in that order
// because `remix build` empties the assets build directory. TEND_BUILD_DIR as in remix.config.js;
// the e2e global setup and the benchmarks build through this too.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIslands } from './build-islands.ts';

const PROJECT_DIR = path.resolve(import.meta.dirname, '..');

const remix = spawnSync(path.join(PROJECT_DIR, 'node_modules', '.bin', 'remix'), ['build'], {
  cwd: PROJECT_DIR,
  stdio: 'inherit',
});
if (remix.status !== 0) process.exit(remix.status ?? 1);
await linkLegalComments();
const manifest = await buildIslands();
for (const [name, { src }] of Object.entries(manifest)) console.log(`[islands] ${name} → ${src}`);

/**
 * esbuild (inside `remix build`) ends the shared React/Remix chunk with ~7 KB of its packages' license
 * comments, 0.55 KB gzip on every page. They move to a file beside the chunk, named in a one-line
 * comment where they were: what esbuild's `legalComments: 'linked'` does, which the classic compiler
 * doesn't let us set (docs/decisions/006-javascript-budget.md).
 */
async function linkLegalComments() {
  const config = (await import(pathToFileURL(path.join(PROJECT_DIR, 'remix.config.js')).href)).default as {
    assetsBuildDirectory?: string;
  };
  const assets = path.resolve(PROJECT_DIR, config.assetsBuildDirectory ?? 'public/build');
  const MARK = '/*! Bundled license information:';
  for (const file of readdirSync(assets, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.js')) continue;
    const code = readFileSync(path.join(assets, file), 'utf8');
    const start = code.lastIndexOf(MARK);
    if (start < 0) continue;
    const end = code.indexOf('*/', start) + 2;
    const legal = `${path.basename(file)}.LEGAL.txt`;
    writeFileSync(path.join(assets, `${file}.LEGAL.txt`), code.slice(start, end));
    writeFileSync(path.join(assets, file), `${code.slice(0, start)}/*! Licenses: ${legal} */${code.slice(end)}`);
  }
}
