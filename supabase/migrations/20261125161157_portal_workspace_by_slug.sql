drop policy "signed-in users read a workspace's portal name" on "public"."workspaces";

drop policy "visitors read a workspace's portal name" on "public"."workspaces";

drop function if exists "public"."portal_workspace"(p_slug text);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.portal_workspace(p_slug text)
 RETURNS TABLE(id uuid, slug text, name text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select w.id, w.slug, w.name from public.workspaces w where w.slug = lower(trim(p_slug))
$function$
;


  create policy "members and requesters read their workspaces"
  on "public"."workspaces"
  as permissive
  for select
  to authenticated
using (((id IN ( SELECT private.member_workspaces() AS member_workspaces)) OR (id IN ( SELECT t.workspace_id
   FROM tickets t
  WHERE (t.requester_id = ( SELECT auth.uid() AS uid))))));

revoke execute on function public.portal_workspace(p_slug text) from public;
revoke select (id) on table public.workspaces from anon;
revoke select (name) on table public.workspaces from anon;
revoke select (slug) on table public.workspaces from anon;
