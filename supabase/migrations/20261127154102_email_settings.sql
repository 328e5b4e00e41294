create table "public"."workspace_email_settings" (
    "workspace_id" uuid not null,
    "sender_name" text,
    "sender_address" extensions.citext,
    "accent_color" text not null default '#1d4ed8'::text,
    "logo_path" text,
    "footer" text,
    "dkim_selector" text,
    "verification_token" text not null default encode(extensions.gen_random_bytes(16), 'hex'::text),
    "verified_domain" extensions.citext,
    "verified_at" timestamp with time zone,
    "updated_by" uuid,
    "updated_at" timestamp with time zone not null default now()
      );


alter table "public"."workspace_email_settings" enable row level security;

CREATE UNIQUE INDEX workspace_email_settings_pkey ON public.workspace_email_settings USING btree (workspace_id);

CREATE INDEX workspace_email_settings_updated_by_idx ON public.workspace_email_settings USING btree (updated_by);

alter table "public"."workspace_email_settings" add constraint "workspace_email_settings_pkey" PRIMARY KEY using index "workspace_email_settings_pkey";

alter table "public"."workspace_email_settings" add constraint "workspace_email_settings_accent_color_check" CHECK ((accent_color ~ '^#[0-9a-f]{6}$'::text)) not valid;

alter table "public"."workspace_email_settings" validate constraint "workspace_email_settings_accent_color_check";

alter table "public"."workspace_email_settings" add constraint "workspace_email_settings_dkim_selector_check" CHECK ((dkim_selector ~ '^[a-z0-9]([a-z0-9._-]{0,62})$'::text)) not valid;

alter table "public"."workspace_email_settings" validate constraint "workspace_email_settings_dkim_selector_check";

alter table "public"."workspace_email_settings" add constraint "workspace_email_settings_footer_check" CHECK ((char_length(footer) <= 500)) not valid;

alter table "public"."workspace_email_settings" validate constraint "workspace_email_settings_footer_check";

alter table "public"."workspace_email_settings" add constraint "workspace_email_settings_logo_path_check" CHECK ((logo_path ~ '^[0-9a-f-]{36}/[0-9a-f-]{36}\.(png|jpg|gif|webp)$'::text)) not valid;

alter table "public"."workspace_email_settings" validate constraint "workspace_email_settings_logo_path_check";

alter table "public"."workspace_email_settings" add constraint "workspace_email_settings_sender_address_check" CHECK (((char_length((sender_address)::text) <= 254) AND ((sender_address)::text ~ '^[^@\s"<>,;()\\]+@[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$'::text))) not valid;

alter table "public"."workspace_email_settings" validate constraint "workspace_email_settings_sender_address_check";

alter table "public"."workspace_email_settings" add constraint "workspace_email_settings_sender_name_check" CHECK (((char_length(sender_name) >= 1) AND (char_length(sender_name) <= 80) AND (sender_name !~ '[\x00-\x1f"<>]'::text))) not valid;

alter table "public"."workspace_email_settings" validate constraint "workspace_email_settings_sender_name_check";

alter table "public"."workspace_email_settings" add constraint "workspace_email_settings_updated_by_fkey" FOREIGN KEY (updated_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."workspace_email_settings" validate constraint "workspace_email_settings_updated_by_fkey";

alter table "public"."workspace_email_settings" add constraint "workspace_email_settings_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."workspace_email_settings" validate constraint "workspace_email_settings_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.email_settings_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  new.updated_by := auth.uid();
  new.updated_at := now();
  if tg_op = 'UPDATE' and lower(split_part(new.sender_address::text, '@', 2)) is distinct from lower(split_part(old.sender_address::text, '@', 2)) then
    new.verification_token := encode(extensions.gen_random_bytes(16), 'hex');
    new.verified_domain := null;
    new.verified_at := null;
  end if;
  return new;
end $function$
;


  create policy "admins change their workspace's email settings"
  on "public"."workspace_email_settings"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)))
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins set their workspace's email settings"
  on "public"."workspace_email_settings"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "members read their workspace's email settings"
  on "public"."workspace_email_settings"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "branding: admins list their workspace's"
  on "storage"."objects"
  as permissive
  for select
  to authenticated
