set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.attachment_max_bytes()
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 10 * 1024 * 1024::bigint $function$
;

CREATE OR REPLACE FUNCTION private.attachment_types()
 RETURNS TABLE(extension text, mime_type text)
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  values ('png', 'image/png'), ('jpg', 'image/jpeg'), ('jpeg', 'image/jpeg'), ('gif', 'image/gif'),
    ('webp', 'image/webp'), ('pdf', 'application/pdf'), ('txt', 'text/plain'), ('csv', 'text/csv'),
    ('zip', 'application/zip'),
    ('docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
    ('xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
$function$
;

CREATE OR REPLACE FUNCTION private.attachments_per_message()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 5 $function$
;

CREATE OR REPLACE FUNCTION private.check_attachment(p_file_name text, p_mime_type text, p_size bigint)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
begin
  if not exists (select 1 from private.attachment_types() t
                  where t.extension = lower(substring(p_file_name from '\.([^.]*)$')) and t.mime_type = p_mime_type) then
    raise exception using errcode = 'P0001', message = 'attachment_type', detail = p_file_name;
  end if;
  if p_size is null or p_size > private.attachment_max_bytes() then
    raise exception using errcode = 'P0001', message = 'attachment_too_large', detail = p_file_name;
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION private.check_file_list(p_files jsonb)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
begin
  if jsonb_typeof(p_files) <> 'array' then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'attachments';
  end if;
  if jsonb_array_length(p_files) > private.attachments_per_message() then
    raise exception using errcode = 'P0001', message = 'too_many_attachments';
  end if;
  if exists (select 1 from jsonb_array_elements(p_files) f
              where coalesce(f->>'storage_name', '') = '' or strpos(f->>'storage_name', '/') > 0) then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'attachment name';
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION private.unrecorded_uploads_max_bytes()
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select private.attachments_per_message() * private.attachment_max_bytes() $function$
;

CREATE OR REPLACE FUNCTION private.unrecorded_uploads_max_count()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 4 * private.attachments_per_message() $function$
;

CREATE OR REPLACE FUNCTION public.unrecorded_attachment_objects(p_limit integer DEFAULT 1000)
 RETURNS SETOF text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  return query
    select o.name from storage.objects o
     where o.bucket_id = 'attachments' and o.created_at < now() - interval '1 hour'
       and not exists (select 1 from public.attachments a where a.path = o.name)
     order by o.created_at
     limit least(greatest(p_limit, 1), 1000);
end $function$
;

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
  file_name text;
begin
  if p_files is null or p_files = 'null'::jsonb then
    return;
  end if;
  perform private.check_file_list(p_files);
  select * into p_message from public.messages where id = p_message_id;
  for f in select value from jsonb_array_elements(p_files) loop
    object_path := auth.uid() || '/' || p_message.workspace_id || '/' || p_message.ticket_id || '/'
      || (f->>'id')::uuid || '/' || (f->>'storage_name');
    select o2.metadata into o from storage.objects o2
     where o2.bucket_id = 'attachments' and o2.name = object_path and o2.owner_id = auth.uid()::text;
    if not found then
      raise exception using errcode = 'P0001', message = 'not_found', detail = 'attachment';
    end if;
    file_name := left(coalesce(nullif(f->>'file_name', ''), f->>'storage_name'), 255);
    perform private.check_attachment(file_name, o.metadata->>'mimetype', (o.metadata->>'size')::bigint);
    insert into public.attachments (id, message_id, ticket_id, workspace_id, uploader_id, path, file_name, size, mime_type)
    values ((f->>'id')::uuid, p_message.id, p_message.ticket_id, p_message.workspace_id, auth.uid(), object_path,
            file_name, (o.metadata->>'size')::bigint, o.metadata->>'mimetype');
  end loop;
end $function$
;

CREATE OR REPLACE FUNCTION private.attach_received_files(p_message_id uuid, p_files jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  m public.messages;
  f jsonb;
  file_name text;
begin
  select * into m from public.messages where id = p_message_id;
  perform private.check_file_list(coalesce(p_files, '[]'));
  for f in select value from jsonb_array_elements(coalesce(p_files, '[]')) loop
    file_name := left(coalesce(nullif(f->>'file_name', ''), f->>'storage_name'), 255);
    perform private.check_attachment(file_name, f->>'mime_type', (f->>'size')::bigint);
    insert into public.attachments (id, message_id, ticket_id, workspace_id, uploader_id, path, file_name, size, mime_type)
    values ((f->>'id')::uuid, m.id, m.ticket_id, m.workspace_id, m.author_id,
            m.workspace_id || '/' || m.ticket_id || '/' || (f->>'id')::uuid || '/' || (f->>'storage_name'),
            file_name, (f->>'size')::bigint, f->>'mime_type');
  end loop;
  return private.message_files(p_message_id);
end $function$
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
  mine text := auth.uid()::text || '/';
  t public.tickets;
  held record;
begin
  if auth.uid() is null or coalesce(array_length(parts, 1), 0) <> 5 or parts[1] <> auth.uid()::text
     or parts[2] !~ uuid_re or parts[3] !~ uuid_re or parts[4] !~ uuid_re or parts[5] = '' then
    return false;
  end if;
  -- Keys from "<me>/" up to "<me>0" ('0' follows '/'): the caller's prefix, through the pattern index.
  select coalesce(sum((o.metadata->>'size')::bigint), 0) as bytes, count(*) as files into held
    from storage.objects o
   where o.bucket_id = 'attachments' and o.name ~>=~ mine and o.name ~<~ (auth.uid()::text || '0')
     and not exists (select 1 from public.attachments a where a.path = o.name);
  if held.bytes >= private.unrecorded_uploads_max_bytes() or held.files >= private.unrecorded_uploads_max_count() then
    return false;
  end if;
  select * into t from public.tickets where id = parts[3]::uuid;
  if t.id is null then
    return exists (select 1 from public.workspaces w where w.id = parts[2]::uuid);
  end if;
  return t.workspace_id = parts[2]::uuid and t.status <> 'closed'
     and (t.requester_id = auth.uid() or private.is_member(t.workspace_id));
end $function$
;

revoke execute on function private.attachment_max_bytes() from public;
revoke execute on function private.attachment_types() from public;
revoke execute on function private.attachments_per_message() from public;
revoke execute on function private.check_attachment(p_file_name text, p_mime_type text, p_size bigint) from public;
revoke execute on function private.check_file_list(p_files jsonb) from public;
revoke execute on function private.unrecorded_uploads_max_bytes() from public;
revoke execute on function private.unrecorded_uploads_max_count() from public;
revoke execute on function public.unrecorded_attachment_objects(p_limit integer) from anon;
revoke execute on function public.unrecorded_attachment_objects(p_limit integer) from authenticated;
revoke execute on function public.unrecorded_attachment_objects(p_limit integer) from public;

-- Added by hand (db diff doesn't see cron jobs): files no message claims, swept hourly at half past
-- by the sweep-attachments function (supabase/schemas/80_email.sql).
select cron.schedule('sweep-attachments', '30 * * * *', $$ select private.call_function('sweep-attachments', '{}') $$);
