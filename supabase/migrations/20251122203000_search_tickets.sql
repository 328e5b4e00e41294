-- Agents search internal notes too (product.md §3 "a full-text search vector over subject and
-- messages"). tickets.search stays requester-safe (subject + public replies: requesters can read their
-- tickets' rows, that column included); notes get their own GIN index, and search_tickets matches
-- either. Use it like the table, with PostgREST filters, order, range and count on top:
--   rpc('search_tickets', { p_workspace_id, p_query }).eq('status', 'open')
--     .order('last_message_at', { ascending: false }).order('id', { ascending: false }).range(0, 24)
-- p_query is websearch syntax (quoted phrases, "or", -exclusions), as textSearch(..., { type: 'websearch' }).
--
-- Why a function and not .textSearch('search', q) on the table: under RLS, Postgres uses a qual as an
-- index condition only if it is leakproof, and @@ is not. A text search through the table therefore
-- never uses the GIN index; it walks the inbox index and tests every row (~200 ms at 100k tickets for
-- a word that is rare or absent). private.search_ticket_ids looks the matches up with the GIN indexes
-- (security definer: no RLS inside, so it checks membership itself), and search_tickets returns those
-- tickets through RLS by primary key (= is leakproof).

create index messages_note_search_idx on public.messages using gin (to_tsvector('english', body)) where kind = 'note';

-- Matching ticket ids in one workspace: for its members, subject, public replies and notes; for anyone
-- else, only their own requests by subject and public replies.
create function private.search_ticket_ids(p_workspace_id uuid, p_query text) returns uuid[]
language plpgsql stable security definer set search_path = '' as $$
declare
  q tsquery := websearch_to_tsquery('english'::regconfig, coalesce(p_query, ''));
begin
  if private.is_member(p_workspace_id) then
    return array(
      select s.id from public.tickets s where s.workspace_id = p_workspace_id and s.search @@ q
      union
      select m.ticket_id from public.messages m
       where m.workspace_id = p_workspace_id and m.kind = 'note' and to_tsvector('english'::regconfig, m.body) @@ q);
  end if;
  return array(
    select s.id from public.tickets s
     where s.workspace_id = p_workspace_id and s.requester_id = (select auth.uid()) and s.search @@ q);
end $$;
revoke all on function private.search_ticket_ids(uuid, text) from public, anon;
grant execute on function private.search_ticket_ids(uuid, text) to authenticated, service_role;

-- No SET clause and one SELECT: Postgres inlines it into PostgREST's query, so filters, order and limit
-- reach the plan. Every name is schema-qualified; = and any are pg_catalog's.
create function public.search_tickets(p_workspace_id uuid, p_query text)
returns setof public.tickets
language sql stable security invoker
as $$
  select t.* from public.tickets t
   where t.workspace_id = p_workspace_id and t.id = any (private.search_ticket_ids(p_workspace_id, p_query))
$$;
revoke execute on function public.search_tickets(uuid, text) from public, anon;
grant execute on function public.search_tickets(uuid, text) to authenticated, service_role;
