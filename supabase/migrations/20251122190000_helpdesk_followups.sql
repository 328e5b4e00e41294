-- Follow-ups to the helpdesk migrations (issue 5): the agent helper, one select policy per role on
-- workspaces, a portal RPC for visitors, notes kept out of the requester-visible search vector,
-- assignment opening a new ticket (product.md §4), and the traffic cop limited to replies.
-- Errors keep the convention of 20251122180000_helpdesk_schema.sql (P0001, message = catalogue code).

-- ---------------------------------------------------------------------------------------------
-- Membership helper for "an agent, not an admin" (is_member covers both, is_admin admins only).
create function private.is_agent(ws uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.memberships where workspace_id = ws and user_id = (select auth.uid()) and role = 'agent')
$$;
revoke all on function private.is_agent(uuid) from public;
grant execute on function private.is_agent(uuid) to anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- workspaces: one select policy per role; visitors see only what the portal shows.
drop policy "anyone reads a workspace's portal name" on public.workspaces;
create policy "visitors read a workspace's portal name" on public.workspaces for select to anon using (true);
create policy "signed-in users read a workspace's portal name" on public.workspaces for select to authenticated using (true);
-- The portal loader looks the workspace up by slug and keeps its id for the next query; nothing else.
revoke select (created_at) on public.workspaces from anon;

-- The portal's name by slug, for anyone: slug and name only.
create function public.portal_workspace(p_slug text) returns table (slug text, name text)
language sql stable security definer set search_path = '' as $$
  select w.slug, w.name from public.workspaces w where w.slug = lower(trim(p_slug))
$$;
revoke execute on function public.portal_workspace(text) from public;
grant execute on function public.portal_workspace(text) to anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Search: requesters can read their tickets' rows, search column included, so the vector holds the
-- subject and public replies only; internal notes never reach it.
create or replace function private.ticket_search() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.subject is distinct from old.subject then
    new.search := setweight(to_tsvector('english', new.subject), 'A')
      || coalesce((select to_tsvector('english', string_agg(body, ' ')) from public.messages where ticket_id = new.id and kind = 'reply'), ''::tsvector);
  end if;
  return new;
end $$;

create or replace function private.message_bookkeeping() returns trigger
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
         search = case when new.kind = 'reply' then search || to_tsvector('english', new.body) else search end
   where id = new.ticket_id;
  return null;
end $$;

-- Rebuild existing vectors without notes; a bookkeeping change, so no updated_at bump or history.
alter table public.tickets disable trigger tickets_transition;
alter table public.tickets disable trigger tickets_history;
update public.tickets t
   set search = setweight(to_tsvector('english', t.subject), 'A')
     || coalesce((select to_tsvector('english', string_agg(m.body, ' ')) from public.messages m where m.ticket_id = t.id and m.kind = 'reply'), ''::tsvector);
alter table public.tickets enable trigger tickets_transition;
alter table public.tickets enable trigger tickets_history;

-- Direct inserts through PostgREST may leave the author out: it is the caller.
alter table public.messages alter column author_id set default auth.uid();

-- ---------------------------------------------------------------------------------------------
-- product.md §4 "new → open: agent replies or is assigned": assigning a new ticket opens it.
create or replace function private.ticket_transition() returns trigger
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

-- ---------------------------------------------------------------------------------------------
-- The traffic cop guards replies to the customer; an internal note never crosses one.
create or replace function public.post_message(
  p_ticket_id uuid, p_body text, p_kind text default 'reply', p_new_status text default null, p_last_seen_message_id uuid default null
) returns public.messages
language plpgsql security invoker set search_path = '' as $$
declare
  t public.tickets;
  m public.messages;
  member boolean;
  newest uuid;
  target text;
begin
  -- The row lock queues concurrent posts to one ticket, so the newest-message check below is exact.
  select * into t from public.tickets where id = p_ticket_id for update;
  if t.id is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  if t.status = 'closed' then
    raise exception using errcode = 'P0001', message = 'ticket_closed', detail = t.id::text;
  end if;
  member := private.is_member(t.workspace_id);
  if p_kind = 'note' and not member then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'notes are for agents';
  end if;
  if member and p_kind = 'reply' and p_last_seen_message_id is not null then
    select id into newest from public.messages
     where ticket_id = t.id and created_at > (select created_at from public.messages where id = p_last_seen_message_id and ticket_id = t.id)
     order by created_at desc, id desc limit 1;
    if newest is not null then
      raise exception using errcode = 'P0001', message = 'ticket_changed', detail = newest::text;
    end if;
  end if;

  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), p_kind, p_body) returning * into m;

  -- The status after the message: the one asked for, else a requester's reply reopens a pending or
  -- solved request and an agent's reply opens a new one (product.md §4).
  target := p_new_status;
  if target is null and p_kind = 'reply' then
    if not member and t.status in ('pending', 'solved') then
      target := 'open';
    elsif member and t.status = 'new' then
      target := 'open';
    end if;
  end if;
  if target is not null and target <> t.status then
    if p_kind = 'reply' and not member then
      perform set_config('tend.reply_reopen', 'on', true);
    end if;
    update public.tickets set status = target where id = t.id;
    perform set_config('tend.reply_reopen', '', true);
  end if;
  return m;
end $$;
