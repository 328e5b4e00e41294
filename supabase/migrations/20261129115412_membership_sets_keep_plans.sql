set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.admin_workspaces()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query select workspace_id from public.memberships where user_id = (select auth.uid()) and role = 'admin';
end $function$
;

CREATE OR REPLACE FUNCTION private.member_workspaces()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query select workspace_id from public.memberships where user_id = (select auth.uid());
end $function$
;
