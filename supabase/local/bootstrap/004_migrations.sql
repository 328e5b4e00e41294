-- Where the Supabase CLI records applied migrations and seeds (`supabase migration list` reads it).
create table if not exists supabase_migrations.schema_migrations (
  version text primary key,
  statements text[],
  name text
);
create table if not exists supabase_migrations.seed_files (
  path text primary key,
  hash text not null
);
-- The local stack's own record of which bootstrap files ran (by content hash), so a warm start skips them.
create table if not exists supabase_migrations.local_bootstrap (
  file text primary key,
  sha256 text not null,
  applied_at timestamptz not null default now()
);
grant usage on schema supabase_migrations to postgres;
grant all on all tables in schema supabase_migrations to postgres;
