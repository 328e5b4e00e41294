set check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.remove_member(p_workspace_id uuid, p_user_id uuid, p_reassign_to uuid DEFAULT NULL::uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  n integer := 0;
begin
  if p_reassign_to = p_user_id then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'reassign to someone else';
  end if;
  if p_reassign_to is not null then
    update public.tickets set assignee_id = p_reassign_to
     where workspace_id = p_workspace_id and assignee_id = p_user_id and status <> 'closed';
    get diagnostics n = row_count;
  end if;
  delete from public.memberships where workspace_id = p_workspace_id and user_id = p_user_id;
  if not found then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'membership';
  end if;
  return n;
end $function$
;

revoke execute on function public.remove_member(p_workspace_id uuid, p_user_id uuid, p_reassign_to uuid) from anon;
revoke execute on function public.remove_member(p_workspace_id uuid, p_user_id uuid, p_reassign_to uuid) from public;
