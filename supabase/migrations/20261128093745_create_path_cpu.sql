set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.rule_act(r rules, p_ticket_id uuid, a jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  v text := a ->> 'value';
  voice uuid;
  body text;
begin
  select * into t from public.tickets where id = p_ticket_id;
  case a ->> 'type'
    when 'set_priority' then
      -- Not even a statement when it is that already: an update of no rows still runs the tickets' statement
      -- triggers (docs/decisions/090-create-path-cpu.md).
      if t.priority <> v::public.ticket_priority then
        update public.tickets set priority = v::public.ticket_priority where id = t.id;
      end if;
    when 'set_status' then
      begin
        -- As an agent changing it by hand (docs/product.md §4).
        perform private.change_status(t.id, v::public.ticket_status, 'agent', 'edit');
      exception when raise_exception then
        null;
      end;
    when 'assign' then
      if t.assignee_id is distinct from v::uuid
         and exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = v::uuid) then
        update public.tickets set assignee_id = v::uuid where id = t.id;
      end if;
    when 'assign_auto' then
      perform private.auto_assign(t.id);
    when 'add_tag' then
      insert into public.ticket_tags (ticket_id, tag_id, created_by)
      select t.id, g.id, null from public.tags g where g.id = v::uuid and g.workspace_id = t.workspace_id
      on conflict do nothing;
    when 'send_reply', 'add_note' then
      voice := private.rule_voice(r, t);
      body := case when a ->> 'type' = 'add_note' then v
                   else (select c.body from public.canned_replies c where c.id = v::uuid and c.workspace_id = t.workspace_id) end;
      if voice is not null and body is not null and t.status <> 'closed' then
        insert into public.messages (ticket_id, author_id, kind, body)
        values (t.id, voice, case when a ->> 'type' = 'add_note' then 'note' else 'reply' end, private.fill_placeholders(body, t, voice));
        -- The team's public reply opens a new ticket, as post_message's does.
        if a ->> 'type' = 'send_reply' and private.status_after_reply(t.status, 'agent') is not null then
          perform private.change_status(t.id, private.status_after_reply(t.status, 'agent'), 'agent', 'reply');
        end if;
      end if;
    when 'notify' then
      perform private.notify_member(t.workspace_id, case when v = 'assignee' then t.assignee_id else v::uuid end, 'rule', t.id, null, null);
  end case;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_fire(r rules, p_ticket_id uuid, p_event_key text, p_body text)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = p_ticket_id for no key update;
  if t.id is null or t.status = 'closed' or not private.rule_matches(r, t, p_body) then
    return false;
  end if;
  insert into public.rule_firings (rule_id, ticket_id, workspace_id, event_key) values (r.id, t.id, t.workspace_id, p_event_key)
  on conflict do nothing;
  if not found then
    return false;
  end if;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to") values (t.id, t.workspace_id, null, 'rule', r.name);
  for i in 0 .. jsonb_array_length(r.actions) - 1 loop
    perform private.rule_act(r, t.id, r.actions -> i);
  end loop;
  return true;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_matches(r rules, t tickets, p_body text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if jsonb_array_length(r.conditions) = 0 then
    return true;
  end if;
  -- By index, not jsonb_array_elements: an expression per condition, not a query (docs/decisions/090-create-path-cpu.md).
  for i in 0 .. jsonb_array_length(r.conditions) - 1 loop
    if private.rule_condition_holds(t, p_body, r.conditions -> i) <> r.match_all then
      return not r.match_all;
    end if;
  end loop;
  return r.match_all;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_tag_history()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  select r.ticket_id, r.workspace_id, auth.uid(), case when tg_op = 'INSERT' then 'tag_added' else 'tag_removed' end, g.name
    from (select x.*, row_number() over () as i from changed_tags x) r
    join public.tags g on g.id = r.tag_id
   where exists (select 1 from public.tickets t where t.id = r.ticket_id)
   order by r.i;
  -- Not when this transaction changed the ticket already (its updated_at is now(): a new ticket a rule
  -- tags, a second tag): that change reloads the pages at the same commit. Nor the statement at all then:
  -- an update of no rows still runs the tickets' statement triggers (docs/decisions/090-create-path-cpu.md).
  if exists (select 1 from changed_tags x join public.tickets t on t.id = x.ticket_id where t.updated_at <> now()) then
    update public.tickets t set updated_at = now()
     where t.id in (select x.ticket_id from changed_tags x join public.tags g on g.id = x.tag_id) and t.updated_at <> now();
  end if;
  return null;
end $function$
;
