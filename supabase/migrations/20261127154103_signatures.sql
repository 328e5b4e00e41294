create table "public"."signatures" (
    "user_id" uuid not null default auth.uid(),
    "body" text not null
      );


alter table "public"."signatures" enable row level security;

CREATE UNIQUE INDEX signatures_pkey ON public.signatures USING btree (user_id);

alter table "public"."signatures" add constraint "signatures_pkey" PRIMARY KEY using index "signatures_pkey";

alter table "public"."signatures" add constraint "signatures_body_check" CHECK (((char_length(body) <= 1000) AND (btrim(body) <> ''::text))) not valid;

alter table "public"."signatures" validate constraint "signatures_body_check";

alter table "public"."signatures" add constraint "signatures_user_id_fkey" FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE not valid;

alter table "public"."signatures" validate constraint "signatures_user_id_fkey";


  create policy "users change their own signature"
  on "public"."signatures"
  as permissive
  for update
  to authenticated
using ((user_id = ( SELECT auth.uid() AS uid)))
with check ((user_id = ( SELECT auth.uid() AS uid)));



  create policy "users read their own signature"
  on "public"."signatures"
  as permissive
  for select
  to authenticated
using ((user_id = ( SELECT auth.uid() AS uid)));



  create policy "users remove their own signature"
  on "public"."signatures"
  as permissive
  for delete
  to authenticated
using ((user_id = ( SELECT auth.uid() AS uid)));



  create policy "users set their own signature"
  on "public"."signatures"
  as permissive
  for insert
  to authenticated
with check ((user_id = ( SELECT auth.uid() AS uid)));

grant insert (body) on table public.signatures to authenticated;
grant update (body) on table public.signatures to authenticated;
revoke delete on table public.signatures from anon;
revoke insert on table public.signatures from anon;
revoke insert on table public.signatures from authenticated;
revoke maintain on table public.signatures from anon;
revoke maintain on table public.signatures from authenticated;
revoke references on table public.signatures from anon;
revoke references on table public.signatures from authenticated;
revoke select on table public.signatures from anon;
revoke trigger on table public.signatures from anon;
revoke trigger on table public.signatures from authenticated;
revoke truncate on table public.signatures from anon;
revoke truncate on table public.signatures from authenticated;
revoke update on table public.signatures from anon;
revoke update on table public.signatures from authenticated;

grant insert (body) on table public.signatures to authenticated;
grant update (body) on table public.signatures to authenticated;
