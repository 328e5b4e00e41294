-- The rules the database keeps whoever writes: profiles on sign-up, ticket numbers, the status state
-- machine (product.md §4), ticket history, conversation bookkeeping, membership invariants.

-- A profile for every new user; GoTrue inserts as supabase_auth_admin, hence security definer.
create function private.handle_new_user() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.profiles (user_id, display_name)
  values (new.id, left(coalesce(nullif(trim(new.raw_user_meta_data ->> 'display_name'), ''), split_part(coalesce(new.email, 'user'), '@', 1), 'user'), 60))
  on conflict (user_id) do nothing;
  return new;
end $$;
create trigger on_auth_user_created after insert on auth.users for each row execute function private.handle_new_user();

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

create function private.check_assignee() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.assignee_id is not null and (tg_op = 'INSERT' or new.assignee_id is distinct from old.assignee_id)
     and not exists (select 1 from public.memberships where workspace_id = new.workspace_id and user_id = new.assignee_id) then
    raise exception using errcode = 'P0001', message = 'assignee_not_member', detail = new.assignee_id::text;
  end if;
  return new;
end $$;
create trigger tickets_assignee before insert or update of assignee_id on public.tickets for each row execute function private.check_assignee();

-- product.md §4. Who moves a ticket where: agents and admins per the table, admins (or the
-- platform's auto-close) close, requesters solve their own tickets and reopen only by replying
-- (post_message sets tend.reply_reopen for that one update).
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
  elsif new.status is distinct from old.status then
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
create trigger tickets_transition before insert or update on public.tickets for each row execute function private.ticket_transition();

create function private.ticket_search() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.subject is distinct from old.subject then
    new.search := setweight(to_tsvector('english', new.subject), 'A')
      || coalesce((select to_tsvector('english', string_agg(body, ' ')) from public.messages where ticket_id = new.id), ''::tsvector);
  end if;
  return new;
end $$;
create trigger tickets_search before insert or update of subject on public.tickets for each row execute function private.ticket_search();

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
create trigger tickets_history after insert or update on public.tickets for each row execute function private.ticket_history();

-- A message lands: the ticket's activity time, first public agent reply, and search text follow.
create function private.message_posted() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = new.ticket_id;
  new.workspace_id := t.workspace_id;
  return new;
end $$;
create trigger messages_workspace before insert on public.messages for each row execute function private.message_posted();

create function private.message_bookkeeping() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  agent_reply boolean;
begin
  select * into t from public.tickets where id = new.ticket_id;
  agent_reply := new.kind = 'reply' and new.author_id <> t.requester_id
    and exists (select 1 from public.memberships where workspace_id = t.workspace_id and user_id = new.author_id);
  -- Bookkeeping columns only; the status machine is not involved.
  update public.tickets
     set last_message_at = greatest(last_message_at, new.created_at),
         first_response_at = case when agent_reply then coalesce(first_response_at, new.created_at) else first_response_at end,
         search = search || to_tsvector('english', new.body)
   where id = new.ticket_id;
  return null;
end $$;
create trigger messages_bookkeeping after insert on public.messages for each row execute function private.message_bookkeeping();

-- A workspace always keeps an admin.
create function private.keep_an_admin() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if old.role = 'admin' and (tg_op = 'DELETE' or new.role <> 'admin')
     and exists (select 1 from public.workspaces where id = old.workspace_id)
     and not exists (select 1 from public.memberships where workspace_id = old.workspace_id and role = 'admin' and user_id <> old.user_id) then
    raise exception using errcode = 'P0001', message = 'last_admin', detail = old.workspace_id::text;
  end if;
  return coalesce(new, old);
end $$;
create trigger memberships_keep_admin before update or delete on public.memberships for each row execute function private.keep_an_admin();
