// Canned replies as the pages read them (docs/product.md#canned-replies-in-the-composer). The ticket page lists their
// titles (public.ticket_page sends them; the page sorts them byTitle); their text, filled in for the ticket,
// comes from filledCannedReplies: for the picker (its resource route, asked when the picker is first
// used) and for the insert without JavaScript. The settings page previews them with an example
// ticket. Always the user's client: row-level security decides.
import type { SupabaseClient } from '@supabase/supabase-js';
import type { SessionUser } from '../auth/user.ts';
import { throwDbError } from '../errors/from-db.server.ts';
import type { Database } from '../supabase/database.types.ts';
import { fillPlaceholders, type PickerReply, placeholderValues } from './canned-replies.ts';

type Client = SupabaseClient<Database>;

// localeCompare with a locale makes a collator on every call (a visible share of the ticket page's CPU).
const titles = new Intl.Collator('en', { sensitivity: 'base' });

/** By title, as people read them (not the database's collation). */
export const byTitle = (a: { title: string }, b: { title: string }) => titles.compare(a.title, b.title);

/** The agent as the placeholders name them. */
const agentOf = (user: SessionUser) => ({ name: user.displayName, email: user.email });

/**
 * The workspace's canned replies (or the one titled `only`) filled in for a ticket that
 * requireMemberTicket found: its requester (requester_card), number, subject and workspace, and the
 * agent asking.
 */
export async function filledCannedReplies(
  request: Request,
  supabase: Client,
  user: SessionUser,
  ticket: { id: string; workspaceId: string },
  only?: string,
): Promise<PickerReply[]> {
  let query = supabase.from('canned_replies').select('id, title, body').eq('workspace_id', ticket.workspaceId);
  if (only !== undefined) query = query.eq('title', only);
  const [replies, card, facts] = await Promise.all([
    query,
    supabase.rpc('requester_card', { p_ticket_id: ticket.id }),
    supabase.from('tickets').select('number, subject, workspaces!inner(name)').eq('id', ticket.id).single(),
  ]);
  for (const { error } of [replies, card, facts]) if (error) throwDbError(request, error, 'canned reply');
  const requester = card.data as { name?: string; email?: string | null };
  const values = placeholderValues({
    requester: { name: requester.name, email: requester.email },
    agent: agentOf(user),
    ticket: { number: facts.data!.number, subject: facts.data!.subject },
    workspace: facts.data!.workspaces,
  });
  return (replies.data ?? [])
    .map(({ id, title, body }) => ({ id, title, text: fillPlaceholders(body, values) }))
    .sort(byTitle);
}

/** The settings page's example ticket: the admin is the agent. */
export function exampleValues(workspace: { name: string }, user: SessionUser) {
  return placeholderValues({
    requester: { name: 'Jordan Lee', email: 'jordan.lee@example.com' },
    agent: agentOf(user),
    ticket: { number: 1042, subject: "My order hasn't arrived" },
    workspace,
  });
}
