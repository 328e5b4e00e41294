// Which functions a project has and what each one runs with, resolved as the Supabase CLI resolves
// them for `functions serve` / `deploy` (docs/reference/storage-functions.md B2; CLI deploy.go, serve.go).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProjectConfig } from '../config.ts';

// CLI utils/misc.go FuncSlugPattern: `_shared` and dot-folders are never functions.
export const SLUG = /^[A-Za-z][A-Za-z0-9_-]*$/;

export interface FunctionDef {
  slug: string;
  /** Absolute path of the entrypoint (index.ts unless config.toml names another). */
  entrypoint: string;
  /** deno.json / deno.jsonc (passed as --config) or an import map (passed as --import-map). */
  config?: { kind: 'config' | 'import-map'; file: string };
  verifyJwt: boolean;
  /**
   * Folders and files the function may read (and so import), besides the npm cache: all of
   * supabase/functions/, which the CLI mounts whole, the import map and the local files it names.
   */
  readable: string[];
}

export const functionsDir = (projectDir: string) => path.join(projectDir, 'supabase', 'functions');

// Without an exception for a missing file: each is an Error with its stack, and the router asks at every call.
const isFile = (p: string) => {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
};

/** The folder a static_files glob starts from (Deno's --allow-read takes paths, not globs). */
const globRoot = (glob: string) => {
  const wild = glob.search(/[*?[{]/);
  return wild < 0 ? glob : path.dirname(glob.slice(0, wild + 1));
};

/** JSON with comments (deno.jsonc): line and block comments outside strings dropped. */
const withoutComments = (text: string) =>
  text.replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_, str: string | undefined) => str ?? '');

/**
 * The local paths an import map or deno.json maps to (`"@lib/": "../../lib/"`), resolved from its
 * folder: the CLI mounts those into the runtime too, wherever they are.
 */
function mappedPaths(file: string): string[] {
  let map: { imports?: Record<string, unknown>; scopes?: Record<string, Record<string, unknown>> };
  try {
    map = JSON.parse(withoutComments(readFileSync(file, 'utf8')));
  } catch {
    return []; // Deno reports a broken map itself, as a boot error
  }
  const targets = [
    ...Object.values(map.imports ?? {}),
    ...Object.values(map.scopes ?? {}).flatMap((scope) => Object.values(scope ?? {})),
  ];
  return targets
    .filter((t): t is string => typeof t === 'string' && /^(\.{1,2}\/|\/|file:)/.test(t))
    .map((t) => (t.startsWith('file:') ? fileURLToPath(t) : path.resolve(path.dirname(file), t)));
}

/** The function a request names, or undefined when the project has none by that name (or it is disabled). */
export function findFunction(projectDir: string, config: ProjectConfig, slug: string): FunctionDef | undefined {
  if (!SLUG.test(slug)) return undefined;
  const root = functionsDir(projectDir);
  const configured = Object.hasOwn(config.functions, slug) ? config.functions[slug] : undefined;
  if (configured && !configured.enabled) return undefined;
  const entrypoint = configured?.entrypoint ?? path.join(root, slug, 'index.ts');
  if (!isFile(entrypoint)) return undefined;
  const dir = path.dirname(entrypoint);
  // CLI GetFunctionConfig: config import_map > deno.json > deno.jsonc > import_map.json > functions/import_map.json.
  const file = [
    configured?.importMap,
    path.join(dir, 'deno.json'),
    path.join(dir, 'deno.jsonc'),
    path.join(dir, 'import_map.json'),
    path.join(root, 'import_map.json'),
  ].find((f) => f && isFile(f));
  // A deno.json(c) is a config file (its "imports" are the map); anything else is a plain import map.
  const kind = file && /deno\.jsonc?$/.test(file) ? 'config' : 'import-map';
  return {
    slug,
    entrypoint,
    config: file ? { kind, file } : undefined,
    verifyJwt: configured?.verifyJwt ?? true,
    readable: [
      root,
      ...new Set(
        [...(file ? [file, ...mappedPaths(file)] : []), ...(configured?.staticFiles ?? []).map(globRoot)].filter(
          (p) => p !== root && !p.startsWith(`${root}${path.sep}`),
        ),
      ),
    ],
  };
}

/**
 * A stamp of everything a running function was started from: supabase/functions/, its import map
 * and what the map names, the env file. It changes when any of them is edited, added or removed, so the next request gets
 * a fresh worker (the CLI restarts edge-runtime on the same changes).
 */
export function fingerprint(def: FunctionDef, envFile: string | undefined): string {
  const parts: string[] = [];
  const visit = (p: string, depth: number) => {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(p, { throwIfNoEntry: false });
    } catch {
      /* unreadable: as missing */
    }
    if (!st) return parts.push(`${p}:-`);
    if (!st.isDirectory()) return parts.push(`${p}:${st.ino}:${st.size}:${st.mtimeMs}`);
    if (depth > 8) return;
    for (const name of readdirSync(p).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      visit(path.join(p, name), depth + 1);
    }
  };
  for (const p of def.readable) visit(p, 0);
  if (envFile) visit(envFile, 0);
  return parts.join('|');
}

/**
 * Variables from a dotenv file, as godotenv reads them for the CLI: `KEY=value`, optional `export `,
 * `#` comments, single quotes literal, double quotes with \n escapes.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*[=:]\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2].trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.lastIndexOf(quote) > 0) {
      value = value.slice(1, value.lastIndexOf(quote));
      if (quote === '"') value = value.replace(/\\([nr"\\])/g, (_, c: string) => ({ n: '\n', r: '\r' })[c] ?? c);
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[m[1]] = value;
  }
  return out;
}

/** The default env file (supabase/functions/.env) or the one given with --env-file, if it exists. */
export function resolveEnvFile(projectDir: string, envFile: string | undefined): string | undefined {
  if (envFile) return path.resolve(envFile);
  const fallback = path.join(functionsDir(projectDir), '.env');
  return existsSync(fallback) ? fallback : undefined;
}

/** The user's secrets: [edge_runtime.secrets] then the env file; names starting SUPABASE_ are skipped, as the CLI does. */
export function userSecrets(
  secrets: Record<string, string>,
  envFile: string | undefined,
  warn: (message: string) => void,
): Record<string, string> {
  const all = { ...secrets };
  if (envFile) {
    if (!existsSync(envFile)) warn(`env file ${envFile} not found`);
    else Object.assign(all, parseEnvFile(readFileSync(envFile, 'utf8')));
  }
  for (const name of Object.keys(all)) {
    if (!name.startsWith('SUPABASE_')) continue;
    warn(`Env name cannot start with SUPABASE_, skipping: ${name}`); // CLI secrets/set.go
    delete all[name];
  }
  return all;
}
