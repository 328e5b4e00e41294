// `functions new <name>` and the log side of `functions serve` (CLI internal/functions/{new,serve}).
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { functionsDir, SLUG } from '../functions/project.ts';

export class FunctionNameError extends Error {}

// The CLI's utils.ValidateFunctionSlug message.
const INVALID_SLUG =
  'Invalid Function name. Must start with at least one letter, and only include alphanumeric characters, underscores, and hyphens. (^[A-Za-z][A-Za-z0-9_-]*$)';

const entrypoint = (slug: string) => `// supabase/functions/${slug}: served at /functions/v1/${slug} (Deno).
Deno.serve(async (req) => {
  const { name } = await req.json().catch(() => ({ name: 'world' }));
  return Response.json({ message: \`Hello \${name}!\` });
});
`;

/**
 * Creates supabase/functions/<slug>/index.ts and deno.json, and declares `[functions.<slug>]` in
 * config.toml unless it is there (verify_jwt on: the CLI's default "user" auth mode). Returns the folder.
 */
export function newFunction(projectDir: string, slug: string): { dir: string; configured: boolean } {
  if (!SLUG.test(slug)) throw new FunctionNameError(INVALID_SLUG);
  const dir = path.join(functionsDir(projectDir), slug);
  if (existsSync(path.join(dir, 'index.ts'))) throw new FunctionNameError(`${dir}/index.ts already exists`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'index.ts'), entrypoint(slug));
  writeFileSync(path.join(dir, 'deno.json'), '{\n  "imports": {}\n}\n');
  const config = path.join(projectDir, 'supabase', 'config.toml');
  const declared =
    existsSync(config) && new RegExp(`^\\[functions\\.${slug}\\]`, 'm').test(readFileSync(config, 'utf8'));
  if (!declared)
    appendFileSync(
      config,
      `\n[functions.${slug}]\nenabled = true\nverify_jwt = true\nimport_map = "./functions/${slug}/deno.json"\nentrypoint = "./functions/${slug}/index.ts"\n`,
    );
  return { dir, configured: !declared };
}

/** The functions a project has (folders with an index.ts), for `functions serve` to list. */
export function functionSlugs(projectDir: string): string[] {
  const root = functionsDir(projectDir);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => SLUG.test(d) && existsSync(path.join(root, d, 'index.ts')))
    .sort();
}

/**
 * Follows the function logs of a running stack (<data dir>/logs/functions/<slug>.log) from their
 * current end, each line prefixed with its function, until `signal` aborts.
 */
export async function followFunctionLogs(dataDir: string, print: (line: string) => void, signal: AbortSignal) {
  const dir = path.join(dataDir, 'logs', 'functions');
  const offsets = new Map<string, number>();
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  };
  const files = () => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.log')) : []);
  for (const f of files()) offsets.set(f, size(path.join(dir, f)));
  while (!signal.aborted) {
    for (const f of files()) {
      const file = path.join(dir, f);
      const from = offsets.get(f) ?? 0;
      const to = size(file);
      if (to <= from) continue;
      const text = readFileSync(file).subarray(from, to).toString('utf8');
      const end = text.lastIndexOf('\n') + 1;
      for (const line of text.slice(0, end).split('\n').filter(Boolean)) print(`${f.slice(0, -4)}: ${line}`);
      offsets.set(f, from + Buffer.byteLength(text.slice(0, end)));
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
