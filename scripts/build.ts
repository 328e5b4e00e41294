// npm run build: `remix build`, then the island bundles (scripts/build-islands.ts), in that order
// because `remix build` empties the assets build directory. TEND_BUILD_DIR as in remix.config.js;
// the e2e global setup and the benchmarks build through this too.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { buildIslands } from './build-islands.ts';

const PROJECT_DIR = path.resolve(import.meta.dirname, '..');

const remix = spawnSync(path.join(PROJECT_DIR, 'node_modules', '.bin', 'remix'), ['build'], {
  cwd: PROJECT_DIR,
  stdio: 'inherit',
});
if (remix.status !== 0) process.exit(remix.status ?? 1);
const manifest = await buildIslands();
for (const [name, { src }] of Object.entries(manifest)) console.log(`[islands] ${name} → ${src}`);
