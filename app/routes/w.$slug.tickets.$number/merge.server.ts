// "Merge into…" on the ticket page (docs/product.md#merge): the tickets a search by number or subject
// offers (?merge=), to confirm one; the action merges (public.merge_tickets).
import { errorMessage } from '~/lib/errors/catalogue.server.ts';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import type { InboxJson } from '~/lib/helpdesk/inbox-query.server.ts';
import { jsonPage } from '~/lib/helpdesk/json-page.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';

/** Up to 5 open tickets (not this one) for `?merge=`: the one a number names, else the subject's search. */
export async function mergeCandidates(request: Request, supabase: Supabase, slug: string, ticketNumber: number) {
  const query = new URL(request.url).searchParams.get('merge')?.trim().slice(0, 200);
  if (query === undefined) return null;
  const number = /^#?(\d{1,9})$/.exec(query)?.[1];
  type Candidate = Pick<InboxJson['tickets'][number], 'id' | 'number' | 'subject' | 'status'>;
  let rows: Candidate[] = [];
  if (number) {
    const { data, error } = await supabase
      .from('tickets')
      .select('id, number, subject, status, workspaces!inner(slug)')
      .eq('workspaces.slug', slug)
      .eq('number', Number(number));
    if (error) throwDbError(request, error, 'merge candidates');
    rows = data;
  } else if (query) {
    const { data, error } = await supabase.rpc('inbox', { p_slug: slug, p_view: 'all', p_query: query, p_limit: 6 });
    if (error) throwDbError(request, error, 'merge candidates');
    rows = jsonPage<InboxJson>(data).tickets;
  }
  const tickets = rows
    .filter((t) => t.number !== ticketNumber && t.status !== 'closed')
    .slice(0, 5)
    .map(({ id, number, subject, status }) => ({ id, number, subject, status }));
  return { query, tickets, error: tickets.length ? null : errorMessage('merge_target_missing') };
}
