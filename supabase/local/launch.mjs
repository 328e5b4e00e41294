// The CLI's entry point (`npm run stack`, STACK_CLI): runs cli.ts as one prebuilt JavaScript file
// instead of through tsx. tsx transpiles and resolves each of the CLI's ~100 modules at every start
// (~1 s of a 2 s warm start); the prebuilt file, with V8's compile cache beside it, loads in a tenth
// of that (docs/decisions/050-faster-stack-start.md). Plain JavaScript, so Node runs it without a loader.
//
// The build is remade when any file it came from changed (sizes and mtimes, ~1 ms to check); it lives
// in node_modules/.cache/supabase-local, or SUPABASE_LOCAL_CACHE. If it can't be built or stored
// (a read-only checkout), the CLI runs through tsx as before.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const entry = path.join(here, 'cli.ts');
const cacheDir = path.resolve(
  process.env.SUPABASE_LOCAL_CACHE ?? path.join(here, '..', '..', 'node_modules', '.cache', 'supabase-local'),
);
const buildDir = path.join(cacheDir, 'cli');
const manifestFile = path.join(buildDir, 'inputs.json');

/** Each input's size and mtime (whole milliseconds, what a Date keeps), as recorded when the build was made. */
const stamp = (file) => {
  const s = statSync(file);
  return `${s.size}:${Math.floor(s.mtimeMs)}`;
};

function fresh() {
  try {
    const { inputs } = JSON.parse(readFileSync(manifestFile, 'utf8'));
    return Object.entries(inputs).every(([file, recorded]) => stamp(file) === recorded);
  } catch {
    return false; // no build yet, or an input is gone
  }
}

async function build() {
  const { build } = await import('esbuild');
  const mine = `${buildDir}.tmp-${Date.now()}-${process.pid}`;
  const result = await build({
    entryPoints: [entry],
    outdir: mine,
    bundle: true,
    splitting: true, // the stack and the schema tools stay separate chunks, loaded by the commands that use them
    format: 'esm',
    platform: 'node',
    target: 'node20',
    metafile: true,
    logLevel: 'error',
    plugins: [keepLocations],
  });
  const inputs = {};
  for (const file of Object.keys(result.metafile.inputs)) {
    const abs = path.resolve(file);
    if (!abs.includes(`${path.sep}node_modules${path.sep}`)) inputs[abs] = stamp(abs);
  }
  writeFileSync(path.join(mine, 'inputs.json'), JSON.stringify({ inputs }));
  install(mine);
}

/**
 * Puts a finished build in place. CLIs started at once (parallel tests) each build into a directory
 * of their own and rename it into place, so none loads half a build; a stale build is renamed aside,
 * not deleted, as a CLI started from it may still load its chunks, and removed a minute later.
 */
function install(mine) {
  for (const name of readdirSync(cacheDir)) {
    const old = /^cli\.(old|tmp)-(\d+)-/.exec(name);
    if (old && Date.now() - Number(old[2]) > 60_000)
      rmSync(path.join(cacheDir, name), { recursive: true, force: true });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      renameSync(mine, buildDir);
      return;
    } catch (err) {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    }
    if (fresh() || attempt === 3) {
      rmSync(mine, { recursive: true, force: true }); // another CLI put a current build in place meanwhile
      return;
    }
    try {
      renameSync(buildDir, `${buildDir}.old-${Date.now()}-${process.pid}`);
    } catch {
      /* another CLI set it aside first */
    }
  }
}

/**
 * The bundle keeps every module's own location: `import.meta.url` is the source file's (modules
 * find their SQL, Deno runtime and workers beside them), and packages are imported from where the
 * source would import them, by absolute path, so neither depends on where the build is stored.
 */
const keepLocations = {
  name: 'keep-locations',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'resolving' || args.path.startsWith('node:')) return undefined;
      const r = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'resolving',
      });
      if (r.errors.length) return { errors: r.errors };
      // Our own workspace package is bundled; everything from node_modules is loaded as it is.
      if (!r.path.includes(`${path.sep}node_modules${path.sep}`)) return r;
      return { path: pathToFileURL(r.path).href, external: true };
    });
    b.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: 'ts',
    }));
  },
};

let built = fresh();
if (!built) {
  try {
    mkdirSync(cacheDir, { recursive: true });
    await build();
    built = true;
  } catch (err) {
    console.error(`[stack] could not prebuild the CLI (${err.message}); running it through tsx`);
  }
}
if (built) {
  module.enableCompileCache?.(path.join(cacheDir, 'v8'));
  await import(pathToFileURL(path.join(buildDir, 'cli.js')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(entry).href);
}
