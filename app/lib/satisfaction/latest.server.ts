// The latest answer of each listed ticket's surveys (supabase/schemas/92_satisfaction.sql), for the inbox
// rows' "rated Bad": one read of csat_surveys by its (ticket_id, created_at) key, for one page of tickets.
import { throwDbError } from '../errors/from-db.server.ts';
import type { Supabase } from '../supabase/client.server.ts';
import { ratingLabel, type SurveyRating } from './ratings.ts';

export async function latestRatings(request: Request, supabase: Supabase, ticketIds: string[]) {
  const latest = new Map<string, { rating: SurveyRating; label: string }>();
  if (!ticketIds.length) return latest;
  const { data, error } = await supabase
    .from('csat_surveys')
    .select('ticket_id, rating')
    .in('ticket_id', ticketIds)
    .not('rating', 'is', null)
    .order('created_at', { ascending: false });
  if (error) throwDbError(request, error, 'inbox ratings');
  for (const s of data ?? [])
    if (s.rating && !latest.has(s.ticket_id))
      latest.set(s.ticket_id, { rating: s.rating, label: ratingLabel(s.rating) });
  return latest;
}
