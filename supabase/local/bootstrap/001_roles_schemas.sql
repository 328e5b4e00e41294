-- Roles, schemas and grants as Supabase's Postgres image sets them up (docs/reference/auth.md §5;
-- supabase/postgres migrations/db/init-scripts and migrations/db/migrations, expected roles in
-- nix/tests/expected/z_17_roles.out). Idempotent: every statement checks before it creates.
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
  -- The image's other roles: nothing here logs in as them, but dumps and migrations from hosted
  -- name them (grants to dashboard_user, say), which must not fail with "role does not exist".
  if not exists (select 1 from pg_roles where rolname = 'dashboard_user') then
    create role dashboard_user nologin createdb createrole replication;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'supabase_replication_admin') then
    create role supabase_replication_admin login replication;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'supabase_read_only_user') then
    create role supabase_read_only_user login bypassrls;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'pgbouncer') then
    create role pgbouncer login;
  end if;
end $$;

-- Later Supabase images make the API roles inherit (PG 20230529180330).
alter role anon inherit;
alter role authenticated inherit;
alter role service_role inherit bypassrls;
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
alter role authenticator set statement_timeout = '8s';
alter role authenticator set lock_timeout = '8s';
alter role postgres set search_path = "$user", public, extensions;
alter role supabase_auth_admin set search_path = auth;
alter role supabase_auth_admin set idle_in_transaction_session_timeout = 60000;

grant all on database postgres to postgres;
grant all on schema public to postgres with grant option;
grant anon, authenticated, service_role to authenticator;
-- Since PG 16 a CREATEROLE role needs ADMIN OPTION to grant or alter a role it did not create, so
-- the image gives postgres the API roles with it (20250605172253_grant_with_admin_to_postgres_16_and_above;
-- authenticator too, per z_17_roles.out): migrations written for hosted can `grant authenticated to
-- <role>`, `alter role authenticator set ...` and `alter role anon set statement_timeout`.
grant anon, authenticated, service_role, authenticator to postgres with admin option;
grant pg_monitor, pg_read_all_data, pg_signal_backend to postgres with admin option;
grant pg_create_subscription to postgres;
grant pg_read_all_data to supabase_read_only_user;
-- Hosted lets postgres set PostgREST's in-database settings and a few superuser ones on roles
-- (supautils' allowed configs, as the CLI's db dump lists them: pgrst.*, session_replication_role,
-- track_io_timing, pgaudit.*); plain Postgres needs a grant per parameter name. PostgREST 12 reads
-- the pgrst.* ones from authenticator's settings (docs.postgrest.org, "In-Database Configuration").
grant set on parameter
  pgrst.db_aggregates_enabled, pgrst.db_anon_role, pgrst.db_extra_search_path, pgrst.db_hoisted_tx_settings,
  pgrst.db_max_rows, pgrst.db_plan_enabled, pgrst.db_pre_config, pgrst.db_pre_request,
  pgrst.db_prepared_statements, pgrst.db_root_spec, pgrst.db_schemas, pgrst.db_tx_end, pgrst.jwt_aud,
  pgrst.jwt_role_claim_key, pgrst.jwt_secret, pgrst.jwt_secret_is_base64, pgrst.jwt_cache_max_lifetime,
  pgrst.openapi_mode, pgrst.openapi_security_active, pgrst.openapi_server_proxy_uri,
  pgrst.server_cors_allowed_origins, pgrst.server_timing_enabled, pgrst.server_trace_header,
  session_replication_role, track_io_timing, pgaudit.log, pgaudit.log_catalog, pgaudit.log_parameter,
  pgaudit.log_relation, pgaudit.log_statement, pgaudit.role
  to postgres;
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
grant usage on schema storage, realtime to postgres with grant option;
grant all on schema auth to supabase_auth_admin;
grant all on schema storage to supabase_storage_admin;
grant all on all functions in schema extensions to anon, authenticated, service_role;
grant all on all tables in schema extensions to postgres with grant option;
grant all on all routines in schema extensions to postgres with grant option;
grant all on all sequences in schema extensions to postgres with grant option;

-- Objects created in public by postgres are reachable by the API roles; RLS protects them. (The
-- image grants the same for supabase_admin's; here nothing of the stack's lives in public, and
-- tests arrange tables as supabase_admin expecting no grants, so that default is left out.)
-- Extensions' objects (created by supabase_admin) are postgres's to grant on (20230224042246).
alter default privileges in schema extensions grant all on tables to postgres with grant option;
alter default privileges in schema extensions grant all on routines to postgres with grant option;
alter default privileges in schema extensions grant all on sequences to postgres with grant option;
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
