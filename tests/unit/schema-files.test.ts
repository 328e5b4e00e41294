// supabase/schemas/ defines each function once: a second definition (a `create or replace` left
// behind in another file) would silently win by file order.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const DIR = path.join(__dirname, '..', '..', 'supabase', 'schemas');

it('every function in supabase/schemas/ is defined once', () => {
  const seen = new Map<string, string[]>();
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.sql'))) {
    const sql = readFileSync(path.join(DIR, file), 'utf8');
    for (const m of sql.matchAll(/create\s+(?:or\s+replace\s+)?function\s+([\w."]+)\s*\(/gi)) {
      const name = m[1].replace(/"/g, '').toLowerCase();
      seen.set(name, [...(seen.get(name) ?? []), file]);
    }
  }
  expect(seen.size).toBeGreaterThan(30);
  const repeated = [...seen].filter(([, files]) => files.length > 1).map(([name, files]) => `${name}: ${files}`);
  expect(repeated).toEqual([]);
});
