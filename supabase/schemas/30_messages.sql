-- The conversation of a ticket: public replies and internal notes, and what a new message does to
-- its ticket (activity time, first response, search text, status).

-- author_id also references profiles, so PostgREST can embed names:
--   messages?select=*,author:profiles!messages_author_profile_fkey(display_name)
create table public.messages (
  id uuid primary key default gen_random_uuid(),
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- Direct inserts through PostgREST may leave the author out: it is the caller.
  author_id uuid not null default auth.uid() references auth.users (id)
    constraint messages_author_profile_fkey references public.profiles (user_id),
  kind text not null default 'reply' check (kind in ('reply', 'note')),
  body text not null check (char_length(body) between 1 and 20000),
  created_at timestamptz not null default clock_timestamp(),
  -- The key of the form that posted it (post_message): a resubmitted form finds its message. Per
  -- author, so one person's key never matches another's message.
  client_key uuid,
  constraint messages_author_client_key unique (author_id, client_key)
);
create index messages_ticket_idx on public.messages (ticket_id, created_at, id);
create index messages_workspace_idx on public.messages (workspace_id);
-- Agents search internal notes too; tickets.search stays requester-safe, so notes get their own index.
-- Its pending list capped as tickets_search_idx's is (20_tickets.sql).
create index messages_note_search_idx on public.messages using gin (to_tsvector('english', body)) with (gin_pending_list_limit = 256)
  where kind = 'note';

-- ---------------------------------------------------------------------------------------------
-- A ticket's search vector: subject and public replies (also after a merge moved replies, 52_triage.sql).
create function private.ticket_search_vector(p_ticket_id uuid, p_subject text) returns tsvector
language sql stable security definer set search_path = '' as $$
  select setweight(to_tsvector('english', p_subject), 'A')
    || coalesce((select to_tsvector('english', string_agg(body, ' ')) from public.messages where ticket_id = p_ticket_id and kind = 'reply'), ''::tsvector)
$$;
create function private.ticket_search() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.subject is distinct from old.subject then
    new.search := private.ticket_search_vector(new.id, new.subject);
  end if;
  return new;
end $$;
create trigger tickets_search before insert or update of subject on public.tickets
  for each row execute function private.ticket_search();

-- Messages written by the platform through the API (service_role: the inbound-email function turning
-- an email into a reply) follow the same rules as the people they write for: a closed ticket takes no
-- message (ticket_closed: open a follow-up instead). Only a direct database session (seed, imports,
-- migrations: no request claims at all) writes history as it is given.
create function private.message_posted() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = new.ticket_id;
  new.workspace_id := t.workspace_id;
  if t.status = 'closed' and auth.role() is not null then
    raise exception using errcode = 'P0001', message = 'ticket_closed', detail = t.id::text;
  end if;
  return new;
end $$;
create trigger messages_workspace before insert on public.messages for each row execute function private.message_posted();

-- A reply lands: the ticket's activity time, first response by the team and search text follow, and
-- the requester's reply wakes a snoozed ticket (52_triage.sql). A
-- note leaves the ticket row alone: requesters read that row, and are told of every change to it
-- (realtime), so its columns and its updates must not say that the team wrote something internal.
create function private.message_bookkeeping() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  member boolean;
begin
  if new.kind = 'note' then
    return null;
  end if;
  select * into t from public.tickets where id = new.ticket_id;
  member := exists (select 1 from public.memberships where workspace_id = t.workspace_id and user_id = new.author_id);
  update public.tickets
     set last_message_at = greatest(last_message_at, new.created_at),
         first_response_at = case when new.author_id <> t.requester_id and member
                                  then coalesce(first_response_at, new.created_at) else first_response_at end,
         search = search || to_tsvector('english', new.body),
         snoozed_until = case when new.author_id = t.requester_id then null else snoozed_until end
   where id = new.ticket_id;
  return null;
end $$;
create trigger messages_bookkeeping after insert on public.messages for each row execute function private.message_bookkeeping();

-- A reply inserted through the API (not through post_message, which runs as the owner and moves the
-- status itself) moves the status the way post_message does, for its author. Security invoker: the
-- role that wrote the row is what tells the two apart.
create function private.message_status() returns trigger
language plpgsql security invoker set search_path = '' as $$
declare
  actor private.ticket_actor;
  t public.tickets;
