set check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.claim_next_ticket(p_workspace_id uuid)
 RETURNS SETOF tickets
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
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
   for no key update skip locked;
  if t.id is null then
    return;
  end if;
  -- Assigning a new ticket opens it (the transition trigger).
  return query update public.tickets set assignee_id = (select auth.uid()) where id = t.id returning *;
end $function$
;

CREATE OR REPLACE FUNCTION public.close_solved_tickets()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  n integer;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  perform private.check_transition('solved', 'closed', 'system', 'auto_close');
  update public.tickets set status = 'closed'
   where id in (select t.id from public.tickets t
                 where t.status = 'solved' and t.solved_at < now() - interval '7 days'
                 -- no key update: rows that others only reference right now (a delivery or an event
                 -- being inserted holds a key-share lock) are not "held", and close on this run.
                 for no key update skip locked);
  get diagnostics n = row_count;
  return n;
end $function$
;
