drop trigger if exists "tickets_route" on "public"."tickets";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.assign_new(p_ticket_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if exists (select 1 from public.tickets t join public.assignment_settings c on c.workspace_id = t.workspace_id
              where t.id = p_ticket_id and t.assignee_id is null and c.mode <> 'off') then
    perform private.auto_assign(p_ticket_id);
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION private.is_new_request(t tickets, p_message_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if t.created_at is distinct from now() then
    return false;
  end if;
  return p_message_id = (select m.id from public.messages m where m.ticket_id = t.id order by m.created_at, m.id limit 1);
end $function$
;

CREATE OR REPLACE FUNCTION private.notify_of_message(t tickets, p_message_id uuid, p_author_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  member uuid;
begin
  -- A follower's message is a customer's too (54_followers.sql).
  if auth.role() is null or p_author_id is distinct from t.requester_id
     and not exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = p_author_id) then
    return;
  end if;
  if t.assignee_id is not null then
    perform private.notify_member(t.workspace_id, t.assignee_id, 'customer_reply', t.id, p_message_id, p_author_id);
  else
    for member in select user_id from public.memberships where workspace_id = t.workspace_id loop
      perform private.notify_member(t.workspace_id, member, 'new_request', t.id, p_message_id, p_author_id);
    end loop;
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION private.notify_request(p_ticket_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  m public.messages;
begin
  if auth.role() is null then
    return;
  end if;
  select * into t from public.tickets where id = p_ticket_id;
  -- The messages trigger left it here when the ticket is this transaction's (private.is_new_request).
  if t.created_at = now() then
    select * into m from public.messages x where x.ticket_id = p_ticket_id order by x.created_at, x.id limit 1;
    if m.kind = 'reply' then
      perform private.notify_of_message(t, m.id, m.author_id);
    end if;
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION private.assign_on_arrival()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if coalesce((select c.mode from public.assignment_settings c where c.workspace_id = new.workspace_id), 'off') = 'off' then
    return null;
  end if;
  if new.assignee_id is not null
     and coalesce((select a.available from public.member_availability a
                    where a.workspace_id = new.workspace_id and a.user_id = new.assignee_id), true) then
    return null;
  end if;
  if new.assignee_id is not null then
    update public.tickets set assignee_id = null where id = new.id;
    perform private.by_tend(new.id);
  end if;
  perform private.auto_assign(new.id);
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.by_tend(p_ticket_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.ticket_events set actor_id = null
   where id = (select max(e.id) from public.ticket_events e where e.ticket_id = p_ticket_id and e.type = 'assignee');
  update public.notifications set actor_id = null
   where ticket_id = p_ticket_id and kind = 'assigned' and created_at = now() and actor_id is not null;
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
begin
  if p_recipient_id is null or p_recipient_id = p_actor_id
     or not exists (select 1 from public.memberships where workspace_id = p_workspace_id and user_id = p_recipient_id) then
    return null;
  end if;
  -- Nobody hears of a ticket in Spam or Trash (54_spam_trash_split.sql).
  if p_ticket_id is not null and exists (
    select 1 from public.tickets t where t.id = p_ticket_id and (t.spam_at is not null or t.trashed_at is not null)
  ) then
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
  if setting.email = 'each' then
    perform private.call_function('notify', jsonb_build_object('type', 'notification', 'notification_id', made));
  end if;
  return made;
end $function$
;

CREATE OR REPLACE FUNCTION private.notify_members_of_message()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
begin
  if auth.role() is null then
    return null;
  end if;
  select * into t from public.tickets where id = new.ticket_id;
  if not private.is_new_request(t, new.id) then
    perform private.notify_of_message(t, new.id, new.author_id);
  end if;
  return null;
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
  perform private.assign_new(new.id);
  perform private.notify_request(new.id);
  perform private.sla_start(new.id);
  return null;
end $function$
;

revoke execute on function private.assign_new(p_ticket_id uuid) from public;
revoke execute on function private.is_new_request(t tickets, p_message_id uuid) from public;
revoke execute on function private.notify_of_message(t tickets, p_message_id uuid, p_author_id uuid) from public;
revoke execute on function private.notify_request(p_ticket_id uuid) from public;
