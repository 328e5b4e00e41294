-- Who reads whose profile: yourself, co-members, the requesters and followers of your workspaces' tickets,
-- the team of a workspace where you have requests or follow one, and the people of a thread you follow. A per-row check with index look-ups, for the few
-- profiles a page asks for.

-- plpgsql, so it may name ticket_followers (52_triage.sql), made after this file.
create function private.can_see_profile(uid uuid) returns boolean
language plpgsql stable security definer set search_path = '' as $$
declare
  me uuid := (select auth.uid());
begin
  return uid = me
    -- a co-member
    or exists (select 1 from public.memberships mine join public.memberships theirs on theirs.workspace_id = mine.workspace_id
                where mine.user_id = me and theirs.user_id = uid)
    -- a requester in one of my workspaces
    or exists (select 1 from public.tickets t join public.memberships mine on mine.workspace_id = t.workspace_id and mine.user_id = me
                where t.requester_id = uid)
    -- the team of a workspace where I have requests
    or exists (select 1 from public.memberships theirs join public.tickets t on t.workspace_id = theirs.workspace_id and t.requester_id = me
                where theirs.user_id = uid)
    -- a follower of a ticket in one of my workspaces (docs/decisions/064-followers.md)
    or exists (select 1 from public.ticket_followers f join public.memberships mine on mine.workspace_id = f.workspace_id and mine.user_id = me
                where f.user_id = uid)
    -- the team of a workspace where I follow a ticket
    or exists (select 1 from public.memberships theirs join public.ticket_followers f on f.workspace_id = theirs.workspace_id and f.user_id = me
                where theirs.user_id = uid)
    -- the requester and the other followers of a ticket I follow, and the followers of my requests
    or exists (select 1 from public.ticket_followers f join public.tickets t on t.id = f.ticket_id
                where (f.user_id = me and t.requester_id = uid) or (t.requester_id = me and f.user_id = uid))
    or exists (select 1 from public.ticket_followers mine join public.ticket_followers theirs on theirs.ticket_id = mine.ticket_id
                where mine.user_id = me and theirs.user_id = uid);
end $$;
revoke all on function private.can_see_profile(uuid) from public;
grant execute on function private.can_see_profile(uuid) to authenticated, service_role;

create policy "users read profiles they share a workspace with" on public.profiles for select to authenticated
  using (user_id = (select auth.uid()) or private.can_see_profile(user_id));
