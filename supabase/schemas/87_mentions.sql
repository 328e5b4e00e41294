-- Mentions (issue 27 item 8; docs/product.md#notifications): "@Name" in an internal note tells that member, through
-- the one notification function (private.notify_member, kind 'mention': the bell, and email unless they
-- turned it off). The composer offers the names as one types "@" (JavaScript); without it the same text
-- resolves here, so a typed mention works either way. Notes only: a public reply never notifies anyone
-- by name (the customer would read it).

-- Who a note names, once per member: kept for the "Mentions" view and for the history of who was told.
create table public.message_mentions (
  message_id uuid not null references public.messages (id) on delete cascade,
  user_id uuid not null,
  workspace_id uuid not null,
  created_at timestamptz not null default now(),
  -- The note's ticket, kept by the database (below): the inbox counts the tickets that name me from my
  -- mentions alone, not a note fetched per mention (docs/decisions/106-inbox-call-cost-outside-the-page.md).
  ticket_id uuid not null,
  primary key (message_id, user_id),
  -- Someone who leaves the workspace takes their mentions along.
  constraint message_mentions_membership_fkey foreign key (workspace_id, user_id)
    references public.memberships (workspace_id, user_id) on delete cascade
);
create index message_mentions_user_idx on public.message_mentions (workspace_id, user_id, created_at desc) include (ticket_id);

-- A mention's ticket is its note's: set as it is recorded, whatever the writer says, and moved with the note
-- (a merge or a split moves notes to another ticket).
create function private.mention_ticket() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new.ticket_id := (select m.ticket_id from public.messages m where m.id = new.message_id);
  return new;
end $$;
revoke all on function private.mention_ticket() from public, anon, authenticated;
create trigger message_mentions_ticket before insert on public.message_mentions
  for each row execute function private.mention_ticket();

create function private.mentions_follow_message() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.message_mentions set ticket_id = new.ticket_id where message_id = new.id;
  return null;
end $$;
revoke all on function private.mentions_follow_message() from public, anon, authenticated;
create trigger messages_mentions_ticket after update of ticket_id on public.messages
  for each row when (old.ticket_id is distinct from new.ticket_id) execute function private.mentions_follow_message();

alter table public.message_mentions enable row level security;
-- Members see the workspace's mentions (as they see its notes); nobody writes them but the trigger.
create policy "members read their workspace's mentions" on public.message_mentions
  for select to authenticated using ((select private.is_member(workspace_id)));
revoke insert, update, delete, truncate on public.message_mentions from anon, authenticated;

-- The members a text names: "@" then a member's display name, their name's first word when no other
-- member's starts the same, or their email's local part; case-insensitive, and the name must end there
-- ("@Ann" is not "@Anna"). An "@" inside a word (an email address) names nobody.
create function private.mentioned_members(p_workspace_id uuid, p_body text) returns setof uuid
language sql stable security definer set search_path = '' as $$
  with member as (
    select m.user_id, lower(coalesce(nullif(trim(p.display_name), ''), split_part(u.email, '@', 1))) as name,
           lower(split_part(u.email, '@', 1)) as local
      from public.memberships m
      join auth.users u on u.id = m.user_id
      left join public.profiles p on p.user_id = m.user_id
     where m.workspace_id = p_workspace_id
  ), handle as (
    select user_id, name as h from member
    union
    select user_id, local from member
    union
    select user_id, split_part(name, ' ', 1) from member x
     where split_part(name, ' ', 1) <> name
       and not exists (select 1 from member y where y.user_id <> x.user_id and split_part(y.name, ' ', 1) = split_part(x.name, ' ', 1))
  )
  select distinct user_id from handle
   where h <> ''
     and strpos(lower(p_body), '@' || h) > 0
     and lower(p_body) ~ ('(^|[^[:alnum:]_.@])@' || regexp_replace(h, '([.*+?^${}()|\[\]\\])', '\\\1', 'g') || '($|[^[:alnum:]_])')
$$;
revoke all on function private.mentioned_members(uuid, text) from public, anon, authenticated;

-- A note that names members: each is recorded and told (never its writer). Direct database sessions
-- (seeds, imports) tell nobody, as for the other notifications (85_notifications.sql).
create function private.mention_members() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  member uuid;
begin
  if auth.role() is null or position('@' in new.body) = 0 then
    return null;
  end if;
  for member in select private.mentioned_members(new.workspace_id, new.body) loop
    continue when member = new.author_id;
    insert into public.message_mentions (message_id, user_id, workspace_id)
    values (new.id, member, new.workspace_id) on conflict do nothing;
    perform private.notify_member(new.workspace_id, member, 'mention', new.ticket_id, new.id, new.author_id);
  end loop;
  return null;
end $$;
revoke all on function private.mention_members() from public, anon, authenticated;
create trigger messages_mention after insert on public.messages
  for each row when (new.kind = 'note') execute function private.mention_members();
