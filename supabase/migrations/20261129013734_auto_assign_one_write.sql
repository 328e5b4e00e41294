set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.auto_assign(p_ticket_id uuid)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  cfg public.assignment_settings;
  chosen uuid;
  said text;
  n integer;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.number < 0 then
    n := private.next_ticket_number(t.workspace_id);
  end if;
  select * into cfg from public.assignment_settings where workspace_id = t.workspace_id for no key update;
  if cfg.mode is not null and cfg.mode <> 'off' and t.assignee_id is null and private.is_open(t.status)
     and t.spam_at is null and t.trashed_at is null then
    select m.user_id into chosen
      from public.memberships m
      left join public.member_availability a on a.workspace_id = m.workspace_id and a.user_id = m.user_id
      cross join lateral (select coalesce(sum(c.n), 0) as open from private.ticket_tallies c
                           where c.workspace_id = m.workspace_id and c.assignee_id = m.user_id and private.is_backlog(c.status)) load
     where m.workspace_id = t.workspace_id and coalesce(a.available, true)
       and (cfg.max_open is null or load.open < cfg.max_open)
     order by case when cfg.mode = 'least_open' then load.open else 0 end,
              -- after the last one given a ticket, in id order, wrapping around
              m.user_id <= coalesce(cfg.last_assignee_id, '00000000-0000-0000-0000-000000000000'::uuid), m.user_id
     limit 1;
  end if;
  if chosen is not null and (private.tend_acting()).ticket_id is distinct from t.id then
    said := private.tend_act(t.id, 'assignment');
  end if;
  -- One update of the ticket, here: the assignee chosen, with the number taken above if there is one; or the
  -- number alone (without assignee_id in its list, which fires the assignee's triggers).
  if chosen is not null then
    update public.tickets set assignee_id = chosen, number = coalesce(n, number) where id = t.id;
  elsif n is not null then
    update public.tickets set number = n where id = t.id;
  end if;
  if said is not null then
    perform private.tend_done(said);
  end if;
  if chosen is not null then
    update public.assignment_settings set last_assignee_id = chosen where workspace_id = t.workspace_id;
  end if;
  return chosen;
end $function$
;
