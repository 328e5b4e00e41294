create table "public"."after_hours_replies" (
    "workspace_id" uuid not null,
    "canned_reply_id" uuid not null,
    "updated_by" uuid,
    "updated_at" timestamp with time zone not null default now()
      );


alter table "public"."after_hours_replies" enable row level security;

CREATE INDEX after_hours_replies_canned_reply_idx ON public.after_hours_replies USING btree (canned_reply_id);

CREATE UNIQUE INDEX after_hours_replies_pkey ON public.after_hours_replies USING btree (workspace_id);

CREATE INDEX after_hours_replies_updated_by_idx ON public.after_hours_replies USING btree (updated_by);

alter table "public"."after_hours_replies" add constraint "after_hours_replies_pkey" PRIMARY KEY using index "after_hours_replies_pkey";

alter table "public"."after_hours_replies" add constraint "after_hours_replies_canned_reply_id_fkey" FOREIGN KEY (canned_reply_id) REFERENCES canned_replies(id) ON DELETE CASCADE not valid;

alter table "public"."after_hours_replies" validate constraint "after_hours_replies_canned_reply_id_fkey";

alter table "public"."after_hours_replies" add constraint "after_hours_replies_updated_by_fkey" FOREIGN KEY (updated_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."after_hours_replies" validate constraint "after_hours_replies_updated_by_fkey";

alter table "public"."after_hours_replies" add constraint "after_hours_replies_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."after_hours_replies" validate constraint "after_hours_replies_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.acknowledge_after_hours()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if auth.role() is null
     or not exists (select 1 from public.after_hours_replies where workspace_id = new.workspace_id)
     or exists (select 1 from public.memberships where workspace_id = new.workspace_id and user_id = new.requester_id)
     or private.next_opening(new.workspace_id, new.created_at) <= new.created_at then
    return null;
  end if;
  perform private.call_function('notify', jsonb_build_object('type', 'acknowledgement', 'ticket_id', new.id));
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.next_opening(p_workspace_id uuid, p_at timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return private.business_minutes_add(p_workspace_id, p_at, 1 / 60.0) - interval '1 second';
end $function$
;

CREATE OR REPLACE FUNCTION public.save_after_hours_reply(p_workspace_id uuid, p_canned_reply_id uuid DEFAULT NULL::uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if p_canned_reply_id is null then
    delete from public.after_hours_replies where workspace_id = p_workspace_id;
    return;
  end if;
  if not exists (select 1 from public.canned_replies where id = p_canned_reply_id and workspace_id = p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'canned reply';
  end if;
  insert into public.after_hours_replies (workspace_id, canned_reply_id, updated_by) values (p_workspace_id, p_canned_reply_id, auth.uid())
  on conflict (workspace_id) do update set canned_reply_id = excluded.canned_reply_id, updated_by = excluded.updated_by, updated_at = now();
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
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION public.next_opening(p_workspace_id uuid, p_at timestamp with time zone DEFAULT now())
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select case when private.is_member(p_workspace_id) or private.is_system() then private.next_opening(p_workspace_id, p_at) end
$function$
;


  create policy "members read the after-hours reply"
  on "public"."after_hours_replies"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));


CREATE TRIGGER tickets_acknowledge_after_hours AFTER INSERT ON public.tickets FOR EACH ROW EXECUTE FUNCTION private.acknowledge_after_hours();

revoke delete on table public.after_hours_replies from anon;
revoke delete on table public.after_hours_replies from authenticated;
revoke execute on function private.acknowledge_after_hours() from public;
revoke execute on function private.next_opening(p_workspace_id uuid, p_at timestamp with time zone) from public;
revoke execute on function public.save_after_hours_reply(p_workspace_id uuid, p_canned_reply_id uuid) from anon;
revoke execute on function public.save_after_hours_reply(p_workspace_id uuid, p_canned_reply_id uuid) from public;
revoke insert on table public.after_hours_replies from anon;
revoke insert on table public.after_hours_replies from authenticated;
revoke maintain on table public.after_hours_replies from anon;
revoke references on table public.after_hours_replies from anon;
revoke select on table public.after_hours_replies from anon;
revoke trigger on table public.after_hours_replies from anon;
revoke truncate on table public.after_hours_replies from anon;
revoke update on table public.after_hours_replies from anon;
revoke update on table public.after_hours_replies from authenticated;
