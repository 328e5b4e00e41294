alter table "public"."ticket_events" drop constraint "ticket_events_type_check";

alter table "public"."ticket_events" add constraint "ticket_events_type_check" CHECK ((type = ANY (ARRAY['created'::text, 'status'::text, 'assignee'::text, 'priority'::text, 'tag_added'::text, 'tag_removed'::text, 'snoozed'::text, 'unsnoozed'::text, 'sla_breach'::text, 'merged_into'::text, 'merged_from'::text, 'spam'::text, 'not_spam'::text, 'trashed'::text, 'restored'::text, 'split_to'::text, 'split_from'::text, 'field'::text, 'follower_added'::text, 'follower_removed'::text, 'rule'::text]))) not valid;

alter table "public"."ticket_events" validate constraint "ticket_events_type_check";

set check_function_bodies = off;

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
  -- is an admin's standing order: it is heard even after another notice of the same change.
  if p_ticket_id is not null and p_kind <> 'rule' and exists (
    select 1 from public.notifications
     where recipient_id = p_recipient_id and ticket_id = p_ticket_id and created_at = now()
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
