drop function if exists "public"."create_ticket"(p_workspace_slug text, p_subject text, p_body text);

drop function if exists "public"."post_message"(p_ticket_id uuid, p_body text, p_kind text, p_new_status ticket_status, p_last_seen_message_id uuid);


  create table "public"."attachments" (
    "id" uuid not null,
    "message_id" uuid not null,
    "ticket_id" uuid not null,
    "workspace_id" uuid not null,
    "uploader_id" uuid not null,
    "path" text not null,
    "file_name" text not null,
    "size" bigint not null,
    "mime_type" text not null,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."attachments" enable row level security;

CREATE INDEX attachments_message_idx ON public.attachments USING btree (message_id);

CREATE UNIQUE INDEX attachments_path_key ON public.attachments USING btree (path);

CREATE UNIQUE INDEX attachments_pkey ON public.attachments USING btree (id);

CREATE INDEX attachments_ticket_idx ON public.attachments USING btree (ticket_id);

CREATE INDEX attachments_workspace_idx ON public.attachments USING btree (workspace_id);

alter table "public"."attachments" add constraint "attachments_pkey" PRIMARY KEY using index "attachments_pkey";

alter table "public"."attachments" add constraint "attachments_file_name_check" CHECK (((char_length(file_name) >= 1) AND (char_length(file_name) <= 255))) not valid;

alter table "public"."attachments" validate constraint "attachments_file_name_check";

alter table "public"."attachments" add constraint "attachments_message_id_fkey" FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE not valid;

alter table "public"."attachments" validate constraint "attachments_message_id_fkey";

alter table "public"."attachments" add constraint "attachments_path_key" UNIQUE using index "attachments_path_key";

alter table "public"."attachments" add constraint "attachments_size_check" CHECK ((size >= 0)) not valid;

alter table "public"."attachments" validate constraint "attachments_size_check";

alter table "public"."attachments" add constraint "attachments_ticket_id_fkey" FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE not valid;

alter table "public"."attachments" validate constraint "attachments_ticket_id_fkey";

alter table "public"."attachments" add constraint "attachments_uploader_id_fkey" FOREIGN KEY (uploader_id) REFERENCES auth.users(id) not valid;

alter table "public"."attachments" validate constraint "attachments_uploader_id_fkey";

alter table "public"."attachments" add constraint "attachments_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."attachments" validate constraint "attachments_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.attach_files(p_message_id uuid, p_files jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  p_message public.messages;
  f jsonb;
  o record;
  object_path text;
begin
  if p_files is null or p_files = 'null'::jsonb then
    return;
  end if;
  select * into p_message from public.messages where id = p_message_id;
  if jsonb_typeof(p_files) <> 'array' then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'attachments';
  end if;
  if jsonb_array_length(p_files) > 5 then
    raise exception using errcode = 'P0001', message = 'too_many_attachments';
  end if;
  for f in select value from jsonb_array_elements(p_files) loop
    if coalesce(f->>'storage_name', '') = '' or strpos(f->>'storage_name', '/') > 0 then
      raise exception using errcode = 'P0001', message = 'bad_request', detail = 'attachment name';
    end if;
    object_path := p_message.workspace_id || '/' || p_message.ticket_id || '/' || (f->>'id')::uuid || '/' || (f->>'storage_name');
    select o2.metadata into o from storage.objects o2
     where o2.bucket_id = 'attachments' and o2.name = object_path and o2.owner_id = auth.uid()::text;
    if not found then
      raise exception using errcode = 'P0001', message = 'not_found', detail = 'attachment';
    end if;
    insert into public.attachments (id, message_id, ticket_id, workspace_id, uploader_id, path, file_name, size, mime_type)
    values ((f->>'id')::uuid, p_message.id, p_message.ticket_id, p_message.workspace_id, auth.uid(), object_path,
            left(coalesce(nullif(f->>'file_name', ''), f->>'storage_name'), 255),
            coalesce((o.metadata->>'size')::bigint, 0), coalesce(o.metadata->>'mimetype', 'application/octet-stream'));
  end loop;
end $function$
;

CREATE OR REPLACE FUNCTION private.attachment_recorded(p_path text)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select exists (select 1 from public.attachments a where a.path = p_path)
$function$
;

CREATE OR REPLACE FUNCTION private.may_upload_attachment(p_path text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  parts text[] := string_to_array(p_path, '/');
  uuid_re text := '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
  t public.tickets;
begin
  if auth.uid() is null or coalesce(array_length(parts, 1), 0) <> 4 or parts[1] !~ uuid_re or parts[2] !~ uuid_re
     or parts[3] !~ uuid_re or parts[4] = '' then
    return false;
  end if;
  select * into t from public.tickets where id = parts[2]::uuid;
  if t.id is null then
    return exists (select 1 from public.workspaces w where w.id = parts[1]::uuid);
  end if;
  return t.workspace_id = parts[1]::uuid and t.status <> 'closed'
     and (t.requester_id = auth.uid() or private.is_member(t.workspace_id));
end $function$
;

CREATE OR REPLACE FUNCTION public.create_ticket(p_workspace_slug text, p_subject text, p_body text, p_attachments jsonb DEFAULT NULL::jsonb, p_ticket_id uuid DEFAULT NULL::uuid)
 RETURNS TABLE(id uuid, number integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  t public.tickets;
  message_id uuid;
begin
  if auth.uid() is null then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'sign in first';
  end if;
  select w.id into ws from public.workspaces w where w.slug = p_workspace_slug;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  insert into public.tickets (id, workspace_id, requester_id, subject)
  values (coalesce(p_ticket_id, gen_random_uuid()), ws, auth.uid(), trim(p_subject)) returning * into t;
  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), 'reply', p_body)
  returning public.messages.id into message_id;
  perform private.attach_files(message_id, p_attachments);
  return query select t.id, t.number;
end $function$
;

CREATE OR REPLACE FUNCTION public.post_message(p_ticket_id uuid, p_body text, p_kind text DEFAULT 'reply'::text, p_new_status ticket_status DEFAULT NULL::ticket_status, p_last_seen_message_id uuid DEFAULT NULL::uuid, p_attachments jsonb DEFAULT NULL::jsonb)
 RETURNS messages
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  m public.messages;
  actor private.ticket_actor;
  seen_at timestamptz;
  newest uuid;
  target public.ticket_status;
begin
  -- The row lock queues concurrent posts to one ticket, so the newest-message check below is exact.
  select * into t from public.tickets where id = p_ticket_id for update;
  actor := private.ticket_actor(t.workspace_id, auth.uid());
  -- What the policies let through: the ticket's team, or its requester.
  if t.id is null or auth.uid() is null or (actor = 'requester' and t.requester_id <> auth.uid()) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  if t.status = 'closed' then
    raise exception using errcode = 'P0001', message = 'ticket_closed', detail = t.id::text;
  end if;
  if p_kind = 'note' and actor = 'requester' then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'notes are for agents';
  end if;
  -- The traffic cop: an agent's reply written against an older view of the thread is refused when a
  -- newer message arrived since. An id that is not a message of this ticket has seen nothing.
  if actor <> 'requester' and p_kind = 'reply' and p_last_seen_message_id is not null then
    select created_at into seen_at from public.messages where id = p_last_seen_message_id and ticket_id = t.id;
    select id into newest from public.messages
     where ticket_id = t.id and (seen_at is null or created_at > seen_at)
     order by created_at desc, id desc limit 1;
    if newest is not null then
      raise exception using errcode = 'P0001', message = 'ticket_changed', detail = newest::text;
    end if;
  end if;

  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), p_kind, p_body) returning * into m;
  -- Its files (uploaded first, 40_attachments.sql), in the same transaction.
  perform private.attach_files(m.id, p_attachments);

  -- The status after the message: the one asked for, else what a reply does.
  target := coalesce(p_new_status, case when p_kind = 'reply' then private.status_after_reply(t.status, actor) end);
  if target is not null then
    perform private.change_status(t.id, target, actor, 'reply');
  end if;
  return m;
