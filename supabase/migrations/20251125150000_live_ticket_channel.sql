-- The private Realtime channel `ticket:<ticket id>` of an agent's ticket page: presence (who else is
-- viewing) and broadcast (who is typing, and whether a reply or a note). Only members of the ticket's
-- workspace may join it (select) and track or send on it (insert); a requester who knows the id gets
-- "Unauthorized". Realtime checks these as hosted does, with realtime.topic() set (reference/realtime.md §6.2).
create policy "members join the live channel of their workspace's tickets" on realtime.messages
  for select to authenticated
  using (
    extension in ('presence', 'broadcast')
    and exists (
      select 1 from public.tickets t
      where t.id = (
          select case when realtime.topic() ~ '^ticket:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
            then substr(realtime.topic(), 8)::uuid end
        )
        and t.workspace_id in (select private.member_workspaces())
    )
  );

create policy "members signal on the live channel of their workspace's tickets" on realtime.messages
  for insert to authenticated
  with check (
    extension in ('presence', 'broadcast')
    and exists (
      select 1 from public.tickets t
      where t.id = (
          select case when realtime.topic() ~ '^ticket:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
            then substr(realtime.topic(), 8)::uuid end
        )
        and t.workspace_id in (select private.member_workspaces())
    )
  );
