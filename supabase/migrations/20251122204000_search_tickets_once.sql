-- search_tickets as PostgREST calls it: the arguments come from a lateral json_to_record, not constants,
-- and the inlined SQL function called private.search_ticket_ids once per ticket row (seconds at 100k).
-- As plpgsql it looks the matches up once and returns those tickets by primary key (through RLS);
-- PostgREST's filters, order, range and count then apply to the matches only. Same signature and rows.
create or replace function public.search_tickets(p_workspace_id uuid, p_query text)
returns setof public.tickets
language plpgsql stable security invoker set search_path = '' as $$
declare
  matches uuid[] := private.search_ticket_ids(p_workspace_id, p_query);
begin
  return query select t.* from public.tickets t where t.id = any (matches) and t.workspace_id = p_workspace_id;
end $$;
