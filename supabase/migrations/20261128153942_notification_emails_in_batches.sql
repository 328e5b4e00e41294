create table "private"."notification_email_calls" (
    "queued_at" timestamp with time zone not null default now()
      );



  create table "private"."notification_emails" (
    "notification_id" uuid not null,
    "queued_at" timestamp with time zone not null default now()
      );


CREATE UNIQUE INDEX notification_emails_pkey ON private.notification_emails USING btree (notification_id);

CREATE INDEX notification_emails_queued_idx ON private.notification_emails USING btree (queued_at);

alter table "private"."notification_emails" add constraint "notification_emails_pkey" PRIMARY KEY using index "notification_emails_pkey";

alter table "private"."notification_emails" add constraint "notification_emails_notification_id_fkey" FOREIGN KEY (notification_id) REFERENCES notifications(id) ON DELETE CASCADE not valid;

alter table "private"."notification_emails" validate constraint "notification_emails_notification_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.email_notification(p_notification_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if pg_try_advisory_xact_lock_shared(hashtextextended('notification emails', 0))
     and exists (select 1 from private.notification_email_calls where queued_at > now() - interval '30 seconds') then
    insert into private.notification_emails (notification_id) values (p_notification_id);
    return;
  end if;
  -- Nothing until Vault knows the project, as private.call_function.
  if exists (select 1 from vault.decrypted_secrets where name = 'project_url') then
    insert into private.notification_emails (notification_id) values (p_notification_id);
    insert into private.notification_email_calls default values;
    perform private.call_function('notify', '{"type": "notifications"}');
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION private.notification_email(p_notification_id uuid, p_message_id text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  found_one jsonb;
begin
  select jsonb_build_object(
      'id', n.id, 'kind', n.kind, 'recipient_id', n.recipient_id, 'actor_id', n.actor_id,
      'message_id', n.message_id, 'email', n.email, 'created_at', n.created_at,
      'recipient_email', (select u.email from auth.users u where u.id = n.recipient_id),
      'actor', (select jsonb_build_object('display_name', p.display_name) from public.profiles p where p.user_id = n.actor_id),
      'message', (
        select jsonb_build_object(
          'id', m.id, 'body', m.body, 'author_id', m.author_id, 'created_at', m.created_at,
          'author', (select jsonb_build_object('display_name', p.display_name) from public.profiles p where p.user_id = m.author_id))
          from public.messages m where m.id = n.message_id),
      'ticket', (
        select jsonb_build_object(
          'id', t.id, 'number', t.number, 'subject', t.subject, 'created_at', t.created_at, 'status', t.status,
          'requester_id', t.requester_id,
          'ticket_followers', coalesce(
            (select jsonb_agg(jsonb_build_object('user_id', f.user_id)) from public.ticket_followers f where f.ticket_id = t.id), '[]'),
          'replies', coalesce(
            (select jsonb_agg(jsonb_build_object('id', r.id) order by r.created_at, r.id)
               from public.messages r where r.ticket_id = t.id and r.kind = 'reply'), '[]'))
          from public.tickets t where t.id = n.ticket_id),
      'workspace', (
        select jsonb_build_object(
          'id', w.id, 'slug', w.slug, 'name', w.name, 'time_zone', w.time_zone,
          'workspace_email_settings', (
            select jsonb_build_object(
              'sender_name', s.sender_name, 'sender_address', s.sender_address, 'accent_color', s.accent_color,
              'logo_path', s.logo_path, 'footer', s.footer, 'verified_domain', s.verified_domain)
              from public.workspace_email_settings s where s.workspace_id = w.id))
          from public.workspaces w where w.id = n.workspace_id))
    into found_one
    from public.notifications n where n.id = p_notification_id;
  if found_one->>'email' = 'each' and jsonb_typeof(found_one->'ticket') = 'object'
     and found_one->>'recipient_email' is not null then
    found_one := found_one || jsonb_build_object('claimed', public.claim_email_delivery(
      p_message_id, found_one->>'recipient_email', (found_one->'ticket'->>'id')::uuid));
  end if;
  return found_one;
end $function$
;

CREATE OR REPLACE FUNCTION public.claim_notification_emails(p_domain text, p_limit integer DEFAULT 50)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ids uuid[];
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  -- The calls this batch answers; then the transactions that counted on them, until they end.
  delete from private.notification_email_calls;
  perform pg_advisory_xact_lock(hashtextextended('notification emails', 0));
  with taken as (
    select q.notification_id, q.queued_at from private.notification_emails q
     order by q.queued_at limit greatest(p_limit, 1) for update skip locked
  ), gone as (
    delete from private.notification_emails q using taken where q.notification_id = taken.notification_id
    returning taken.notification_id, taken.queued_at
  )
  select array_agg(notification_id order by queued_at) into ids from gone;
  return coalesce((
    select jsonb_agg(e order by o)
      from unnest(ids) with ordinality as x(id, o),
           private.notification_email(x.id, '<n.' || x.id || '@' || p_domain || '>') e
     where e is not null), '[]');
end $function$
;

CREATE OR REPLACE FUNCTION public.notification_emails_sent(p_message_ids text[], p_recipients text[], p_notification_ids uuid[])
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  update public.email_deliveries d set status = 'sent', sent_at = now(), last_error = null
    from unnest(p_message_ids, p_recipients) as x(message_id, recipient)
   where d.message_id = x.message_id and d.recipient = x.recipient;
  update public.notifications set emailed_at = now() where id = any(p_notification_ids);
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
    perform private.email_notification(made);
  end if;
  return made;
end $function$
;

CREATE OR REPLACE FUNCTION private.retry_failed_emails()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  id text;
  n integer := 0;
  uuid_re constant text := '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';
  parts text[];
begin
  for id in
    select distinct d.message_id
      from public.email_deliveries d
     where d.attempts < 5 and d.created_at > now() - interval '1 day'
       and (d.status = 'failed' or (d.status = 'sending' and d.claimed_at < now() - interval '2 minutes'))
  loop
    parts := regexp_match(id, '^<([mndsa])\.' || uuid_re || '(?:\.' || uuid_re || ')?[.@]');
    continue when parts is null;
    perform private.call_function('notify', case parts[1]
      when 'm' then jsonb_build_object('type', 'message', 'message_id', parts[2])
      when 'n' then jsonb_build_object('type', 'notification', 'notification_id', parts[2])
      when 's' then jsonb_build_object('type', 'survey', 'survey_id', parts[2])
      when 'a' then jsonb_build_object('type', 'acknowledgement', 'ticket_id', parts[2])
      else jsonb_build_object('type', 'digest', 'workspace_id', parts[2], 'recipient_id', parts[3]) end);
    n := n + 1;
  end loop;
  -- Notifications queued a minute ago and still waiting (their call was lost: notify or pg_net down).
  if exists (select 1 from private.notification_emails where queued_at < now() - interval '1 minute') then
    perform private.call_function('notify', '{"type": "notifications"}');
    n := n + 1;
  end if;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION public.notification_email(p_notification_id uuid, p_message_id text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  return private.notification_email(p_notification_id, p_message_id);
end $function$
;

revoke execute on function private.email_notification(p_notification_id uuid) from public;
revoke execute on function private.notification_email(p_notification_id uuid, p_message_id text) from public;
revoke execute on function public.claim_notification_emails(p_domain text, p_limit integer) from anon;
revoke execute on function public.claim_notification_emails(p_domain text, p_limit integer) from authenticated;
revoke execute on function public.claim_notification_emails(p_domain text, p_limit integer) from public;
revoke execute on function public.notification_emails_sent(p_message_ids text[], p_recipients text[], p_notification_ids uuid[]) from anon;
revoke execute on function public.notification_emails_sent(p_message_ids text[], p_recipients text[], p_notification_ids uuid[]) from authenticated;
revoke execute on function public.notification_emails_sent(p_message_ids text[], p_recipients text[], p_notification_ids uuid[]) from public;
