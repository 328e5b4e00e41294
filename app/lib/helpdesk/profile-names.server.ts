// People's display names by user id, for pages that show who wrote or changed something.
import { throwDbError } from '../errors/from-db.server.ts';
import type { Supabase } from '../supabase/client.server.ts';

/** Display names by user id (the profiles policies decide who is visible). */
export async function profileNames(
  request: Request,
  supabase: Supabase,
  ids: (string | null | undefined)[],
): Promise<Map<string, string>> {
  const unique = [...new Set(ids.filter((x): x is string => !!x))];
  const out = new Map<string, string>();
  if (!unique.length) return out;
  const { data, error } = await supabase.from('profiles').select('user_id, display_name').in('user_id', unique);
  if (error) throwDbError(request, error, 'profiles');
  for (const p of data ?? []) out.set(p.user_id, p.display_name);
  return out;
}

/** Members with their names, sorted by name (the ticket page's assignees, the help editor's who else is editing). */
export function namedMembers<R extends { user_id: string }>(rows: R[], names: Map<string, string>) {
  return rows
    .map((r) => ({ ...r, name: names.get(r.user_id) ?? 'Unknown' }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
