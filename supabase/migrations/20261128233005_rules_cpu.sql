set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.email_numbered_notices(p_ticket_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.email_notification(n.id)
     from public.notifications n
    where n.ticket_id = p_ticket_id and n.created_at = now() and n.email = 'each'
      and not exists (select 1 from private.notification_emails q where q.notification_id = n.id)
    order by n.id;
end $function$
;

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

CREATE OR REPLACE FUNCTION private.log_ticket_changes()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_table_name = 'tickets' then
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, c.ids from (select workspace_id, array_agg(id) as ids from changed_tickets group by 1) c
     where not exists (select 1 from private.ticket_changes x
                        where x.workspace_id = c.workspace_id and x.xid = pg_current_xact_id() and x.ticket_ids @> c.ids);
  elsif tg_table_name = 'ticket_tags' then
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, c.ids from (select workspace_id, array_agg(distinct ticket_id) as ids from changed_tickets group by 1) c
     where not exists (select 1 from private.ticket_changes x
                        where x.workspace_id = c.workspace_id and x.xid = pg_current_xact_id() and x.ticket_ids @> c.ids);
  elsif tg_table_name = 'messages' then
    -- A note leaves its ticket's row alone (30_messages.sql); a reply moves the ticket's search text.
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, c.ids
      from (select workspace_id, array_agg(distinct ticket_id) as ids from changed_tickets where kind = 'note' group by 1) c
     where not exists (select 1 from private.ticket_changes x
                        where x.workspace_id = c.workspace_id and x.xid = pg_current_xact_id() and x.ticket_ids @> c.ids);
  else
    -- A tag or a field made, renamed, changed or deleted: no ticket, but what a view's filters name may
    -- have changed (private.saved_view_match's key), so the next page compares them: any row of this
    -- transaction in the workspace says so.
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, '{}'::uuid[] from (select distinct workspace_id from changed_tickets) c
     where not exists (select 1 from private.ticket_changes x where x.workspace_id = c.workspace_id and x.xid = pg_current_xact_id());
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.notify_member(p_workspace_id uuid, p_recipient_id uuid, p_kind text, p_ticket_id uuid DEFAULT NULL::uuid, p_message_id uuid DEFAULT NULL::uuid, p_actor_id uuid DEFAULT auth.uid())
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  setting record;
  made uuid;
  t record;
begin
  if p_recipient_id is null or p_recipient_id = p_actor_id
     or not exists (select 1 from public.memberships where workspace_id = p_workspace_id and user_id = p_recipient_id) then
    return null;
  end if;
  select x.spam_at, x.trashed_at, x.number into t from public.tickets x where x.id = p_ticket_id;
  -- Nobody hears of a ticket in Spam or Trash (54_spam_trash_split.sql).
  if t.spam_at is not null or t.trashed_at is not null then
    return null;
  end if;
  -- now() is the transaction's start: rows made by this transaction share it. A rule's call (95_rules.sql)
  -- is an admin's standing order: it is heard besides any other notice of the same change, before or after it.
  if p_ticket_id is not null and p_kind <> 'rule' and exists (
    select 1 from public.notifications
     where recipient_id = p_recipient_id and ticket_id = p_ticket_id and created_at = now() and kind <> 'rule'
  ) then
    return null;
  end if;
  select * into setting from private.notification_setting(p_workspace_id, p_recipient_id, p_kind);
  if not setting.in_app and setting.email = 'off' then
    return null;
  end if;
  insert into public.notifications (workspace_id, recipient_id, kind, ticket_id, message_id, actor_id, in_app, email)
  values (p_workspace_id, p_recipient_id, p_kind, p_ticket_id, p_message_id, p_actor_id, setting.in_app, setting.email)
  returning id into made;
  -- A new ticket's notices are emailed once it has its number (private.email_numbered_notices): create_ticket
  -- numbers it late, after its rules, and a rule's assignment needn't take the counter before its notice takes
  -- the email queue's lock (docs/decisions/108-rules-cpu.md).
  if setting.email = 'each' and (t.number is null or t.number > 0) then
    perform private.email_notification(made);
  end if;
  return made;
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
  -- A new ticket is numbered before anyone hears of it: a reply or a note (its {{ticket.number}}, its email) and a
  -- status take the number first (20_tickets.sql); the automatic assignment takes it with the assignee, in one
  -- update (the counter before the settings' row, private.auto_assign). A tag, a priority, an assignment and a
  -- notice leave it provisional: a notice's email is queued once the ticket has its number
  -- (private.email_numbered_notices), so the rules before it hold the counter no longer
  -- (docs/decisions/108-rules-cpu.md).
  if t.number < 0 and a ->> 'type' not in ('add_tag', 'set_priority', 'assign', 'assign_auto', 'notify') then
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
  perform private.assign_new(new.id);
  perform private.number_ticket(new.id);
  perform private.email_numbered_notices(new.id);
  perform private.notify_request(new.id);
  return null;
end $function$
;

revoke execute on function private.email_numbered_notices(p_ticket_id uuid) from public;
revoke execute on function private.next_ticket_number(p_workspace_id uuid) from public;
