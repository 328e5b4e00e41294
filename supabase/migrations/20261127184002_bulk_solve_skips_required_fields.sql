set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.missing_required_field(p_workspace_id uuid, p_ticket_id uuid)
 RETURNS text
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select f.label from public.ticket_fields f
   where f.workspace_id = p_workspace_id and f.required_on_solve and private.is_member(p_workspace_id)
     and not exists (select 1 from public.ticket_field_values v where v.ticket_id = p_ticket_id and v.field_id = f.id)
   order by f.position, f.created_at, f.id
   limit 1
$function$
;

CREATE OR REPLACE FUNCTION private.check_required_fields()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  missing text;
begin
  if private.is_member(new.workspace_id) then
    missing := private.missing_required_field(new.workspace_id, new.id);
    if missing is not null then
      raise exception using errcode = 'P0001', message = 'field_required', detail = missing;
    end if;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION public.bulk_update_tickets(p_ticket_ids uuid[], p_action text, p_value text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  ids uuid[] := array(select distinct x from unnest(p_ticket_ids) x where x is not null);
  ws uuid;
  actor private.ticket_actor;
  target_status public.ticket_status;
  target_priority public.ticket_priority;
  target_assignee uuid;
  tag uuid;
  target_ticket uuid;
  merged_reasons jsonb := '{}';
  reason text;
  other uuid;
  allowed public.ticket_status[] := '{}';
  s public.ticket_status;
  mine uuid[];
  n integer := 0;
  skipped jsonb;
begin
  if cardinality(ids) not between 1 and 1000 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = '1 to 1000 tickets';
  end if;
  -- The workspace: the first visible ticket's; every ticket must be a member's of that one.
  select t.workspace_id into ws from public.tickets t where t.id = any (ids) order by t.id limit 1;
  if ws is null or not private.is_member(ws) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'tickets';
  end if;
  actor := private.ticket_actor(ws, auth.uid());
  mine := array(select t.id from public.tickets t where t.id = any (ids) and t.workspace_id = ws order by t.id for no key update);
  begin
    case p_action
      when 'status' then target_status := p_value::public.ticket_status;
      when 'priority' then target_priority := p_value::public.ticket_priority;
      when 'assign' then target_assignee := case when p_value = 'none' then null else p_value::uuid end;
      when 'add_tag', 'remove_tag' then null;
      when 'merge' then target_ticket := p_value::uuid;
      else raise exception using errcode = 'P0001', message = 'bad_request', detail = 'action';
    end case;
  exception when invalid_text_representation then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'value';
  end;

  if p_action = 'status' then
    -- The statuses of the batch the caller may move to the target (at most five checks).
    for s in select distinct t.status from public.tickets t where t.id = any (mine) and t.status <> target_status loop
      begin
        perform private.check_transition(s, target_status, actor, 'edit');
        allowed := allowed || s;
      exception when sqlstate 'P0001' then
        null;
      end;
    end loop;
    -- Solving needs the ticket's required custom fields (58_ticket_fields.sql): those without are skipped.
    skipped := (select jsonb_object_agg(x.reason, x.n) from (
                  select case when t.status = target_status then 'unchanged'
                              when t.status = any (allowed) then 'field_required'
                              else t.status::text end as reason, count(*) as n
                    from public.tickets t
                   where t.id = any (mine)
                     and (not (t.status = any (allowed))
                          or (target_status = 'solved' and private.missing_required_field(t.workspace_id, t.id) is not null))
                   group by 1) x);
    update public.tickets t set status = target_status
     where t.id = any (mine) and t.status = any (allowed)
       and (target_status <> 'solved' or private.missing_required_field(t.workspace_id, t.id) is null);
    get diagnostics n = row_count;
  elsif p_action = 'priority' then
    update public.tickets t set priority = target_priority where t.id = any (mine) and t.priority <> target_priority;
    get diagnostics n = row_count;
  elsif p_action = 'assign' then
    -- Assigning a new ticket opens it (ticket_transition); a non-member is refused for the batch.
    update public.tickets t set assignee_id = target_assignee where t.id = any (mine) and t.assignee_id is distinct from target_assignee;
    get diagnostics n = row_count;
  elsif p_action = 'merge' then
    -- Each other ticket into p_value (one of the batch), through merge_tickets: its rules, its refusals
    -- counted by code (ticket_merged, merge_closed).
    if not (target_ticket = any (mine)) then
      raise exception using errcode = 'P0001', message = 'bad_request', detail = 'merge into one of the tickets';
    end if;
    foreach other in array mine loop
      continue when other = target_ticket;
      begin
        perform public.merge_tickets(other, target_ticket);
        n := n + 1;
      exception when sqlstate 'P0001' then
        reason := case sqlerrm when 'ticket_merged' then 'merged' when 'merge_closed' then 'closed' else sqlerrm end;
        merged_reasons := merged_reasons || jsonb_build_object(reason, coalesce((merged_reasons ->> reason)::integer, 0) + 1);
      end;
    end loop;
    skipped := merged_reasons;
    -- The primary is the batch's target, not one of its changes.
    mine := array_remove(mine, target_ticket);
    ids := array_remove(ids, target_ticket);
  elsif p_action = 'add_tag' then
    tag := private.tag_named(ws, p_value);
    insert into public.ticket_tags (ticket_id, tag_id) select x, tag from unnest(mine) x on conflict do nothing;
    get diagnostics n = row_count;
  else
    delete from public.ticket_tags tt using public.tags g
     where tt.ticket_id = any (mine) and g.id = tt.tag_id and g.workspace_id = ws and g.name = lower(btrim(coalesce(p_value, '')));
    get diagnostics n = row_count;
  end if;

  skipped := coalesce(skipped, '{}'::jsonb);
  if cardinality(mine) - n - coalesce((select sum(v::integer) from jsonb_each_text(skipped) e(k, v)), 0) > 0 then
    skipped := skipped || jsonb_build_object('unchanged', coalesce((skipped ->> 'unchanged')::integer, 0)
                                               + cardinality(mine) - n - coalesce((select sum(v::integer) from jsonb_each_text(skipped) e(k, v)), 0));
  end if;
  if cardinality(ids) > cardinality(mine) then
    skipped := skipped || jsonb_build_object('not_found', cardinality(ids) - cardinality(mine));
  end if;
  return jsonb_build_object('updated', n, 'skipped', skipped);
end $function$
;

grant execute on function private.missing_required_field(p_workspace_id uuid, p_ticket_id uuid) to authenticated;
revoke execute on function private.missing_required_field(p_workspace_id uuid, p_ticket_id uuid) from public;
