-- Who reads whose profile: yourself, co-members, the requesters of your workspaces' tickets, and the
-- team of a workspace where you have requests. A per-row check with index look-ups, for the few
-- profiles a page asks for.

create function private.can_see_profile(uid uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select uid = (select auth.uid())
    -- a co-member
    or exists (select 1 from public.memberships mine join public.memberships theirs on theirs.workspace_id = mine.workspace_id
                where mine.user_id = (select auth.uid()) and theirs.user_id = uid)
    -- a requester in one of my workspaces
    or exists (select 1 from public.tickets t join public.memberships mine on mine.workspace_id = t.workspace_id and mine.user_id = (select auth.uid())
                where t.requester_id = uid)
    -- the team of a workspace where I have requests
    or exists (select 1 from public.memberships theirs join public.tickets t on t.workspace_id = theirs.workspace_id and t.requester_id = (select auth.uid())
                where theirs.user_id = uid)
$$;
revoke all on function private.can_see_profile(uuid) from public;
grant execute on function private.can_see_profile(uuid) to authenticated, service_role;

create policy "users read profiles they share a workspace with" on public.profiles for select to authenticated
  using (user_id = (select auth.uid()) or private.can_see_profile(user_id));
