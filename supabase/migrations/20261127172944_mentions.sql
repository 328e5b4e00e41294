create table "public"."message_mentions" (
    "message_id" uuid not null,
    "user_id" uuid not null,
    "workspace_id" uuid not null,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."message_mentions" enable row level security;

CREATE UNIQUE INDEX message_mentions_pkey ON public.message_mentions USING btree (message_id, user_id);

CREATE INDEX message_mentions_user_idx ON public.message_mentions USING btree (workspace_id, user_id, created_at DESC);

alter table "public"."message_mentions" add constraint "message_mentions_pkey" PRIMARY KEY using index "message_mentions_pkey";

alter table "public"."message_mentions" add constraint "message_mentions_membership_fkey" FOREIGN KEY (workspace_id, user_id) REFERENCES memberships(workspace_id, user_id) ON DELETE CASCADE not valid;

alter table "public"."message_mentions" validate constraint "message_mentions_membership_fkey";

alter table "public"."message_mentions" add constraint "message_mentions_message_id_fkey" FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE not valid;

alter table "public"."message_mentions" validate constraint "message_mentions_message_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.mention_members()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  member uuid;
begin
  if auth.role() is null or position('@' in new.body) = 0 then
    return null;
  end if;
  for member in select private.mentioned_members(new.workspace_id, new.body) loop
    continue when member = new.author_id;
    insert into public.message_mentions (message_id, user_id, workspace_id)
    values (new.id, member, new.workspace_id) on conflict do nothing;
    perform private.notify_member(new.workspace_id, member, 'mention', new.ticket_id, new.id, new.author_id);
  end loop;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.mentioned_members(p_workspace_id uuid, p_body text)
 RETURNS SETOF uuid
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  with member as (
    select m.user_id, lower(coalesce(nullif(trim(p.display_name), ''), split_part(u.email, '@', 1))) as name,
           lower(split_part(u.email, '@', 1)) as local
      from public.memberships m
      join auth.users u on u.id = m.user_id
      left join public.profiles p on p.user_id = m.user_id
     where m.workspace_id = p_workspace_id
  ), handle as (
    select user_id, name as h from member
    union
    select user_id, local from member
    union
    select user_id, split_part(name, ' ', 1) from member x
     where split_part(name, ' ', 1) <> name
       and not exists (select 1 from member y where y.user_id <> x.user_id and split_part(y.name, ' ', 1) = split_part(x.name, ' ', 1))
  )
  select distinct user_id from handle
   where h <> ''
     and strpos(lower(p_body), '@' || h) > 0
     and lower(p_body) ~ ('(^|[^[:alnum:]_.@])@' || regexp_replace(h, '([.*+?^${}()|\[\]\\])', '\\\1', 'g') || '($|[^[:alnum:]_])')
$function$
;


  create policy "members read their workspace's mentions"
  on "public"."message_mentions"
  as permissive
  for select
  to authenticated
using (( SELECT private.is_member(message_mentions.workspace_id) AS is_member));


CREATE TRIGGER messages_mention AFTER INSERT ON public.messages FOR EACH ROW WHEN ((new.kind = 'note'::text)) EXECUTE FUNCTION private.mention_members();

revoke delete on table public.message_mentions from anon;
revoke delete on table public.message_mentions from authenticated;
revoke execute on function private.mentioned_members(p_workspace_id uuid, p_body text) from public;
revoke insert on table public.message_mentions from anon;
revoke insert on table public.message_mentions from authenticated;
revoke truncate on table public.message_mentions from anon;
revoke truncate on table public.message_mentions from authenticated;
revoke update on table public.message_mentions from anon;
revoke update on table public.message_mentions from authenticated;
