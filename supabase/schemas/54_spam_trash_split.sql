-- Spam, Trash and split (issue 27 items 9 and 5; docs/product.md#spam-and-trash, docs/product.md#split;
-- docs/decisions/063-spam-and-trash.md).
--
-- A ticket is in the inbox, in Spam (tickets.spam_at) or in Trash (tickets.trashed_at; Trash wins over
-- Spam, and "Restore" brings a ticket back to where it was). Spam and Trash are out of every other view
-- and its counts (private.inbox_view_filter, the tallies), the reports (the rollups), "Claim next",
-- automatic assignment, the SLA clock and every notification (private.notify_member, notify_message);
-- the team writes nothing on them (private.message_set_aside) and merges none of them (merge_tickets).
-- Trash is also gone for the requester (the tickets policy, receive_email), and is deleted for good,
-- files and all, 30 days later by the scheduler (private.purge_trash) or at once by an admin (empty_trash).
--
-- Marking a ticket as spam marks its requester as a spam sender of the workspace (spam_senders): from
-- then on whatever they send there — a mailed request or reply, or a request or reply in the portal —
-- lands in Spam before any trigger could tell anyone. "Not spam" brings the ticket back and forgets the
-- sender. The requester never sees any of it.

create table public.spam_senders (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index spam_senders_user_idx on public.spam_senders (user_id);
alter table public.spam_senders enable row level security;
revoke all on public.spam_senders from anon;
revoke insert, update, delete on public.spam_senders from authenticated;
create policy "members read their workspace's spam senders" on public.spam_senders for select to authenticated
  using (workspace_id in (select private.member_workspaces()));

-- How many days a ticket stays in Trash (the app's TRASH_DAYS, pinned by tests/unit/rules.test.ts).
create function private.trash_days() returns integer
language sql immutable set search_path = '' as $$ select 30 $$;

-- A request a spam sender opens themselves (by mail, receive_email acting as them, or in the portal) opens
-- in Spam (the history says Tend put it there, private.ticket_history). One the team opens for them (a new
-- conversation, a split) doesn't: the team chose to write to them.
create function private.spam_sender_request() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.requester_id = auth.uid()
     and exists (select 1 from public.spam_senders s where s.workspace_id = new.workspace_id and s.user_id = new.requester_id) then
    new.spam_at := now();
  end if;
  return new;
end $$;
create trigger tickets_spam_sender before insert on public.tickets
  for each row execute function private.spam_sender_request();

-- A message on a ticket in Spam or Trash: the team's is refused (ticket_in_spam, ticket_in_trash: bring
-- it back first, so a reply never mails a spammer); the requester's lands there quietly. A spam sender's
-- message takes their ticket to Spam first, before the after-insert triggers (notifications, SLA,
-- assignment) read it. A direct database session (seed, imports) writes as it is given.
create function private.message_set_aside() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = new.ticket_id;
  if auth.role() is null or t.id is null then
    return new;
  end if;
  if new.author_id <> t.requester_id and (t.spam_at is not null or t.trashed_at is not null)
     and exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = new.author_id) then
    if t.trashed_at is not null then
      raise exception using errcode = 'P0001', message = 'ticket_in_trash';
    end if;
    raise exception using errcode = 'P0001', message = 'ticket_in_spam';
  end if;
  if new.author_id = t.requester_id and t.spam_at is null
     and exists (select 1 from public.spam_senders s where s.workspace_id = t.workspace_id and s.user_id = new.author_id) then
    update public.tickets set spam_at = now() where id = t.id;
  end if;
  return new;
end $$;
create trigger messages_set_aside before insert on public.messages
  for each row execute function private.message_set_aside();

revoke all on function private.trash_days(), private.spam_sender_request(), private.message_set_aside() from public;

