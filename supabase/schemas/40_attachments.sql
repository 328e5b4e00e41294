-- Files on requests, replies and notes (docs/product.md §3, §5, §6). The app streams each file to the
-- private bucket `attachments` (supabase/config.toml) as the user, at
-- <workspace_id>/<ticket_id>/<attachment_id>/<safe file name>; create_ticket and post_message then
-- record them with the message in one transaction. Who may read a file is who may read its message.

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
  created_at timestamptz not null default now()
);
create index attachments_message_idx on public.attachments (message_id);
create index attachments_ticket_idx on public.attachments (ticket_id);
create index attachments_workspace_idx on public.attachments (workspace_id);

-- The most files one message carries (ATTACHMENTS_PER_MESSAGE, supabase/functions/_shared/limits.ts),
-- said here once: more is too_many_attachments.
create function private.check_attachment_count(p_files jsonb) returns void
language plpgsql immutable set search_path = '' as $$
begin
  if jsonb_typeof(p_files) = 'array' and jsonb_array_length(p_files) > 5 then
    raise exception using errcode = 'P0001', message = 'too_many_attachments';
  end if;
end $$;

-- Files a message carries: each an object the caller uploaded to the message's ticket folder
-- (size and type as storage recorded them, not as the caller says). p_files: [{id, file_name,
-- storage_name}], at most ATTACHMENTS_PER_MESSAGE.
create function private.attach_files(p_message_id uuid, p_files jsonb) returns void
language plpgsql security definer set search_path = '' as $$
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
  perform private.check_attachment_count(p_files);
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
end $$;

-- Files that came with an email (inbound-email, service_role): recorded with the message it made, in its
-- transaction, before their bytes are stored (the function uploads each to the path returned next, and
-- a replayed webhook uploads what is missing), so a replay records nothing twice. Sizes and types as
-- the function measured them, held to the bucket's own limits. p_files: [{id, file_name, storage_name,
-- size, mime_type}], at most ATTACHMENTS_PER_MESSAGE. Returns [{id, path}].
create function private.attach_received_files(p_message_id uuid, p_files jsonb) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  m public.messages;
  b storage.buckets;
  f jsonb;
begin
  select * into m from public.messages where id = p_message_id;
  select * into b from storage.buckets where id = 'attachments';
  perform private.check_attachment_count(p_files);
  for f in select value from jsonb_array_elements(coalesce(p_files, '[]')) loop
    if coalesce(f->>'storage_name', '') = '' or strpos(f->>'storage_name', '/') > 0 then
      raise exception using errcode = 'P0001', message = 'bad_request', detail = 'attachment name';
    end if;
    if (f->>'size')::bigint > coalesce(b.file_size_limit, (f->>'size')::bigint) then
      raise exception using errcode = 'P0001', message = 'attachment_too_large';
    end if;
    if b.allowed_mime_types is not null and not (f->>'mime_type' = any (b.allowed_mime_types)) then
      raise exception using errcode = 'P0001', message = 'attachment_type';
    end if;
    insert into public.attachments (id, message_id, ticket_id, workspace_id, uploader_id, path, file_name, size, mime_type)
    values ((f->>'id')::uuid, m.id, m.ticket_id, m.workspace_id, m.author_id,
            m.workspace_id || '/' || m.ticket_id || '/' || (f->>'id')::uuid || '/' || (f->>'storage_name'),
            left(coalesce(nullif(f->>'file_name', ''), f->>'storage_name'), 255), (f->>'size')::bigint, f->>'mime_type');
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

-- Whether the caller may upload to this key: <workspace>/<ticket>/<attachment>/<name> on a ticket
-- they may write to (its requester, or a member of its workspace; not closed), or on a ticket id not
-- taken yet in an existing workspace (a request being opened: create_ticket takes that id next).
create function private.may_upload_attachment(p_path text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
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
end $$;

revoke all on function private.check_attachment_count(jsonb), private.attach_files(uuid, jsonb),
  private.attach_received_files(uuid, jsonb), private.message_files(uuid), private.attachment_recorded(text), private.may_upload_attachment(text) from public;
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
