-- The storage schema as storage-api's tenant migrations leave it (docs/reference/storage-functions.md A3).
-- Owned by supabase_storage_admin; RLS on; the API roles get table privileges and RLS decides.
set role supabase_storage_admin;

do $$
begin
  if not exists (select 1 from pg_type t join pg_namespace n on n.oid = t.typnamespace where n.nspname = 'storage' and t.typname = 'buckettype') then
    create type storage.buckettype as enum ('STANDARD', 'ANALYTICS');
  end if;
end $$;

create table if not exists storage.buckets (
  id text primary key,
  name text not null,
  owner uuid,
  owner_id text,
  public boolean default false,
  avif_autodetection boolean default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  type storage.buckettype not null default 'STANDARD',
  created_at timestamptz default now(),
  updated_at timestamptz default now()
);
alter table storage.buckets add column if not exists versioning_status text not null default 'DISABLED';
create unique index if not exists bname on storage.buckets using btree (name);
alter table storage.buckets enable row level security;

create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text references storage.buckets (id),
  name text,
  owner uuid,
  owner_id text,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now(),
  metadata jsonb,
  user_metadata jsonb,
  version text,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored
);
alter table storage.objects add column if not exists archived_at timestamptz;
alter table storage.objects add column if not exists is_delete_marker boolean not null default false;
alter table storage.objects add column if not exists is_versioned boolean not null default false;
create unique index if not exists bucketid_objname on storage.objects using btree (bucket_id, name);
create index if not exists name_prefix_search on storage.objects using btree (name text_pattern_ops);
alter table storage.objects enable row level security;

create or replace function storage.foldername(name text) returns text[] language plpgsql immutable as $$
declare _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1 : array_length(_parts, 1) - 1];
end $$;

create or replace function storage.filename(name text) returns text language plpgsql immutable as $$
declare _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[array_length(_parts, 1)];
end $$;

create or replace function storage.extension(name text) returns text language plpgsql immutable as $$
declare _parts text[]; _filename text;
begin
  select string_to_array(name, '/') into _parts;
  select _parts[array_length(_parts, 1)] into _filename;
  return reverse(split_part(reverse(_filename), '.', 1));
end $$;

create or replace function storage.update_updated_at_column() returns trigger language plpgsql as $$
begin
  new.updated_at = now();
  return new;
end $$;
drop trigger if exists update_objects_updated_at on storage.objects;
create trigger update_objects_updated_at before update on storage.objects
  for each row execute function storage.update_updated_at_column();

create or replace function storage.operation() returns text language plpgsql stable as $$
begin
  return current_setting('storage.operation', true);
end $$;

-- Policies that allow one operation (0058): names with or without their "storage." prefix.
create or replace function storage.allow_only_operation(expected_operation text) returns boolean
language sql stable as $$
  select coalesce(expected_operation, '') <> ''
     and regexp_replace(coalesce(storage.operation(), ''), '^storage\.', '') = regexp_replace(expected_operation, '^storage\.', '')
$$;

create or replace function storage.allow_any_operation(expected_operations text[]) returns boolean
language sql stable as $$
  select exists (
    select 1 from unnest(expected_operations) as e
     where coalesce(e, '') <> ''
       and regexp_replace(e, '^storage\.', '') = regexp_replace(coalesce(storage.operation(), ''), '^storage\.', '')
  )
$$;

create or replace function storage.get_size_by_bucket() returns table (size bigint, bucket_id text)
language sql stable as $$
  select sum((metadata ->> 'size')::bigint)::bigint, bucket_id from storage.objects group by bucket_id
$$;

-- Bucket names longer than 100 characters are refused by the database too (0037).
create or replace function storage.enforce_bucket_name_length() returns trigger language plpgsql as $$
begin
  if length(new.name) > 100 then
    raise exception 'bucket name "%" is too long (% characters). Max is 100.', new.name, length(new.name);
  end if;
  return new;
