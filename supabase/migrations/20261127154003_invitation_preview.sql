set check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.invitation_preview(p_token text)
 RETURNS TABLE(workspace_name text, inviter_name text, role member_role, email text, problem text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select w.name, p.display_name, i.role, i.email::text,
         case when i.accepted_at is not null then 'accepted' when i.revoked_at is not null then 'revoked'
              when i.expires_at <= now() then 'expired' end
    from public.invitations i
    join public.workspaces w on w.id = i.workspace_id
    left join public.profiles p on p.user_id = i.invited_by
   where i.token_hash = encode(extensions.digest(coalesce(p_token, ''), 'sha256'), 'hex')
$function$
;

revoke execute on function public.invitation_preview(p_token text) from anon;
revoke execute on function public.invitation_preview(p_token text) from public;
