-- Vault as the supabase_vault extension exposes it on hosted (supabase/vault: vault.secrets,
-- vault.create_secret, vault.update_secret, vault.decrypted_secrets), so a migration that reads
-- `select decrypted_secret from vault.decrypted_secrets where name = 'project_url'` runs unchanged
-- locally. Hosted encrypts `secret` with pgsodium (a key outside the database); here it is stored
-- as given: a local database holds only local keys. The stack writes `project_url` and
-- `service_role_key` at every start (stack.ts). Idempotent: every statement checks before it creates.
create schema if not exists vault authorization supabase_admin;

create table if not exists vault.secrets (
  id uuid primary key default gen_random_uuid(),
  name text,
  description text not null default '',
  secret text not null,
  key_id uuid,
  nonce bytea,
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp
);
alter table vault.secrets owner to supabase_admin;
comment on table vault.secrets is 'Table with encrypted `secret` column for storing sensitive information on disk.';
create unique index if not exists secrets_name_idx on vault.secrets (name) where name is not null;

create or replace view vault.decrypted_secrets as
  select s.id, s.name, s.description, s.secret, s.secret as decrypted_secret, s.key_id, s.nonce, s.created_at, s.updated_at
    from vault.secrets s;
alter view vault.decrypted_secrets owner to supabase_admin;

create or replace function vault.create_secret(
  new_secret text, new_name text default null, new_description text default '', new_key_id uuid default null
) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  rec record;
begin
  insert into vault.secrets (secret, name, description, key_id)
  values (new_secret, new_name, new_description, new_key_id)
  returning * into rec;
  return rec.id;
end $$;
alter function vault.create_secret(text, text, text, uuid) owner to supabase_admin;

create or replace function vault.update_secret(
  secret_id uuid, new_secret text default null, new_name text default null, new_description text default null,
  new_key_id uuid default null
) returns void
language plpgsql security definer set search_path = '' as $$
begin
  update vault.secrets s
     set secret = coalesce(new_secret, s.secret),
         name = coalesce(new_name, s.name),
         description = coalesce(new_description, s.description),
         key_id = coalesce(new_key_id, s.key_id),
         updated_at = current_timestamp
   where s.id = secret_id;
end $$;
alter function vault.update_secret(uuid, text, text, text, uuid) owner to supabase_admin;

-- supabase_vault's grants: postgres (migrations, the SQL editor) reads and manages secrets; the API
-- roles get nothing.
revoke all on schema vault from public;
revoke all on all tables in schema vault from public;
revoke all on function vault.create_secret(text, text, text, uuid), vault.update_secret(uuid, text, text, text, uuid)
  from public;
grant usage on schema vault to postgres with grant option;
grant select, delete on vault.secrets to postgres with grant option;
grant select on vault.decrypted_secrets to postgres with grant option;
grant execute on function vault.create_secret(text, text, text, uuid), vault.update_secret(uuid, text, text, text, uuid)
  to postgres with grant option;
