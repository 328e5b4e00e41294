-- The private schema, granted no further than what runs there needs (style.md "The database").
--   * anon never reaches a private helper: its one policy (workspaces) is `using (true)` and its one
--     RPC (portal_workspace) is security definer. No usage on the schema, no execute.
--   * authenticated executes the helpers its policies and security invoker RPCs call: member_workspaces,
--     admin_workspaces, is_member, is_admin, is_agent, can_see_profile, is_system (the status trigger).
--   * Trigger functions fire without EXECUTE; nobody calls them directly.
--   * visible_users was replaced by can_see_profile (20251122195000) and is unused.
revoke usage on schema private from anon;
revoke execute on all functions in schema private from anon;

revoke execute on function
  private.handle_new_user(), private.assign_ticket_number(), private.check_assignee(), private.ticket_transition(),
  private.ticket_search(), private.ticket_history(), private.message_posted(), private.message_bookkeeping(),
  private.keep_an_admin(), private.unassign_departed(), private.normalise_invitation_email()
from public, authenticated, service_role;

drop function private.visible_users();
