// Canned replies as the pages read them (docs/product.md §2): the ticket page's picker gets every reply
// of the workspace filled in for its ticket; the settings page previews them with an example ticket.
// Always the user's client: row-level security decides who reads them.
import type { SupabaseClient } from '@supabase/supabase-js';
import { throwDbError } from '../errors/from-db.server.ts';
import type { Database } from '../supabase/database.types.ts';
import { fillPlaceholders, type PickerReply, type PlaceholderValues, placeholderValues } from './canned-replies.ts';

type Client = SupabaseClient<Database>;

/** By title, as people read them (not the database's collation). */
export const byTitle = (a: { title: string }, b: { title: string }) =>
  a.title.localeCompare(b.title, 'en', { sensitivity: 'base' });

/** The workspace's canned replies (by its address, so it runs beside the ticket page's own call). */
export async function cannedRepliesOf(request: Request, supabase: Client, slug: string) {
  const { data, error } = await supabase
    .from('canned_replies')
    .select('id, title, body, workspaces!inner(slug)')
    .eq('workspaces.slug', slug);
  if (error) throwDbError(request, error, 'canned replies');
  return data.map(({ id, title, body }) => ({ id, title, body })).sort(byTitle);
}

/** The replies filled in for one ticket. */
export function forPicker(replies: { id: string; title: string; body: string }[], values: PlaceholderValues) {
  return replies.map(({ id, title, body }): PickerReply => ({ id, title, text: fillPlaceholders(body, values) }));
}

/** The settings page's example ticket: the admin is the agent. */
export function exampleValues(workspace: { name: string }, me: { name?: string; email?: string }) {
  return placeholderValues({
    requester: { name: 'Jordan Lee', email: 'jordan.lee@example.com' },
    agent: me,
    ticket: { number: 1042, subject: "My order hasn't arrived" },
    workspace,
  });
}

/** Whether the workspace has this canned reply (for the insert without JavaScript; RLS hides others'). */
export async function hasCannedReply(request: Request, supabase: Client, workspaceId: string, id: string) {
  const { data, error } = await supabase
    .from('canned_replies')
    .select('id')
    .eq('workspace_id', workspaceId)
    .eq('id', id)
    .maybeSingle();
  if (error) throwDbError(request, error, 'canned reply');
  return data !== null;
}