-- ---------------------------------------------------------------------------------------------
-- Moves up to 1 000 tickets of one workspace to Spam or Trash, or back, for a member (agents and
-- admins alike: both are undone as easily): p_action spam, not_spam, trash or restore. Tickets are locked
-- in id order (as bulk_update_tickets does), so a move and a single edit queue. A merged ticket (a shell
-- that leads to its primary) is skipped as `merged`; one there already as `unchanged`; another
-- workspace's or an unseen one as `not_found`. Spam marks the requesters (never a member) as spam
-- senders; not_spam forgets them. Answer: { updated: n, skipped: { reason: n } }, as bulk_update_tickets'.
create function public.move_tickets(p_ticket_ids uuid[], p_action text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  ids uuid[] := array(select distinct x from unnest(p_ticket_ids) x where x is not null);
  ws uuid;
  mine uuid[];
  merged integer;
  n integer;
  skipped jsonb := '{}';
begin
  if cardinality(ids) not between 1 and 1000 or p_action is null or p_action not in ('spam', 'not_spam', 'trash', 'restore') then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = '1 to 1000 tickets, and an action';
  end if;
  -- The workspace: the first of the caller's; the others' tickets are not_found.
  select t.workspace_id into ws from public.tickets t where t.id = any (ids) and private.is_member(t.workspace_id)
   order by t.id limit 1;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'tickets';
  end if;
  mine := array(select t.id from public.tickets t where t.id = any (ids) and t.workspace_id = ws order by t.id for no key update);
  merged := (select count(*) from public.tickets t where t.id = any (mine) and t.merged_into_id is not null);

  if p_action = 'spam' then
    update public.tickets t set spam_at = now() where t.id = any (mine) and t.spam_at is null and t.merged_into_id is null;
    get diagnostics n = row_count;
    insert into public.spam_senders (workspace_id, user_id)
    select distinct ws, t.requester_id from public.tickets t
     where t.id = any (mine) and t.merged_into_id is null
       and not exists (select 1 from public.memberships m where m.workspace_id = ws and m.user_id = t.requester_id)
    order by 2
    on conflict do nothing;
  elsif p_action = 'not_spam' then
    update public.tickets t set spam_at = null where t.id = any (mine) and t.spam_at is not null;
    get diagnostics n = row_count;
    delete from public.spam_senders s using public.tickets t
     where t.id = any (mine) and s.workspace_id = ws and s.user_id = t.requester_id;
  elsif p_action = 'trash' then
    update public.tickets t set trashed_at = now() where t.id = any (mine) and t.trashed_at is null and t.merged_into_id is null;
    get diagnostics n = row_count;
  else
    update public.tickets t set trashed_at = null where t.id = any (mine) and t.trashed_at is not null;
    get diagnostics n = row_count;
  end if;

  if merged > 0 and p_action in ('spam', 'trash') then
    skipped := jsonb_build_object('merged', merged);
  else
    merged := 0;
  end if;
  if cardinality(mine) - n - merged > 0 then
    skipped := skipped || jsonb_build_object('unchanged', cardinality(mine) - n - merged);
  end if;
  if cardinality(ids) > cardinality(mine) then
    skipped := skipped || jsonb_build_object('not_found', cardinality(ids) - cardinality(mine));
  end if;
  return jsonb_build_object('updated', n, 'skipped', skipped);
end $$;
revoke all on function public.move_tickets(uuid[], text) from public, anon;
grant execute on function public.move_tickets(uuid[], text) to authenticated, service_role;

-- Deletes tickets for good: their messages, notes, files' rows, history and the rest go with them
-- (on delete cascade), and the tickets merged into them (shells that lead there). Their files' objects
-- are then no message's: the sweep-attachments function removes them through the storage API, asked at
-- once (after the commit, pg_net) rather than at the next half past. The number of tickets deleted.
create function private.delete_tickets(p_ids uuid[]) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  n integer;
  files boolean := exists (select 1 from public.attachments a where a.ticket_id = any (p_ids));
begin
  delete from public.tickets where merged_into_id = any (p_ids);
  delete from public.tickets where id = any (p_ids);
  get diagnostics n = row_count;
  if files then
    perform private.call_function('sweep-attachments', '{}');
  end if;
  return n;
end $$;

-- How many tickets one run of the purge deletes at most: one short transaction, whose row locks (and
-- CPU) other agents' work never waits long on (docs/decisions/070-bulk-merge-purge-at-volume.md); a run a
-- minute still deletes over 100 000 a day.
create function private.purge_batch() returns integer
language sql immutable set search_path = '' as $$ select 100 $$;

-- The purge, every minute (pg_cron, 80_email.sql): tickets in Trash for private.trash_days(), oldest first,
-- up to private.purge_batch() a run (the rest on the next); rows someone holds right now are skipped until
-- then.
create function private.purge_trash() returns integer
language plpgsql security definer set search_path = '' as $$
begin
  return private.delete_tickets(array(
    select t.id from public.tickets t
     where t.trashed_at < now() - make_interval(days => private.trash_days())
     order by t.trashed_at limit private.purge_batch()
     for update skip locked));
end $$;

-- "Empty trash": an admin deletes every ticket in the workspace's Trash now (agents: forbidden). The
-- number deleted.
create function public.empty_trash(p_workspace_id uuid) returns integer
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  return private.delete_tickets(array(
    select t.id from public.tickets t where t.workspace_id = p_workspace_id and t.trashed_at is not null for update));
end $$;
revoke all on function private.delete_tickets(uuid[]), private.purge_batch(), private.purge_trash() from public;
revoke all on function public.empty_trash(uuid) from public, anon;
grant execute on function public.empty_trash(uuid) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Split (issue 27 item 5; docs/decisions/053-merge-and-split.md): a customer's message (and its files)
-- becomes a new ticket of the same requester, with the original's subject and priority; it leaves the
-- original's thread. Members only (not_found otherwise); only the requester's public replies
-- (split_not_customer); never a ticket's only message (split_only_message). The original is locked
-- first, as merge_tickets locks it, so two splits of one message (or a split and a merge) queue, and the
-- second finds the message gone (message_moved). Both histories link the two: split_to, split_from.
-- Answer: { number: the new ticket's, from: the original's }.
create function public.split_message(p_ticket_id uuid, p_message_id uuid) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  me uuid := auth.uid();
  t public.tickets;
  m public.messages;
  made public.tickets;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.id is null or not private.is_member(t.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  select * into t from public.tickets where id = p_ticket_id for update;
  select * into m from public.messages where id = p_message_id;
  if m.id is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'message';
  end if;
  if m.ticket_id <> t.id then
    raise exception using errcode = 'P0001', message = 'message_moved';
  end if;
  if m.kind <> 'reply' or m.author_id <> t.requester_id then
    raise exception using errcode = 'P0001', message = 'split_not_customer';
  end if;
  if not exists (select 1 from public.messages x where x.ticket_id = t.id and x.id <> m.id) then
    raise exception using errcode = 'P0001', message = 'split_only_message';
  end if;

  insert into public.tickets (workspace_id, requester_id, subject, priority, last_message_at)
  values (t.workspace_id, t.requester_id, t.subject, t.priority, m.created_at) returning * into made;
  update public.messages set ticket_id = made.id where id = m.id;
  update public.attachments set ticket_id = made.id where message_id = m.id;
  update public.tickets set search = private.ticket_search_vector(made.id, made.subject) where id = made.id;
  update public.tickets
     set search = private.ticket_search_vector(t.id, t.subject),
         last_message_at = coalesce((select max(x.created_at) from public.messages x where x.ticket_id = t.id and x.kind = 'reply'),
                                    t.created_at)
   where id = t.id;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  values (t.id, t.workspace_id, me, 'split_to', made.number::text);
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from")
  values (made.id, made.workspace_id, me, 'split_from', t.number::text);
  return jsonb_build_object('number', made.number, 'from', t.number);
end $$;
revoke all on function public.split_message(uuid, uuid) from public, anon;
grant execute on function public.split_message(uuid, uuid) to authenticated, service_role;
