-- Tend's database, declared (docs/decisions: declarative schema). The files run in name order; each
-- table, policy, function and trigger is defined once, in the file of its domain. Change a file, then
-- `npm run stack -- db diff -f <name>` writes the migration.
--
-- Errors the app maps to its catalogue (app/lib/errors/catalogue.ts) are raised as
--   raise exception using errcode = 'P0001', message = '<catalogue code>', detail = '<context>';
-- PostgREST returns them as {"code": "P0001", "message": "<catalogue code>", "details": "<context>"}.

-- Helpers for policies and triggers. Not exposed through PostgREST; anon never reaches them (its one
-- policy is `using (true)` and its one RPC is security definer); authenticated executes the helpers
-- its policies and security invoker RPCs call. Trigger functions fire without EXECUTE.
create schema if not exists private;
grant usage on schema private to authenticated, service_role;

-- The platform: service_role, or a direct database session (seed, migrations, jobs). A PostgREST
-- request without claims runs as anon with no role claim: that is not the platform.
-- plpgsql, not sql: a sql function with a SET clause is never inlined and is planned again at every call (notify's
-- batch calls it once per email it claims); plpgsql keeps its expression planned for the session.
create function private.is_system() returns boolean
language plpgsql stable set search_path = '' as $$
begin
  return coalesce(auth.role() = 'service_role', false)
      or (auth.role() is null and coalesce(current_setting('role', true), 'none') not in ('anon', 'authenticated'));
end $$;
revoke all on function private.is_system() from public;
grant execute on function private.is_system() to authenticated, service_role;
