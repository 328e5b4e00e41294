-- Row-level security: the authorisation (product.md §6). One policy per operation and role.
alter table public.profiles enable row level security;
alter table public.workspaces enable row level security;
alter table public.memberships enable row level security;
alter table public.invitations enable row level security;
alter table public.tickets enable row level security;
alter table public.messages enable row level security;
alter table public.ticket_events enable row level security;
alter table public.canned_replies enable row level security;

-- Column privileges narrow what RLS lets through: bookkeeping columns are the database's own.
revoke insert, update on public.tickets from anon, authenticated;
grant update (status, priority, assignee_id, subject) on public.tickets to authenticated;
revoke insert, update, delete on public.messages, public.ticket_events, public.profiles from anon, authenticated;
grant insert (ticket_id, author_id, kind, body) on public.messages to authenticated;
grant update (display_name) on public.profiles to authenticated;
revoke select, insert, update, delete on public.workspaces from anon, authenticated;
grant select (id, slug, name, created_at) on public.workspaces to anon, authenticated;
grant update (name, slug) on public.workspaces to authenticated;
revoke all on public.invitations, public.memberships, public.canned_replies from anon;

-- profiles
create policy "users read profiles they share a workspace with" on public.profiles for select to authenticated
  using (user_id = (select auth.uid()) or user_id in (select private.visible_users()));
create policy "users rename themselves" on public.profiles for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

-- workspaces: the portal needs name and slug, for everyone (column grants above limit what is seen)
create policy "anyone reads a workspace's portal name" on public.workspaces for select to anon, authenticated using (true);
create policy "admins rename their workspace" on public.workspaces for update to authenticated
  using (id in (select private.admin_workspaces())) with check (id in (select private.admin_workspaces()));

-- memberships
create policy "members read their workspace's members" on public.memberships for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins add members" on public.memberships for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins change roles" on public.memberships for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins remove members and members leave" on public.memberships for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()) or user_id = (select auth.uid()));

-- invitations
create policy "admins read invitations" on public.invitations for select to authenticated
  using (workspace_id in (select private.admin_workspaces()));
create policy "admins invite" on public.invitations for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()) and invited_by = (select auth.uid()));
create policy "admins resend and revoke invitations" on public.invitations for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins delete invitations" on public.invitations for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

-- tickets (created through create_ticket; requesters may change only the status, see the trigger)
create policy "requesters and members read tickets" on public.tickets for select to authenticated
  using (requester_id = (select auth.uid()) or workspace_id in (select private.member_workspaces()));
create policy "requesters and members update tickets" on public.tickets for update to authenticated
  using (requester_id = (select auth.uid()) or workspace_id in (select private.member_workspaces()))
  with check (requester_id = (select auth.uid()) or workspace_id in (select private.member_workspaces()));

-- messages: requesters never see notes
create policy "members read the whole thread, requesters its replies" on public.messages for select to authenticated
  using (
    workspace_id in (select private.member_workspaces())
    or (kind = 'reply' and ticket_id in (select id from public.tickets where requester_id = (select auth.uid())))
  );
create policy "members write, requesters reply to open requests" on public.messages for insert to authenticated
  with check (
    author_id = (select auth.uid())
    and (
      ticket_id in (select id from public.tickets where workspace_id in (select private.member_workspaces()))
      or (kind = 'reply' and ticket_id in (select id from public.tickets where requester_id = (select auth.uid()) and status <> 'closed'))
    )
  );

-- ticket_events: the history is for the team
create policy "members read ticket history" on public.ticket_events for select to authenticated
  using (workspace_id in (select private.member_workspaces()));

-- canned_replies
create policy "members read canned replies" on public.canned_replies for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins add canned replies" on public.canned_replies for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins edit canned replies" on public.canned_replies for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins delete canned replies" on public.canned_replies for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));
