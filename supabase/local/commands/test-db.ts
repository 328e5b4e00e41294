// `test db [path…]`: pgTAP files (*.sql, *.pg under supabase/tests) against the local database, as
// the Supabase CLI runs them (internal/db/test/test.go; docs/reference/supabase-fidelity.md §8.4):
// pgTAP created in `extensions` for the run (and dropped after, if the run created it), each file
// on its own connection as postgres, its TAP read as pg_prove reads it.
//
// pgTAP comes with the stack (extensions.ts provideExtensions, from PGlite's npm package).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createClient } from '../connections.ts';
import { withClient } from '../postgres.ts';

export interface FileResult {
  file: string;
  planned?: number;
  passed: number;
  failed: string[];
  /** Lines after a failure: pgTAP's diagnostics (# Failed test …). */
  diagnostics: string[];
  error?: string;
}

/** Reads TAP as pg_prove does: the plan, `ok`/`not ok` lines (TODO and SKIP pass), `#` diagnostics. */
export function readTap(file: string, lines: string[]): FileResult {
  const r: FileResult = { file, passed: 0, failed: [], diagnostics: [] };
  for (const line of lines) {
    const plan = /^1\.\.(\d+)/.exec(line);
    if (plan) r.planned = Number(plan[1]);
    else if (/^not ok\b/.test(line) && !/#\s*(TODO|SKIP)\b/i.test(line)) r.failed.push(line);
    else if (/^(not )?ok\b/.test(line)) r.passed++;
    else if (line.startsWith('#')) r.diagnostics.push(line);
  }
  return r;
}

export const fileFailed = (r: FileResult) =>
  Boolean(r.error) || r.failed.length > 0 || r.planned === undefined || r.planned !== r.passed + r.failed.length;

/** pg_prove's report: a line per file, the failures' TAP, then the totals and PASS or FAIL. */
export function report(results: FileResult[]): string {
  const width = Math.max(0, ...results.map((r) => r.file.length)) + 3;
  const out: string[] = [];
  for (const r of results) {
    const name = `${r.file} ${'.'.repeat(width - r.file.length)} `;
    if (!fileFailed(r)) {
      out.push(`${name}ok`);
      continue;
    }
    out.push(name.trimEnd());
    out.push(...r.failed, ...r.diagnostics);
    if (r.error) out.push(`# ${r.error}`);
    else if (r.planned === undefined) out.push('# No plan found in TAP output');
    else if (r.planned !== r.passed + r.failed.length)
      out.push(`# Looks like you planned ${r.planned} tests but ran ${r.passed + r.failed.length}.`);
    if (r.failed.length) out.push(`Failed ${r.failed.length}/${r.passed + r.failed.length} subtests`);
  }
  const tests = results.reduce((n, r) => n + r.passed + r.failed.length, 0);
  const failing = results.filter(fileFailed);
  out.push(`Files=${results.length}, Tests=${tests}`);
  out.push(`Result: ${failing.length || !results.length ? 'FAIL' : 'PASS'}`);
  return out.join('\n');
}

// psql display settings pgTAP files often start with; anything else psql-only can't run here.
const PSQL_DISPLAY = /^\s*\\(set|unset|pset|timing|echo|qecho|x)\b.*$/gm;

/** Runs one file on its own connection and reads what it printed. */
async function runFile(dbUrl: string, file: string, shown: string): Promise<FileResult> {
  const sql = readFileSync(file, 'utf8').replace(PSQL_DISPLAY, '');
  const meta = /^\s*\\\S+/m.exec(sql);
  if (meta) return { ...readTap(shown, []), error: `psql meta-command ${meta[0].trim()} is not supported` };
  const client = createClient({ connectionString: dbUrl });
  const lines: string[] = [];
  try {
    await client.connect();
    const results = await client.query(sql);
    for (const result of Array.isArray(results) ? results : [results])
      for (const row of result.rows ?? []) {
        const values = Object.values(row as object);
        if (values.length === 1 && typeof values[0] === 'string') lines.push(...values[0].split('\n'));
      }
    return readTap(shown, lines);
  } catch (err) {
    return { ...readTap(shown, lines), error: (err as Error).message };
  } finally {
    await client.end().catch(() => undefined);
  }
}

function testFiles(target: string): string[] {
  if (!existsSync(target)) return [];
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(sql|pg)$/.test(f))
    .sort()
    .map((f) => path.join(target, f));
}

/** Runs the test files under `paths` (default supabase/tests); `ok` is what the exit status says. */
export async function testDb(o: {
  dbUrl: string;
  superuserUrl: string;
  projectDir: string;
  paths: string[];
}): Promise<{ ok: boolean; report: string }> {
  const targets = o.paths.length ? o.paths : [path.join(o.projectDir, 'supabase', 'tests')];
  const files = targets.flatMap(testFiles);
  const created = await withClient(o.superuserUrl, async (c) => {
    const had = await c.query(`select 1 from pg_extension where extname = 'pgtap'`);
    await c.query('create extension if not exists pgtap with schema extensions');
    return !had.rowCount;
  });
  try {
    const results: FileResult[] = [];
    for (const file of files) results.push(await runFile(o.dbUrl, file, path.relative(o.projectDir, file)));
    return { ok: results.length > 0 && !results.some(fileFailed), report: report(results) };
  } finally {
    if (created) await withClient(o.superuserUrl, (c) => c.query('drop extension if exists pgtap'));
  }
}
