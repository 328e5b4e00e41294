set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.tag_named(p_workspace_id uuid, p_name text)
 RETURNS uuid
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  tag uuid;
  tag_name text := lower(btrim(coalesce(p_name, '')));
begin
  if tag_name !~ '^[a-z0-9][a-z0-9_-]{0,39}$' then
    raise exception using errcode = 'P0001', message = 'tag_invalid';
  end if;
  select g.id into tag from public.tags g where g.workspace_id = p_workspace_id and g.name = tag_name;
  if tag is null then
    if not private.may_create_tags(p_workspace_id) then
      raise exception using errcode = 'P0001', message = 'tag_create_forbidden', detail = tag_name;
    end if;
    -- Two agents creating the same tag at once: the second finds the first's.
    insert into public.tags (workspace_id, name) values (p_workspace_id, tag_name)
    on conflict (workspace_id, name) do nothing returning id into tag;
    if tag is null then
      select g.id into tag from public.tags g where g.workspace_id = p_workspace_id and g.name = tag_name;
    end if;
  end if;
  return tag;
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
    skipped := (select jsonb_object_agg(x.reason, x.n) from (
                  select case when t.status = target_status then 'unchanged' else t.status::text end as reason, count(*) as n
                    from public.tickets t where t.id = any (mine) and not (t.status = any (allowed)) group by 1) x);
    update public.tickets t set status = target_status where t.id = any (mine) and t.status = any (allowed);
    get diagnostics n = row_count;
  elsif p_action = 'priority' then
    update public.tickets t set priority = target_priority where t.id = any (mine) and t.priority <> target_priority;
    get diagnostics n = row_count;
  elsif p_action = 'assign' then
    -- Assigning a new ticket opens it (ticket_transition); a non-member is refused for the batch.
    update public.tickets t set assignee_id = target_assignee where t.id = any (mine) and t.assignee_id is distinct from target_assignee;
    get diagnostics n = row_count;
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

CREATE OR REPLACE FUNCTION public.add_ticket_tag(p_ticket_id uuid, p_name text)
 RETURNS uuid
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  tag uuid;
begin
  select t.workspace_id into ws from public.tickets t where t.id = p_ticket_id;
  if ws is null or not private.is_member(ws) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  tag := private.tag_named(ws, p_name);
  insert into public.ticket_tags (ticket_id, tag_id) values (p_ticket_id, tag) on conflict do nothing;
  return tag;
end $function$
;

grant execute on function private.tag_named(p_workspace_id uuid, p_name text) to authenticated;
grant execute on function private.tag_named(p_workspace_id uuid, p_name text) to service_role;
revoke execute on function private.tag_named(p_workspace_id uuid, p_name text) from public;
revoke execute on function public.bulk_update_tickets(p_ticket_ids uuid[], p_action text, p_value text) from anon;
revoke execute on function public.bulk_update_tickets(p_ticket_ids uuid[], p_action text, p_value text) from public;
