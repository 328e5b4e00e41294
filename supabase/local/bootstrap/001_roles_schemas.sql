-- Roles, schemas and grants as Supabase's Postgres image sets them up (docs/reference/auth.md §5).
-- Idempotent: every statement checks before it creates.
do $$
declare r text;
begin
  foreach r in array array['anon', 'authenticated', 'service_role'] loop
    if not exists (select 1 from pg_roles where rolname = r) then
      execute format('create role %I nologin noinherit', r);
    end if;
  end loop;
  -- The cluster's superuser is supabase_admin; postgres is the demoted owner apps use (hosted Supabase's
  -- "demote-postgres"), so a migration that needs superuser fails here as it would when deployed.
  if not exists (select 1 from pg_roles where rolname = 'postgres') then
    create role postgres login createdb createrole replication bypassrls password 'postgres';
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticator') then
    create role authenticator login noinherit password 'postgres';
  end if;
  if not exists (select 1 from pg_roles where rolname = 'supabase_auth_admin') then
    create role supabase_auth_admin login noinherit createrole password 'postgres';
  end if;
  if not exists (select 1 from pg_roles where rolname = 'supabase_storage_admin') then
    create role supabase_storage_admin login noinherit createrole password 'postgres';
  end if;
  if not exists (select 1 from pg_roles where rolname = 'supabase_realtime_admin') then
    create role supabase_realtime_admin nologin noinherit;
  end if;
end $$;

-- Later Supabase images make the API roles inherit (PG 20230529180330).
alter role anon inherit;
alter role authenticated inherit;
alter role service_role inherit bypassrls;
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
alter role authenticator set statement_timeout = '8s';
alter role supabase_auth_admin set search_path = auth;
alter role supabase_auth_admin set idle_in_transaction_session_timeout = 60000;

grant all on database postgres to postgres;
grant all on schema public to postgres with grant option;
grant anon, authenticated, service_role to authenticator;
grant anon, authenticated, service_role to postgres;
grant supabase_auth_admin, supabase_storage_admin to postgres;
grant authenticator to supabase_storage_admin;

create schema if not exists extensions;
create schema if not exists auth authorization supabase_auth_admin;
create schema if not exists storage authorization supabase_storage_admin;
create schema if not exists realtime;
create schema if not exists graphql_public;
create schema if not exists supabase_migrations;

create extension if not exists pgcrypto with schema extensions;
create extension if not exists citext with schema extensions;
create extension if not exists "uuid-ossp" with schema extensions;
create extension if not exists pg_trgm with schema extensions;

grant usage on schema public, extensions, graphql_public to anon, authenticated, service_role;
grant usage on schema auth, storage, realtime to anon, authenticated, service_role;
grant all on schema extensions to postgres with grant option;
grant all on schema auth, storage, realtime to postgres;
grant all on schema auth to supabase_auth_admin;
grant all on schema storage to supabase_storage_admin;
grant all on all functions in schema extensions to anon, authenticated, service_role;

-- Objects created in public by postgres are reachable by the API roles; RLS protects them.
alter default privileges for role postgres in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges for role postgres in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges for role postgres in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges for role postgres in schema graphql_public grant all on tables to anon, authenticated, service_role;
alter default privileges for role postgres in schema graphql_public grant all on functions to anon, authenticated, service_role;
alter default privileges for role postgres in schema graphql_public grant all on sequences to anon, authenticated, service_role;
alter default privileges for role postgres in schema storage grant all on tables to anon, authenticated, service_role;
alter default privileges for role postgres in schema storage grant all on functions to anon, authenticated, service_role;
alter default privileges for role postgres in schema storage grant all on sequences to anon, authenticated, service_role;
alter default privileges for role supabase_storage_admin in schema storage grant all on tables to anon, authenticated, service_role, postgres;
alter default privileges for role supabase_storage_admin in schema storage grant all on functions to anon, authenticated, service_role, postgres;
alter default privileges for role supabase_storage_admin in schema storage grant all on sequences to anon, authenticated, service_role, postgres;
alter default privileges for role supabase_auth_admin in schema auth grant all on tables to postgres;
alter default privileges for role supabase_auth_admin in schema auth grant all on functions to postgres;
alter default privileges for role supabase_auth_admin in schema auth grant all on sequences to postgres;

-- The database carries the JWT settings like the CLI's local database.
alter database postgres set search_path = "$user", public, extensions;

do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end $$;
