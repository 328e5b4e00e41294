-- A user's own settings, whatever their role (issue 25 item 9, "Times"; docs/product.md §2): the time zone
-- the app shows them times in (null: automatic, their browser's; docs/decisions/067-viewer-time-zone.md).
-- Set in /account by agents and requesters alike; nobody else reads it, not even a workspace's admins.
create table public.user_settings (
  user_id uuid primary key default auth.uid() references auth.users (id) on delete cascade,
  time_zone text check (char_length(time_zone) between 1 and 64)
);
-- A zone the database knows (pg_timezone_names), as for workspaces and customers.
create trigger user_settings_time_zone before insert or update of time_zone on public.user_settings
  for each row when (new.time_zone is not null) execute function private.check_workspace_time_zone();

alter table public.user_settings enable row level security;
revoke all on public.user_settings from anon, authenticated;
grant select on public.user_settings to authenticated;
grant insert (time_zone), update (time_zone) on public.user_settings to authenticated;
create policy "users read their own settings" on public.user_settings
  for select to authenticated using (user_id = (select auth.uid()));
create policy "users set their own settings" on public.user_settings
  for insert to authenticated with check (user_id = (select auth.uid()));
create policy "users change their own settings" on public.user_settings
  for update to authenticated using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

-- What every signed-in page asks about its viewer, in one call (docs/decisions/075-page-cpu.md): the bell's
-- number (public.unread_notifications, 85_notifications.sql) and the time zone setting (null: automatic).
-- The app's root loader and the page's loader share the answer (app/lib/helpdesk/viewer-zone.server.ts).
-- plpgsql, so its statement's plan is kept for the connection: as a SQL function with a setting (never
-- inlined) it was parsed and planned at every call, ~0.5 ms of each inbox call (docs/decisions/087-inbox-call-overhead.md).
create function public.viewer_state() returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
begin
  return jsonb_build_object(
    'unread', public.unread_notifications(),
    'time_zone', (select s.time_zone from public.user_settings s where s.user_id = (select auth.uid())));
end $$;
revoke execute on function public.viewer_state() from public, anon;
grant execute on function public.viewer_state() to authenticated;
