-- claim_next_ticket returned an all-null row when the queue was empty, which PostgREST turns into an
-- object of nulls. As a set it returns [] or [ticket]: call it with .maybeSingle() for null | ticket.
drop function public.claim_next_ticket(uuid);

create function public.claim_next_ticket(p_workspace_id uuid) returns setof public.tickets
language plpgsql security invoker set search_path = '' as $$
declare
  t public.tickets;
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'agents only';
  end if;
  -- Oldest unassigned new/open request; rows another agent is claiming right now are skipped.
  select * into t from public.tickets
   where workspace_id = p_workspace_id and assignee_id is null and status in ('new', 'open')
   order by created_at, number
   limit 1
   for update skip locked;
  if t.id is null then
    return;
  end if;
  -- Assigning a new ticket opens it (the transition trigger).
  return query update public.tickets set assignee_id = (select auth.uid()) where id = t.id returning *;
end $$;

revoke execute on function public.claim_next_ticket(uuid) from public, anon;
grant execute on function public.claim_next_ticket(uuid) to authenticated, service_role;