end $function$
;

CREATE OR REPLACE FUNCTION public.ticket_page(p_slug text, p_number integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  member record;
  ws public.workspaces;
  my_role text;
  t public.tickets;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  my_role := member.role;
  select * into t from public.tickets x where x.workspace_id = ws.id and x.number = p_number;
  if t.id is null then
    raise exception 'not_found' using errcode = 'P0001';
  end if;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
    'role', my_role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role) order by m.user_id), '[]')
                  from public.memberships m where m.workspace_id = ws.id),
    'ticket', jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                                 'requester_id', t.requester_id, 'assignee_id', t.assignee_id, 'created_at', t.created_at,
                                 'first_response_at', t.first_response_at, 'solved_at', t.solved_at),
    'messages', (select coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'kind', m.kind, 'body', m.body, 'created_at', m.created_at,
                                                              'author_id', m.author_id,
                                                              'attachments', (select coalesce(jsonb_agg(jsonb_build_object(
                                                                  'id', a.id, 'file_name', a.file_name, 'size', a.size, 'mime_type', a.mime_type)
                                                                  order by a.created_at, a.file_name), '[]')
                                                                from public.attachments a where a.message_id = m.id))
                                                   order by m.created_at, m.id), '[]')
                   from public.messages m where m.ticket_id = t.id),
    'events', (select coalesce(jsonb_agg(jsonb_build_object('id', e.id, 'actor_id', e.actor_id, 'type', e.type, 'from', e."from",
                                                            'to', e."to", 'created_at', e.created_at) order by e.created_at desc, e.id desc), '[]')
                 from (select * from public.ticket_events e where e.ticket_id = t.id order by e.created_at desc, e.id desc limit 100) e),
    'names', (select coalesce(jsonb_object_agg(p.user_id, p.display_name), '{}')
                from public.profiles p
               where p.user_id in (select m.user_id from public.memberships m where m.workspace_id = ws.id)
                  or p.user_id = t.requester_id
                  or p.user_id in (select m.author_id from public.messages m where m.ticket_id = t.id)
                  or p.user_id in (select e.actor_id from public.ticket_events e where e.ticket_id = t.id)
                  -- assignees in the history, former members included
                  or p.user_id::text in (select unnest(array[e."from", e."to"]) from public.ticket_events e
                                          where e.ticket_id = t.id and e.type = 'assignee')),
    'requester', public.requester_card(t.id)
  );
