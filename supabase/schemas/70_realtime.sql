-- postgres_changes for the inbox (tickets) and the thread (messages). Realtime applies the
-- subscriber's RLS to each change. The publication comes with the platform (empty, owned by postgres).
alter publication supabase_realtime add table public.tickets, public.messages;

-- The private channel `ticket:<ticket id>` of an agent's ticket page: who else is viewing and who is
-- typing a reply or a note. Only members of the ticket's workspace may join it (select): a requester
-- who knows the id gets "Unauthorized". Realtime evaluates these with realtime.topic() set, as hosted
-- does (docs/reference/realtime.md).
--
-- Realtime stamps no sender on what a client tracks or sends: a member could track presence under
-- another's id, or broadcast "typing" in their name. So members may only track presence (insert for
-- presence, never broadcast), and who is who comes from the database: announce_ticket_viewer and
-- signal_ticket_typing broadcast on the channel with the caller's auth.uid(), and the page shows a
-- user only while a presence entry they announced is there
-- (docs/decisions/037-presence-the-server-vouches-for.md).
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

create policy "members track presence on their workspace's ticket channels" on realtime.messages
  for insert to authenticated
  with check (extension = 'presence' and (select private.may_use_ticket_channel(realtime.topic())));

-- A broadcast on a ticket's channel in the caller's name, for its members only (not_found otherwise).
create function private.signal_ticket(p_ticket_id uuid, p_event text, p_payload jsonb) returns void
language plpgsql security definer set search_path = '' as $$
declare
  topic text := 'ticket:' || p_ticket_id;
begin
  if auth.uid() is null or not private.may_use_ticket_channel(topic) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  perform realtime.send(p_payload || jsonb_build_object('user_id', auth.uid()), p_event, topic, true);
end $$;

-- "This presence entry (Realtime's presence_ref, which the server gives each track) is me": the page
-- announces its own entry once it sees it, and again when someone joins, so pages opened later learn it.
-- Announcing another's entry only says the caller is there too.
create function public.announce_ticket_viewer(p_ticket_id uuid, p_presence_ref text) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if coalesce(char_length(p_presence_ref), 0) not between 1 and 100 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'presence_ref';
  end if;
  perform private.signal_ticket(p_ticket_id, 'viewer', jsonb_build_object('presence_ref', p_presence_ref));
end $$;

-- "I am writing a reply (or a note)": the composer's throttled signal.
create function public.signal_ticket_typing(p_ticket_id uuid, p_kind text) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if p_kind is null or p_kind not in ('reply', 'note') then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'kind';
  end if;
  perform private.signal_ticket(p_ticket_id, 'typing', jsonb_build_object('kind', p_kind));
end $$;
revoke all on function private.signal_ticket(uuid, text, jsonb), public.announce_ticket_viewer(uuid, text),
  public.signal_ticket_typing(uuid, text) from public, anon;
grant execute on function public.announce_ticket_viewer(uuid, text), public.signal_ticket_typing(uuid, text)
  to authenticated;
