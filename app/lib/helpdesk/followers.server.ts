// A ticket's followers for its members (public.ticket_follower_list, supabase/schemas/54_followers.sql):
// the sidebar's card and the followers page read them the same way.
import type { TicketFollower } from '~/components/ticket-followers-form.tsx';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';

export async function ticketFollowers(
  request: Request,
  supabase: Supabase,
  slug: string,
  number: number,
): Promise<TicketFollower[]> {
  const { data, error } = await supabase.rpc('ticket_follower_list', { p_slug: slug, p_number: number }, { get: true });
  if (error) throwDbError(request, error, 'ticket followers');
  return data.map(({ user_id, name, email }) => ({ user_id, name, email }));
}
