// Island bundles (docs/decisions/006-javascript-budget.md). Every app/islands/<name>.tsx is bundled
// by esbuild (ESM, minified, NODE_ENV=production) into <assets build dir>/islands/<name>-<hash>.js,
// and islands.json next to the server build tells the server each island's file
// (app/components/islands.server.tsx). Paths follow remix.config.js, so TEND_BUILD_DIR works.
// `npm run build` (scripts/build.ts) runs this after `remix build`, which empties the assets
// build directory; `npm run dev` (scripts/dev.ts) keeps a development build up to date.
// An island that would bundle Remix, zod, Conform or a *.server module fails the build.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import type { IslandManifest } from '../app/components/islands.server.tsx';

const PROJECT_DIR = path.resolve(import.meta.dirname, '..');
const ISLANDS_DIR = path.join(PROJECT_DIR, 'app', 'islands');
// Written next to the server build (not served): the manifest, and esbuild's metafile for measure:js.
export const MANIFEST_FILE = 'islands.json';
export const METAFILE_FILE = 'islands.meta.json';

/** What browser code of an island may not contain (docs/decisions/006-javascript-budget.md). */
const FORBIDDEN: [RegExp, string][] = [
  [/(^|\/)node_modules\/@remix-run\//, 'Remix (an island page has no Remix runtime)'],
  [/(^|\/)node_modules\/zod\//, 'zod (server-side validation)'],
  [/(^|\/)node_modules\/@conform-to\//, 'Conform (server-side)'],
  [/\.server\.[cm]?[jt]sx?$/, 'a server-only module'],
];

type Mode = 'production' | 'development';

export interface IslandPaths {
  outdir: string;
  publicPath: string;
  serverDir: string;
}

async function islandPaths(mode: Mode): Promise<IslandPaths> {
  const config = (await import(pathToFileURL(path.join(PROJECT_DIR, 'remix.config.js')).href)).default as {
    serverBuildPath?: string;
    assetsBuildDirectory?: string;
    publicPath?: string;
  };
  const serverDir = path.dirname(path.resolve(PROJECT_DIR, config.serverBuildPath ?? 'build/index.js'));
  if (mode === 'production') {
    const assets = path.resolve(PROJECT_DIR, config.assetsBuildDirectory ?? 'public/build');
    return { outdir: path.join(assets, 'islands'), publicPath: `${config.publicPath ?? '/build/'}islands/`, serverDir };
  }
  // `remix dev` empties the assets build directory on every rebuild, so development islands live
  // in public/islands/ (git-ignored), which the dev server (server.ts) serves as plain public files.
  return { outdir: path.join(PROJECT_DIR, 'public', 'islands'), publicPath: '/islands/', serverDir };
}

function esbuildOptions(mode: Mode, paths: IslandPaths): esbuild.BuildOptions & { metafile: true } {
  const entryPoints = (existsSync(ISLANDS_DIR) ? readdirSync(ISLANDS_DIR) : [])
    .filter((file) => /\.tsx?$/.test(file))
    .map((file) => path.join(ISLANDS_DIR, file));
  return {
    absWorkingDir: PROJECT_DIR,
    entryPoints,
    outdir: paths.outdir,
    bundle: true,
    format: 'esm',
    // Islands share React through chunks once there are several; the manifest lists each one's imports.
    splitting: true,
    platform: 'browser',
    mainFields: ['browser', 'module', 'main'],
    minify: mode === 'production',
    sourcemap: mode === 'development' ? 'linked' : false,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    define: { 'process.env.NODE_ENV': JSON.stringify(mode) },
    jsx: 'automatic',
    jsxDev: mode !== 'production',
    tsconfig: path.join(PROJECT_DIR, 'tsconfig.json'),
    metafile: true,
    logLevel: 'warning',
  };
}

/** The inputs an island may not bundle, with the reason. */
export function forbiddenInputs(metafile: esbuild.Metafile): string[] {
  const found: string[] = [];
  for (const input of Object.keys(metafile.inputs)) {
    for (const [pattern, what] of FORBIDDEN) if (pattern.test(input)) found.push(`${input}: ${what}`);
  }
  return found;
}

/** Each island's module and the chunks it imports, as URLs, from esbuild's metafile. */
export function manifestOf(metafile: esbuild.Metafile, paths: IslandPaths): IslandManifest {
  const url = (output: string) =>
    paths.publicPath + path.relative(paths.outdir, path.resolve(PROJECT_DIR, output)).split(path.sep).join('/');
  const manifest: IslandManifest = {};
  for (const [output, info] of Object.entries(metafile.outputs)) {
    if (!info.entryPoint) continue;
    const name = path.basename(info.entryPoint).replace(/\.tsx?$/, '');
    const imports = info.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => url(i.path));
    manifest[name] = { src: url(output), imports };
  }
  return manifest;
}

function writeManifest(metafile: esbuild.Metafile, paths: IslandPaths) {
  mkdirSync(paths.serverDir, { recursive: true });
  writeFileSync(path.join(paths.serverDir, METAFILE_FILE), JSON.stringify(metafile));
  writeFileSync(path.join(paths.serverDir, MANIFEST_FILE), `${JSON.stringify(manifestOf(metafile, paths), null, 2)}\n`);
}

/** `npm run build`: the production islands, after `remix build`. */
export async function buildIslands(): Promise<IslandManifest> {
  const paths = await islandPaths('production');
  rmSync(paths.outdir, { recursive: true, force: true });
  const { metafile } = await esbuild.build(esbuildOptions('production', paths));
  const forbidden = forbiddenInputs(metafile);
  if (forbidden.length) throw new Error(`islands bundle what browsers must not get:\n  ${forbidden.join('\n  ')}`);
  writeManifest(metafile, paths);
  return manifestOf(metafile, paths);
}

/**
 * `npm run dev`: development islands, rebuilt whenever a file they import changes (a new island
 * file needs a restart). Each rebuild writes the manifest, which the dev server reads per page,
 * and removes the files of the build before.
 */
export async function watchIslands(): Promise<esbuild.BuildContext> {
  const paths = await islandPaths('development');
  rmSync(paths.outdir, { recursive: true, force: true });
  const options = esbuildOptions('development', paths);
  const context = await esbuild.context({
    ...options,
    plugins: [
      {
        name: 'islands-manifest',
        setup(build) {
          build.onEnd(({ errors, metafile }) => {
            if (errors.length || !metafile) return;
            const forbidden = forbiddenInputs(metafile);
            if (forbidden.length)
              console.error(`[islands] bundling what browsers must not get:\n  ${forbidden.join('\n  ')}`);
            writeManifest(metafile, paths);
            const current = new Set(Object.keys(metafile.outputs).map((output) => path.resolve(PROJECT_DIR, output)));
            for (const file of existsSync(paths.outdir) ? readdirSync(paths.outdir) : []) {
              if (!current.has(path.join(paths.outdir, file))) rmSync(path.join(paths.outdir, file), { force: true });
            }
          });
        },
      },
    ],
  });
  await context.watch();
  return context;
}