end $$;
drop trigger if exists enforce_bucket_name_length_trigger on storage.buckets;
create trigger enforce_bucket_name_length_trigger before insert or update of name on storage.buckets
  for each row execute function storage.enforce_bucket_name_length();

-- Rows of objects go through the Storage API, which removes their files too (0055): a plain DELETE
-- is refused unless the transaction says it is the API (storage.allow_delete_query).
create or replace function storage.protect_delete() returns trigger language plpgsql as $$
begin
  if coalesce(current_setting('storage.allow_delete_query', true), 'false') <> 'true' then
    raise exception 'Direct deletion from storage tables is not allowed. Use the Storage API instead.'
      using hint = 'This prevents accidental data loss from orphaned objects.', errcode = '42501';
  end if;
  return null;
end $$;
drop trigger if exists protect_buckets_delete on storage.buckets;
create trigger protect_buckets_delete before delete on storage.buckets
  for each statement execute function storage.protect_delete();
drop trigger if exists protect_objects_delete on storage.objects;
create trigger protect_objects_delete before delete on storage.objects
  for each statement execute function storage.protect_delete();

-- One folder level of a bucket, as POST /object/list reads it (storage-api's search at 0063, same
-- signature and rows): the entries under `prefix` whose names start with prefix || search (any
-- case). Sorted by name, folders and files come in one case-insensitive byte order; sorted by
-- another column, the folders come first (by name), then the files. Names are relative to the
-- prefix; a folder has null id, dates and metadata. `levels` is unused, as at 0063. SECURITY
-- INVOKER, so the caller's storage.objects policies decide what is listed.
create or replace function storage.search(
  prefix text, bucketname text, limits int default 100, levels int default 1, offsets int default 0,
  search text default '', sortcolumn text default 'name', sortorder text default 'asc'
) returns table (name text, id uuid, updated_at timestamptz, created_at timestamptz,
                 last_accessed_at timestamptz, metadata jsonb)
language plpgsql stable security invoker as $$
declare
  v_dir text := case when lower(coalesce(sortorder, 'asc')) = 'desc' then 'desc' else 'asc' end;
  v_column text := case lower(coalesce(sortcolumn, 'name'))
    when 'updated_at' then 'updated_at' when 'created_at' then 'created_at'
    when 'last_accessed_at' then 'last_accessed_at' else 'name' end;
  v_order text;
begin
  v_order := case when v_column = 'name' then format('sort_key collate "C" %s', v_dir)
    else format('is_folder desc, case when is_folder then entry end %1$s, %2$I %1$s', v_dir, v_column) end;
  return query execute format($q$
    with matching as (
      select o.name as key, substr(o.name, length($1) + 1) as rest, o.id, o.updated_at, o.created_at,
             o.last_accessed_at, o.metadata
        from storage.objects o
       where o.bucket_id = $2 and starts_with(lower(o.name), lower($1 || $3))
    ), listing as (
      select split_part(rest, '/', 1) as entry, null::uuid as id, null::timestamptz as updated_at,
             null::timestamptz as created_at, null::timestamptz as last_accessed_at, null::jsonb as metadata,
             true as is_folder, lower($1 || split_part(rest, '/', 1) || '/') as sort_key
        from matching where strpos(rest, '/') > 0
       group by split_part(rest, '/', 1)
      union all
      select rest, id, updated_at, created_at, last_accessed_at, metadata, false, lower(key)
        from matching where strpos(rest, '/') = 0
    )
    select entry, id, updated_at, created_at, last_accessed_at, metadata from listing
     order by %s limit $4 offset $5
  $q$, v_order) using coalesce(prefix, ''), bucketname, coalesce(search, ''),
    least(coalesce(limits, 100), 1500), coalesce(offsets, 0);
end $$;

reset role;

grant all on storage.buckets, storage.objects to anon, authenticated, service_role, postgres;
grant execute on all functions in schema storage to anon, authenticated, service_role, postgres;