end $function$
;


  create policy "who reads the message reads its files"
  on "public"."attachments"
  as permissive
  for select
  to authenticated
using ((EXISTS ( SELECT 1
   FROM messages m
  WHERE (m.id = attachments.message_id))));



  create policy "attachments: read with the message"
  on "storage"."objects"
  as permissive
  for select
  to authenticated
using (((bucket_id = 'attachments'::text) AND ((EXISTS ( SELECT 1
   FROM attachments a
  WHERE (a.path = objects.name))) OR ((owner_id = (( SELECT auth.uid() AS uid))::text) AND (NOT private.attachment_recorded(name))))));



  create policy "attachments: remove one's unsent uploads"
  on "storage"."objects"
  as permissive
  for delete
  to authenticated
using (((bucket_id = 'attachments'::text) AND (owner_id = (( SELECT auth.uid() AS uid))::text) AND (NOT private.attachment_recorded(name))));



  create policy "attachments: upload to a thread one may write to"
  on "storage"."objects"
  as permissive
  for insert
  to authenticated
with check (((bucket_id = 'attachments'::text) AND (owner_id = (( SELECT auth.uid() AS uid))::text) AND private.may_upload_attachment(name)));

grant execute on function private.attachment_recorded(p_path text) to authenticated;
grant execute on function private.attachment_recorded(p_path text) to service_role;
grant execute on function private.may_upload_attachment(p_path text) to authenticated;
grant execute on function private.may_upload_attachment(p_path text) to service_role;
revoke delete on table public.attachments from anon;
revoke delete on table public.attachments from authenticated;
revoke execute on function private.attach_files(p_message_id uuid, p_files jsonb) from public;
revoke execute on function private.attachment_recorded(p_path text) from public;
revoke execute on function private.may_upload_attachment(p_path text) from public;
revoke execute on function public.create_ticket(p_workspace_slug text, p_subject text, p_body text, p_attachments jsonb, p_ticket_id uuid) from anon;
revoke execute on function public.create_ticket(p_workspace_slug text, p_subject text, p_body text, p_attachments jsonb, p_ticket_id uuid) from public;
revoke execute on function public.post_message(p_ticket_id uuid, p_body text, p_kind text, p_new_status ticket_status, p_last_seen_message_id uuid, p_attachments jsonb) from anon;
revoke execute on function public.post_message(p_ticket_id uuid, p_body text, p_kind text, p_new_status ticket_status, p_last_seen_message_id uuid, p_attachments jsonb) from public;
revoke insert on table public.attachments from anon;
revoke insert on table public.attachments from authenticated;
revoke update on table public.attachments from anon;
revoke update on table public.attachments from authenticated;
