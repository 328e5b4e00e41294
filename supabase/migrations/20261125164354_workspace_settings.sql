create table "public"."workspace_slug_history" (
    "slug" text not null,
    "workspace_id" uuid not null,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."workspace_slug_history" enable row level security;

alter table "public"."workspaces" add column "time_zone" text not null default 'UTC'::text;

CREATE UNIQUE INDEX workspace_slug_history_pkey ON public.workspace_slug_history USING btree (slug);

CREATE INDEX workspace_slug_history_workspace_idx ON public.workspace_slug_history USING btree (workspace_id);

alter table "public"."workspace_slug_history" add constraint "workspace_slug_history_pkey" PRIMARY KEY using index "workspace_slug_history_pkey";

alter table "public"."workspace_slug_history" add constraint "workspace_slug_history_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."workspace_slug_history" validate constraint "workspace_slug_history_workspace_id_fkey";

alter table "public"."workspaces" add constraint "workspaces_time_zone_check" CHECK (((char_length(time_zone) >= 1) AND (char_length(time_zone) <= 64))) not valid;

alter table "public"."workspaces" validate constraint "workspaces_time_zone_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.check_workspace_time_zone()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  if not exists (select 1 from pg_catalog.pg_timezone_names where name = new.time_zone) then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'unknown time zone';
  end if;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION private.remember_workspace_slug()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from public.workspace_slug_history where slug = new.slug;
  insert into public.workspace_slug_history (slug, workspace_id) values (old.slug, new.id)
  on conflict (slug) do update set workspace_id = excluded.workspace_id, created_at = now();
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION public.workspace_slug_redirect(p_slug text)
 RETURNS text
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select w.slug from public.workspace_slug_history h join public.workspaces w on w.id = h.workspace_id
   where h.slug = lower(trim(p_slug))
$function$
;

CREATE TRIGGER workspaces_slug_history AFTER UPDATE OF slug ON public.workspaces FOR EACH ROW WHEN ((old.slug IS DISTINCT FROM new.slug)) EXECUTE FUNCTION private.remember_workspace_slug();

CREATE TRIGGER workspaces_time_zone BEFORE INSERT OR UPDATE OF time_zone ON public.workspaces FOR EACH ROW EXECUTE FUNCTION private.check_workspace_time_zone();

grant select (time_zone) on table public.workspaces to authenticated;
grant update (time_zone) on table public.workspaces to authenticated;
revoke delete on table public.workspace_slug_history from anon;
revoke delete on table public.workspace_slug_history from authenticated;
revoke execute on function private.check_workspace_time_zone() from public;
revoke execute on function private.remember_workspace_slug() from public;
revoke execute on function public.workspace_slug_redirect(p_slug text) from public;
revoke insert on table public.workspace_slug_history from anon;
revoke insert on table public.workspace_slug_history from authenticated;
revoke maintain on table public.workspace_slug_history from anon;
revoke maintain on table public.workspace_slug_history from authenticated;
revoke references on table public.workspace_slug_history from anon;
revoke references on table public.workspace_slug_history from authenticated;
revoke select on table public.workspace_slug_history from anon;
revoke select on table public.workspace_slug_history from authenticated;
revoke trigger on table public.workspace_slug_history from anon;
revoke trigger on table public.workspace_slug_history from authenticated;
revoke truncate on table public.workspace_slug_history from anon;
revoke truncate on table public.workspace_slug_history from authenticated;
revoke update on table public.workspace_slug_history from anon;
revoke update on table public.workspace_slug_history from authenticated;
