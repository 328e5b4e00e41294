-- Files on requests, replies and notes (docs/product.md §3, §5, §6). The app streams each file to the
-- private bucket `attachments` (supabase/config.toml) as the user, under the uploader's own prefix:
-- <uploader>/<workspace_id>/<ticket_id>/<attachment_id>/<safe file name>; create_ticket and post_message
-- then record them with the message in one transaction. Who may read a file is who may read its message.
-- Files that came by email are stored at <workspace_id>/<ticket_id>/<attachment_id>/<name> (service role).
-- docs/decisions/036-files-the-database-checks.md.

create table public.attachments (
  -- Chosen by the app before the upload: it is part of the object's path.
  id uuid primary key,
  message_id uuid not null references public.messages (id) on delete cascade,
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  uploader_id uuid not null references auth.users (id),
  -- The storage object's key in the bucket `attachments`.
  path text not null unique,
  -- The name as the uploader gave it (shown, and the download's name); the path holds a safe one.
  file_name text not null check (char_length(file_name) between 1 and 255),
  size bigint not null check (size >= 0),
  mime_type text not null,
  -- The moment of its own insert (not the transaction's): a message's files keep the order they were
  -- chosen in, for the requester and the agent alike.
  created_at timestamptz not null default clock_timestamp()
);
create index attachments_message_idx on public.attachments (message_id);
create index attachments_ticket_idx on public.attachments (ticket_id);
create index attachments_workspace_idx on public.attachments (workspace_id);

-- The product's rules for a file (docs/product.md §5), the database's one definition of them: the
-- types by the name's extension, the size, how many a message takes. The app and the functions hold
-- the same types in supabase/functions/_shared/attachment-rules.ts (db-attachments.test.ts compares
-- them) and the size and count in supabase/functions/_shared/limits.ts (tests/unit/rules.test.ts); the
-- bucket repeats types and size (supabase/config.toml), but a copy or a move through the storage API
-- checks no type (storage-api's copyObject), so what is recorded is checked here.
create function private.attachment_types() returns table (extension text, mime_type text)
language sql immutable set search_path = '' as $$
  values ('png', 'image/png'), ('jpg', 'image/jpeg'), ('jpeg', 'image/jpeg'), ('gif', 'image/gif'),
    ('webp', 'image/webp'), ('pdf', 'application/pdf'), ('txt', 'text/plain'), ('csv', 'text/csv'),
    ('zip', 'application/zip'),
    ('docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
    ('xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
$$;
create function private.attachment_max_bytes() returns bigint
language sql immutable set search_path = '' as $$ select 10 * 1024 * 1024::bigint $$;
create function private.attachments_per_message() returns integer
language sql immutable set search_path = '' as $$ select 5 $$;

-- Raises the catalogue's refusal for a file that breaks the rules: a type that is not the one its
-- name's extension stands for (or no allowed type at all), or larger than private.attachment_max_bytes().
create function private.check_attachment(p_file_name text, p_mime_type text, p_size bigint) returns void
language plpgsql immutable set search_path = '' as $$
begin
  if not exists (select 1 from private.attachment_types() t
                  where t.extension = lower(substring(p_file_name from '\.([^.]*)$')) and t.mime_type = p_mime_type) then
    raise exception using errcode = 'P0001', message = 'attachment_type', detail = p_file_name;
  end if;
  if p_size is null or p_size > private.attachment_max_bytes() then
    raise exception using errcode = 'P0001', message = 'attachment_too_large', detail = p_file_name;
  end if;
end $$;

-- p_files of create_ticket, post_message and receive_email: an array of at most
-- private.attachments_per_message() files (more is too_many_attachments), each named with a storage name
-- that is one key segment.
create function private.check_file_list(p_files jsonb) returns void
language plpgsql immutable set search_path = '' as $$
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
end $$;

-- Files a message carries: each an object the caller uploaded under their prefix for the message's
-- ticket, held to the rules with the size and type storage recorded (not what the caller says).
-- p_files: [{id, file_name, storage_name}] (private.check_file_list).
create function private.attach_files(p_message_id uuid, p_files jsonb) returns void
language plpgsql security definer set search_path = '' as $$
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
end $$;

-- Files that came with an email (inbound-email, service_role): recorded with the message it made, in its
-- transaction, before their bytes are stored (the function uploads each to the path returned next, and
-- a replayed webhook uploads what is missing), so a replay records nothing twice. Sizes and types as
-- the function measured them, held to the same rules. p_files: [{id, file_name, storage_name, size,
-- mime_type}] (private.check_file_list). Returns [{id, path}].
create function private.attach_received_files(p_message_id uuid, p_files jsonb) returns jsonb
language plpgsql security definer set search_path = '' as $$
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
end $$;

-- A message's files as [{id, path}] (what inbound-email uploads, or checks on a replay).
create function private.message_files(p_message_id uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object('id', a.id, 'path', a.path) order by a.created_at, a.path), '[]')
    from public.attachments a where a.message_id = p_message_id
$$;

-- Whether an object of the bucket is already a message's file (recorded files are never replaced
-- or removed through the API).
create function private.attachment_recorded(p_path text) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.attachments a where a.path = p_path)
$$;

-- What one user may hold in the bucket that no message has recorded yet (uploads of a post in
-- progress, or left by one that failed until the sweep below removes them). Checked before each
-- upload, so a full message always fits: 50 MB (a message's worth, then at most one file more) and
-- 20 files (four messages' worth, for small ones).
create function private.unrecorded_uploads_max_bytes() returns bigint
language sql immutable set search_path = '' as $$ select private.attachments_per_message() * private.attachment_max_bytes() $$;
create function private.unrecorded_uploads_max_count() returns integer
language sql immutable set search_path = '' as $$ select 4 * private.attachments_per_message() $$;

-- Whether the caller may upload to this key: <self>/<workspace>/<ticket>/<attachment>/<name> on a ticket
-- they may write to (its requester, or a member of its workspace; not closed), or on a ticket id not
-- taken yet in an existing workspace (a request being opened: create_ticket takes that id next), while
-- their unrecorded uploads stay under the limits above. Their prefix is theirs alone, so nobody writes
-- into another's space, and the limits are one indexed range of keys (name_prefix_search).
create function private.may_upload_attachment(p_path text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
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
     and (t.requester_id = auth.uid() or private.is_member(t.workspace_id) or t.id in (select private.followed_tickets()));
end $$;

-- Objects no message claims, an hour after their upload: the sweep-attachments job removes them through
-- the storage API (hourly, 80_email.sql), so a failed post's or a hand-made client's leftovers don't stay.
create function public.unrecorded_attachment_objects(p_limit integer default 1000) returns setof text
language plpgsql stable security definer set search_path = '' as $$
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
end $$;

revoke all on function private.attachment_types(), private.attachment_max_bytes(), private.attachments_per_message(),
  private.check_attachment(text, text, bigint), private.check_file_list(jsonb), private.attach_files(uuid, jsonb),
  private.attach_received_files(uuid, jsonb), private.message_files(uuid), private.attachment_recorded(text),
  private.unrecorded_uploads_max_bytes(), private.unrecorded_uploads_max_count(), private.may_upload_attachment(text)
  from public;
revoke all on function public.unrecorded_attachment_objects(integer) from public, anon, authenticated;
grant execute on function public.unrecorded_attachment_objects(integer) to service_role;
grant execute on function private.attachment_recorded(text), private.may_upload_attachment(text) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- A file is visible with its message: the messages policies decide (requesters never see notes).
alter table public.attachments enable row level security;
revoke insert, update, delete on public.attachments from anon, authenticated;
create policy "who reads the message reads its files" on public.attachments for select to authenticated
  using (exists (select 1 from public.messages m where m.id = message_id));

-- The bucket mirrors the table: a recorded file is read by whoever may read its row; an upload not yet
-- recorded (a post in progress, or one that failed) only by its uploader, who may also remove it.
create policy "attachments: read with the message" on storage.objects for select to authenticated
  using (
    bucket_id = 'attachments'
    and (
      exists (select 1 from public.attachments a where a.path = name)
      or (owner_id = (select auth.uid())::text and not private.attachment_recorded(name))
    )
  );
create policy "attachments: upload to a thread one may write to" on storage.objects for insert to authenticated
  with check (
    bucket_id = 'attachments' and owner_id = (select auth.uid())::text and private.may_upload_attachment(name)
  );
create policy "attachments: remove one's unsent uploads" on storage.objects for delete to authenticated
  using (bucket_id = 'attachments' and owner_id = (select auth.uid())::text and not private.attachment_recorded(name));
