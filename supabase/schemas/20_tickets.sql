-- Tickets and their history: numbering, the assignee rule, the status state machine, the history
-- the database writes, and the procedures that move tickets (claim, auto-close).
--
-- The state machine. Who moves a ticket where: agents and admins per the table in
-- private.ticket_transition, admins (or the platform's auto-close) close, requesters solve their own
-- tickets and reopen only by replying.

-- requester_id and assignee_id also reference profiles, so PostgREST can embed names:
--   tickets?select=*,requester:profiles!tickets_requester_profile_fkey(display_name)
create table public.tickets (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  number integer not null,
  requester_id uuid not null references auth.users (id)
    constraint tickets_requester_profile_fkey references public.profiles (user_id),
  subject text not null check (char_length(subject) between 1 and 200),
  status text not null default 'new' check (status in ('new', 'open', 'pending', 'solved', 'closed')),
  priority text not null default 'normal' check (priority in ('low', 'normal', 'high', 'urgent')),
  assignee_id uuid references auth.users (id)
    constraint tickets_assignee_profile_fkey references public.profiles (user_id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  first_response_at timestamptz,
  solved_at timestamptz,
  closed_at timestamptz,
  last_message_at timestamptz not null default now(),
  -- Subject (weight A) and public replies, never notes: requesters can read their tickets' rows, this
  -- column included. Notes have their own index (30_messages.sql).
  search tsvector not null default ''::tsvector,
  unique (workspace_id, number)
);
-- Inbox views, newest activity first: all, by status, by assignee, unassigned queue, search.
create index tickets_inbox_idx on public.tickets (workspace_id, last_message_at desc, id desc);
create index tickets_status_idx on public.tickets (workspace_id, status, last_message_at desc, id desc);
create index tickets_assignee_idx on public.tickets (workspace_id, assignee_id, last_message_at desc, id desc);
create index tickets_unassigned_idx on public.tickets (workspace_id, created_at, number) where assignee_id is null and status in ('new', 'open');
create index tickets_requester_idx on public.tickets (requester_id, workspace_id, last_message_at desc);
create index tickets_search_idx on public.tickets using gin (search);
-- The auto-close job finds due tickets without reading every ticket.
create index tickets_solved_due_idx on public.tickets (solved_at) where status = 'solved';

create table public.ticket_events (
  id bigint generated always as identity primary key,
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  actor_id uuid references auth.users (id),
  type text not null check (type in ('created', 'status', 'assignee', 'priority')),
  "from" text,
  "to" text,
  created_at timestamptz not null default clock_timestamp()
);
create index ticket_events_ticket_idx on public.ticket_events (ticket_id, created_at);
create index ticket_events_workspace_idx on public.ticket_events (workspace_id);

-- ---------------------------------------------------------------------------------------------
-- Numbers come from the workspace's counter row: the update locks it until commit, so concurrent
-- creations queue and numbers stay consecutive.
create function private.assign_ticket_number() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  -- Bulk imports by the platform reserve a block of numbers themselves (scripts/seed-bulk.ts).
  if new.number is not null and private.is_system() then
    return new;
  end if;
  update public.workspaces set ticket_seq = ticket_seq + 1 where id = new.workspace_id returning ticket_seq into new.number;
  if new.number is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  return new;
end $$;
create trigger tickets_number before insert on public.tickets for each row execute function private.assign_ticket_number();

-- An assignee is a member of the ticket's workspace.
create function private.check_assignee() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.assignee_id is not null and (tg_op = 'INSERT' or new.assignee_id is distinct from old.assignee_id)
     and not exists (select 1 from public.memberships where workspace_id = new.workspace_id and user_id = new.assignee_id) then
    raise exception using errcode = 'P0001', message = 'assignee_not_member', detail = new.assignee_id::text;
  end if;
  return new;
end $$;
create trigger tickets_assignee before insert or update of assignee_id on public.tickets
  for each row execute function private.check_assignee();

create function private.ticket_transition() returns trigger
language plpgsql security invoker set search_path = '' as $$
declare
  actor text;
  by_reply boolean := coalesce(current_setting('tend.reply_reopen', true), '') = 'on';
  allowed boolean;
begin
  if private.is_system() then
    actor := 'system';
  elsif private.is_admin(new.workspace_id) then
    actor := 'admin';
  elsif private.is_member(new.workspace_id) then
    actor := 'agent';
  else
    actor := 'requester';
  end if;

  if tg_op = 'INSERT' then
    if new.status <> 'new' and actor <> 'system' then
      raise exception using errcode = 'P0001', message = 'invalid_transition', detail = 'new→' || new.status;
    end if;
  else
    if old.status = 'new' and new.status = 'new' and old.assignee_id is null and new.assignee_id is not null then
      new.status := 'open';
    end if;
    if new.status is distinct from old.status then
      allowed := case old.status || '→' || new.status
        when 'new→open' then actor in ('agent', 'admin', 'system')
        when 'new→pending' then actor in ('agent', 'admin', 'system')
        when 'new→solved' then true
        when 'open→pending' then actor in ('agent', 'admin', 'system')
        when 'open→solved' then true
        when 'pending→open' then actor in ('agent', 'admin', 'system') or (actor = 'requester' and by_reply)
        when 'pending→solved' then true
        when 'solved→open' then actor in ('agent', 'admin', 'system') or (actor = 'requester' and by_reply)
        when 'solved→closed' then actor in ('admin', 'system')
        else false
      end;
      if not allowed then
        raise exception using errcode = 'P0001', message = 'invalid_transition', detail = old.status || '→' || new.status;
      end if;
    end if;
  end if;

  if actor = 'requester' and tg_op = 'UPDATE' and (new.subject, new.priority, new.assignee_id) is distinct from (old.subject, old.priority, old.assignee_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'requesters may only change the status';
  end if;

  -- Timestamps follow the status; the platform (seed, imports) may supply its own.
  new.solved_at := case when new.status in ('solved', 'closed') then coalesce(
    case when actor = 'system' then new.solved_at end,
    case when tg_op = 'UPDATE' and old.status in ('solved', 'closed') then old.solved_at end,
    now()) end;
  new.closed_at := case when new.status = 'closed' then coalesce(
    case when actor = 'system' then new.closed_at end,
    case when tg_op = 'UPDATE' and old.status = 'closed' then old.closed_at end,
    now()) end;
  new.updated_at := now();
  return new;
end $$;
create trigger tickets_transition before insert or update on public.tickets
  for each row execute function private.ticket_transition();

-- History, written by the database so every path (app, RPC, SQL) leaves a trace.
create function private.ticket_history() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  actor uuid := auth.uid();
begin
  if tg_op = 'INSERT' then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to") values (new.id, new.workspace_id, actor, 'created', new.status);
    return null;
  end if;
  if new.status is distinct from old.status then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to") values (new.id, new.workspace_id, actor, 'status', old.status, new.status);
  end if;
  if new.assignee_id is distinct from old.assignee_id then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
    values (new.id, new.workspace_id, actor, 'assignee', old.assignee_id::text, new.assignee_id::text);
  end if;
  if new.priority is distinct from old.priority then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to") values (new.id, new.workspace_id, actor, 'priority', old.priority, new.priority);
  end if;
  return null;
end $$;
create trigger tickets_history after insert or update on public.tickets
  for each row execute function private.ticket_history();

-- Someone who leaves a workspace no longer holds its open work (an assignee is always a member).
-- Before the delete, so the history names the one removing (or leaving) as a member, and after
-- memberships_keep_admin (triggers fire in name order), so a refused removal changes nothing.
-- A workspace being deleted takes its tickets along: nothing to unassign.
create function private.unassign_departed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if exists (select 1 from public.workspaces where id = old.workspace_id) then
    update public.tickets set assignee_id = null
     where workspace_id = old.workspace_id and assignee_id = old.user_id and status <> 'closed';
  end if;
  return old;
end $$;
create trigger memberships_unassign before delete on public.memberships
  for each row execute function private.unassign_departed();

revoke all on function private.assign_ticket_number(), private.check_assignee(), private.ticket_transition(),
  private.ticket_history(), private.unassign_departed() from public;

-- ---------------------------------------------------------------------------------------------
-- Any signed-in user may open a request in any workspace (the portal is public).
create function public.create_ticket(p_workspace_slug text, p_subject text, p_body text)
returns table (id uuid, number integer)
language plpgsql security definer set search_path = '' as $$
declare
  ws uuid;
  t public.tickets;
begin
  if auth.uid() is null then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'sign in first';
  end if;
  select w.id into ws from public.workspaces w where w.slug = p_workspace_slug;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  insert into public.tickets (workspace_id, requester_id, subject) values (ws, auth.uid(), trim(p_subject)) returning * into t;
  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), 'reply', p_body);
  return query select t.id, t.number;
end $$;
revoke execute on function public.create_ticket(text, text, text) from public, anon;
grant execute on function public.create_ticket(text, text, text) to authenticated, service_role;

-- The oldest unassigned request goes to the caller; SKIP LOCKED lets agents claim in parallel. A set
-- ([] or [ticket]): call it with .maybeSingle() for null | ticket.
create function public.claim_next_ticket(p_workspace_id uuid) returns setof public.tickets
language plpgsql security invoker set search_path = '' as $$
declare
  t public.tickets;
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'agents only';
  end if;
  -- Oldest unassigned new/open request; rows another agent is claiming right now are skipped.
  select * into t from public.tickets
   where workspace_id = p_workspace_id and assignee_id is null and status in ('new', 'open')
   order by created_at, number
   limit 1
   for update skip locked;
  if t.id is null then
    return;
  end if;
  -- Assigning a new ticket opens it (the transition trigger).
  return query update public.tickets set assignee_id = (select auth.uid()) where id = t.id returning *;
end $$;
revoke execute on function public.claim_next_ticket(uuid) from public, anon;
grant execute on function public.claim_next_ticket(uuid) to authenticated, service_role;

-- Solved requests close by themselves after 7 days; run by the close-solved job. It skips rows
-- someone holds right now (it never waits on the team; the next run closes what it skipped), and the
-- history records the close with no actor (the platform).
create function public.close_solved_tickets() returns integer
language plpgsql security invoker set search_path = '' as $$
declare
  n integer;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  update public.tickets set status = 'closed'
   where id in (select t.id from public.tickets t
                 where t.status = 'solved' and t.solved_at < now() - interval '7 days'
                 for update skip locked);
  get diagnostics n = row_count;
  return n;
end $$;
revoke execute on function public.close_solved_tickets() from public, anon, authenticated;
grant execute on function public.close_solved_tickets() to service_role;

-- ---------------------------------------------------------------------------------------------
-- Tickets are created through create_ticket; requesters may change only the status (the trigger).
alter table public.tickets enable row level security;
alter table public.ticket_events enable row level security;

revoke insert, update on public.tickets from anon, authenticated;
grant update (status, priority, assignee_id, subject) on public.tickets to authenticated;
create policy "requesters and members read tickets" on public.tickets for select to authenticated
  using (requester_id = (select auth.uid()) or workspace_id in (select private.member_workspaces()));
create policy "requesters and members update tickets" on public.tickets for update to authenticated
  using (requester_id = (select auth.uid()) or workspace_id in (select private.member_workspaces()))
  with check (requester_id = (select auth.uid()) or workspace_id in (select private.member_workspaces()));

-- The history is for the team.
revoke insert, update, delete on public.ticket_events from anon, authenticated;
create policy "members read ticket history" on public.ticket_events for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
