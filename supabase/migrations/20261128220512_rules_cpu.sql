set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.next_ticket_number(p_workspace_id uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  n integer;
begin
  update public.workspaces set ticket_seq = ticket_seq + 1 where id = p_workspace_id returning ticket_seq into n;
  return n;
end $function$
;

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
  if cfg.mode is null or cfg.mode = 'off' or t.assignee_id is not null or not private.is_open(t.status)
     or t.spam_at is not null or t.trashed_at is not null then
    if n is not null then
      update public.tickets set number = n where id = t.id;
    end if;
    return null;
  end if;
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
  if chosen is not null then
    if (private.tend_acting()).ticket_id is distinct from t.id then
      said := private.tend_act(t.id, 'assignment');
    end if;
    update public.tickets set assignee_id = chosen, number = coalesce(n, number) where id = t.id;
    if said is not null then
      perform private.tend_done(said);
    end if;
    update public.assignment_settings set last_assignee_id = chosen where workspace_id = t.workspace_id;
  elsif n is not null then
    update public.tickets set number = n where id = t.id;
  end if;
  return chosen;
end $function$
;

CREATE OR REPLACE FUNCTION private.number_ticket(p_ticket_id uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  n integer;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.number > 0 then
    return t.number;
  end if;
  n := private.next_ticket_number(t.workspace_id);
  update public.tickets set number = n where id = p_ticket_id;
  return n;
end $function$
;

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
  -- A new ticket is numbered before anyone hears of it: an action that may tell someone (an assignment and its
  -- notice, a notice, a reply or a note, a status) takes the number first (20_tickets.sql), so what it queues
  -- (an email) doesn't wait on the counter with it; a tag or a priority tells no one. An assignment writes the
  -- number with the assignee, one update (private.auto_assign too; docs/decisions/108-rules-cpu.md), and one that
  -- assigns no one tells no one.
  if t.number < 0 and a ->> 'type' not in ('add_tag', 'set_priority', 'assign', 'assign_auto') then
    t.number := private.number_ticket(t.id);
  end if;
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
        if t.number < 0 then
          t.number := private.next_ticket_number(t.workspace_id);
        end if;
        update public.tickets set assignee_id = v::uuid, number = t.number where id = t.id;
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

CREATE OR REPLACE FUNCTION private.rules_on_ticket_created()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if auth.role() is not null then
    perform private.run_rules(new.id, 'ticket_created', 'created');
  end if;
  perform private.sla_start(new.id);
  -- The automatic assignment numbers a ticket it assigns (the counter first, then the settings' row, then one
  -- update of the ticket: private.auto_assign); else it is numbered here.
  perform private.assign_new(new.id);
  perform private.number_ticket(new.id);
  perform private.notify_request(new.id);
  return null;
end $function$
;

revoke execute on function private.next_ticket_number(p_workspace_id uuid) from public;