using (((bucket_id = 'branding'::text) AND ((storage.foldername(name))[1] IN ( SELECT (private.admin_workspaces())::text AS admin_workspaces))));



  create policy "branding: admins remove their workspace's"
  on "storage"."objects"
  as permissive
  for delete
  to authenticated
using (((bucket_id = 'branding'::text) AND ((storage.foldername(name))[1] IN ( SELECT (private.admin_workspaces())::text AS admin_workspaces))));



  create policy "branding: admins upload for their workspace"
  on "storage"."objects"
  as permissive
  for insert
  to authenticated
with check (((bucket_id = 'branding'::text) AND ((storage.foldername(name))[1] IN ( SELECT (private.admin_workspaces())::text AS admin_workspaces))));


CREATE TRIGGER workspace_email_settings_changed BEFORE INSERT OR UPDATE ON public.workspace_email_settings FOR EACH ROW EXECUTE FUNCTION private.email_settings_changed();

grant insert (accent_color) on table public.workspace_email_settings to authenticated;
grant insert (dkim_selector) on table public.workspace_email_settings to authenticated;
grant insert (footer) on table public.workspace_email_settings to authenticated;
grant insert (logo_path) on table public.workspace_email_settings to authenticated;
grant insert (sender_address) on table public.workspace_email_settings to authenticated;
grant insert (sender_name) on table public.workspace_email_settings to authenticated;
grant insert (workspace_id) on table public.workspace_email_settings to authenticated;
grant update (accent_color) on table public.workspace_email_settings to authenticated;
grant update (dkim_selector) on table public.workspace_email_settings to authenticated;
grant update (footer) on table public.workspace_email_settings to authenticated;
grant update (logo_path) on table public.workspace_email_settings to authenticated;
grant update (sender_address) on table public.workspace_email_settings to authenticated;
grant update (sender_name) on table public.workspace_email_settings to authenticated;
revoke delete on table public.workspace_email_settings from anon;
revoke delete on table public.workspace_email_settings from authenticated;
revoke execute on function private.email_settings_changed() from public;
revoke insert on table public.workspace_email_settings from anon;
revoke insert on table public.workspace_email_settings from authenticated;
revoke maintain on table public.workspace_email_settings from anon;
revoke maintain on table public.workspace_email_settings from authenticated;
revoke references on table public.workspace_email_settings from anon;
revoke references on table public.workspace_email_settings from authenticated;
revoke select on table public.workspace_email_settings from anon;
revoke trigger on table public.workspace_email_settings from anon;
revoke trigger on table public.workspace_email_settings from authenticated;
revoke truncate on table public.workspace_email_settings from anon;
revoke truncate on table public.workspace_email_settings from authenticated;
revoke update on table public.workspace_email_settings from anon;
revoke update on table public.workspace_email_settings from authenticated;

grant insert (accent_color) on table public.workspace_email_settings to authenticated;
grant insert (dkim_selector) on table public.workspace_email_settings to authenticated;
grant insert (footer) on table public.workspace_email_settings to authenticated;
grant insert (logo_path) on table public.workspace_email_settings to authenticated;
grant insert (sender_address) on table public.workspace_email_settings to authenticated;
grant insert (sender_name) on table public.workspace_email_settings to authenticated;
grant insert (workspace_id) on table public.workspace_email_settings to authenticated;
grant update (accent_color) on table public.workspace_email_settings to authenticated;
grant update (dkim_selector) on table public.workspace_email_settings to authenticated;
grant update (footer) on table public.workspace_email_settings to authenticated;
grant update (logo_path) on table public.workspace_email_settings to authenticated;
grant update (sender_address) on table public.workspace_email_settings to authenticated;
grant update (sender_name) on table public.workspace_email_settings to authenticated;
