-- postgres_changes for the inbox (tickets) and the thread (messages). Realtime applies the
-- subscriber's RLS to each change. The publication comes with the platform (empty, owned by postgres).
alter publication supabase_realtime add table public.tickets, public.messages;

-- The private channel `ticket:<ticket id>` of an agent's ticket page: presence (who else is viewing)
-- and broadcast (who is typing a reply or a note). Only members of the ticket's workspace may join
-- it (select) or track and send on it (insert): a requester who knows the id gets "Unauthorized".
-- Realtime evaluates these with realtime.topic() set, as hosted does (docs/reference/realtime.md).
create function private.may_use_ticket_channel(topic text) returns boolean
  language sql stable security definer set search_path = ''
as $$
  select exists (
    select 1 from public.tickets t
    -- case: a malformed topic is no ticket, never a cast error (where clauses have no fixed order)
    where t.id = case when topic ~ '^ticket:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        then substr(topic, 8)::uuid end
      and t.workspace_id in (select private.member_workspaces())
  )
$$;
revoke all on function private.may_use_ticket_channel(text) from public;
grant execute on function private.may_use_ticket_channel(text) to authenticated;

create policy "members join the live channel of their workspace's tickets" on realtime.messages
  for select to authenticated
  using (extension in ('presence', 'broadcast') and (select private.may_use_ticket_channel(realtime.topic())));

create policy "members signal on the live channel of their workspace's tickets" on realtime.messages
  for insert to authenticated
  with check (extension in ('presence', 'broadcast') and (select private.may_use_ticket_channel(realtime.topic())));
