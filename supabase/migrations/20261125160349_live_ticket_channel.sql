set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.may_use_ticket_channel(topic text)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select exists (
    select 1 from public.tickets t
    -- case: a malformed topic is no ticket, never a cast error (where clauses have no fixed order)
    where t.id = case when topic ~ '^ticket:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        then substr(topic, 8)::uuid end
      and t.workspace_id in (select private.member_workspaces())
  )
$function$
;


  create policy "members join the live channel of their workspace's tickets"
  on "realtime"."messages"
  as permissive
  for select
  to authenticated
using (((extension = ANY (ARRAY['presence'::text, 'broadcast'::text])) AND ( SELECT private.may_use_ticket_channel(realtime.topic()) AS may_use_ticket_channel)));



  create policy "members signal on the live channel of their workspace's tickets"
  on "realtime"."messages"
  as permissive
  for insert
  to authenticated
with check (((extension = ANY (ARRAY['presence'::text, 'broadcast'::text])) AND ( SELECT private.may_use_ticket_channel(realtime.topic()) AS may_use_ticket_channel)));

grant execute on function private.may_use_ticket_channel(topic text) to authenticated;
revoke execute on function private.may_use_ticket_channel(topic text) from public;
