drop policy "members read their workspace's surveys" on "public"."csat_surveys";

drop policy "requesters read their own surveys" on "public"."csat_surveys";


  create policy "members and requesters read surveys"
  on "public"."csat_surveys"
  as permissive
  for select
  to authenticated
using (((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)) OR (requester_id = ( SELECT auth.uid() AS uid))));