begin
  if new.kind = 'reply' and current_user in ('anon', 'authenticated', 'service_role') then
    select * into t from public.tickets where id = new.ticket_id;
    actor := private.ticket_actor(t.workspace_id, new.author_id);
    if private.status_after_reply(t.status, actor) is not null then
      perform private.change_status(t.id, private.status_after_reply(t.status, actor), actor, 'reply');
    end if;
  end if;
  return null;
end $$;
create trigger messages_status after insert on public.messages for each row execute function private.message_status();

revoke all on function private.ticket_search_vector(uuid, text) from public;
revoke all on function private.ticket_search(), private.message_posted(), private.message_bookkeeping(),
  private.message_status() from public;

-- ---------------------------------------------------------------------------------------------
-- Message + its files + optional status change in one transaction. Security definer, so that its status change
-- is checked once, for the right actor and reason (private.change_status); its checks above are the
-- messages policies'.
create function public.post_message(
  p_ticket_id uuid, p_body text, p_kind text default 'reply', p_new_status public.ticket_status default null,
  p_last_seen_message_id uuid default null, p_attachments jsonb default null, p_client_key uuid default null
) returns public.messages
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  m public.messages;
  actor private.ticket_actor;
  seen_at timestamptz;
  newest uuid;
  target public.ticket_status;
begin
  -- The row lock queues concurrent posts to one ticket, so the newest-message check below is exact.
  select * into t from public.tickets where id = p_ticket_id for update;
  actor := private.ticket_actor(t.workspace_id, auth.uid());
  -- What the policies let through: the ticket's team, its requester, or a follower (a customer's reply of theirs).
  if t.id is null or auth.uid() is null
     or (actor = 'requester' and t.requester_id <> auth.uid() and t.id not in (select private.followed_tickets())) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  -- A form sent twice (double click, resubmitted POST) posts once: the second gets the first's
  -- message, before the checks below would call the writer's own message news (ticket_changed).
  if p_client_key is not null then
    select * into m from public.messages where author_id = auth.uid() and client_key = p_client_key;
    if m.id is not null then
      return m;
    end if;
  end if;
  if t.status = 'closed' then
    raise exception using errcode = 'P0001', message = 'ticket_closed', detail = t.id::text;
  end if;
  if p_kind = 'note' and actor = 'requester' then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'notes are for agents';
  end if;
  -- The traffic cop: an agent's reply written against an older view of the thread is refused when a
  -- newer message arrived since. An id that is not a message of this ticket has seen nothing.
  if actor <> 'requester' and p_kind = 'reply' and p_last_seen_message_id is not null then
    select created_at into seen_at from public.messages where id = p_last_seen_message_id and ticket_id = t.id;
    select id into newest from public.messages
     where ticket_id = t.id and (seen_at is null or created_at > seen_at)
     order by created_at desc, id desc limit 1;
    if newest is not null then
      raise exception using errcode = 'P0001', message = 'ticket_changed', detail = newest::text;
    end if;
  end if;

  insert into public.messages (ticket_id, author_id, kind, body, client_key)
    values (t.id, auth.uid(), p_kind, p_body, p_client_key) returning * into m;
  -- Its files (uploaded first, 40_attachments.sql), in the same transaction.
  perform private.attach_files(m.id, p_attachments);

  -- The status after the message: the one asked for, else what a reply does.
  target := coalesce(p_new_status, case when p_kind = 'reply' then private.status_after_reply(t.status, actor) end);
  if target is not null then
    perform private.change_status(t.id, target, actor, 'reply');
  end if;
  return m;
end $$;
revoke execute on function public.post_message(uuid, text, text, public.ticket_status, uuid, jsonb, uuid) from public, anon;
grant execute on function public.post_message(uuid, text, text, public.ticket_status, uuid, jsonb, uuid) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Requesters never see notes.
alter table public.messages enable row level security;
revoke insert, update, delete on public.messages from anon, authenticated;
grant insert (ticket_id, author_id, kind, body) on public.messages to authenticated;
create policy "members read the thread, requesters and followers its replies" on public.messages for select to authenticated
  using (
    workspace_id in (select private.member_workspaces())
    or (kind = 'reply' and (ticket_id in (select id from public.tickets where requester_id = (select auth.uid()))
                            or ticket_id in (select private.followed_tickets())))
  );
create policy "members write, requesters reply to open requests" on public.messages for insert to authenticated
  with check (
    author_id = (select auth.uid())
    and (
      ticket_id in (select id from public.tickets where workspace_id in (select private.member_workspaces()))
      or (kind = 'reply' and ticket_id in (select id from public.tickets where requester_id = (select auth.uid()) and status <> 'closed'))
    )
  );
