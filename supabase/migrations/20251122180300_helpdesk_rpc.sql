-- Remote procedures (product.md §7): multi-row changes, each one transaction.

create function public.create_workspace(p_name text, p_slug text) returns public.workspaces
language plpgsql security definer set search_path = '' as $$
declare
  ws public.workspaces;
begin
  if auth.uid() is null then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'sign in first';
  end if;
  begin
    insert into public.workspaces (name, slug, created_by) values (trim(p_name), lower(trim(p_slug)), auth.uid()) returning * into ws;
  exception when unique_violation then
    raise exception using errcode = 'P0001', message = 'slug_taken', detail = p_slug;
  end;
  insert into public.memberships (workspace_id, user_id, role) values (ws.id, auth.uid(), 'admin');
  return ws;
end $$;

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

-- Message + optional status change in one transaction. The traffic cop: an agent's reply written
-- against an older view of the thread (last_seen_message_id) is refused when a newer message
-- arrived since, so two replies never cross.
create function public.post_message(
  p_ticket_id uuid, p_body text, p_kind text default 'reply', p_new_status text default null, p_last_seen_message_id uuid default null
) returns public.messages
language plpgsql security invoker set search_path = '' as $$
declare
  t public.tickets;
  m public.messages;
  member boolean;
  newest uuid;
begin
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
  if member and p_last_seen_message_id is not null then
    select id into newest from public.messages
     where ticket_id = t.id and created_at > (select created_at from public.messages where id = p_last_seen_message_id)
     order by created_at desc limit 1;
    if newest is not null then
      raise exception using errcode = 'P0001', message = 'ticket_changed', detail = newest::text;
    end if;
  end if;

  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), p_kind, p_body) returning * into m;

  if p_new_status is not null and p_new_status <> t.status then
    update public.tickets set status = p_new_status where id = t.id;
  elsif p_kind = 'reply' and not member and t.status in ('pending', 'solved') then
    -- A requester's reply reopens the request (product.md §4).
    perform set_config('tend.reply_reopen', 'on', true);
    update public.tickets set status = 'open' where id = t.id;
    perform set_config('tend.reply_reopen', '', true);
  elsif p_kind = 'reply' and member and t.status = 'new' then
    update public.tickets set status = 'open' where id = t.id;
  end if;
  return m;
end $$;

-- The oldest unassigned request goes to the caller; SKIP LOCKED lets agents claim in parallel.
create function public.claim_next_ticket(p_workspace_id uuid) returns public.tickets
language plpgsql security invoker set search_path = '' as $$
declare
  t public.tickets;
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'agents only';
  end if;
  select * into t from public.tickets
   where workspace_id = p_workspace_id and assignee_id is null and status in ('new', 'open')
   order by created_at, number
   limit 1
   for update skip locked;
  if t.id is null then
    return null;
  end if;
  update public.tickets set assignee_id = auth.uid(), status = case when status = 'new' then 'open' else status end
   where id = t.id returning * into t;
  return t;
end $$;

-- Solved requests close by themselves after 7 days (product.md §9); run by the close-solved job.
create function public.close_solved_tickets() returns integer
language plpgsql security invoker set search_path = '' as $$
declare
  n integer;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  update public.tickets set status = 'closed' where status = 'solved' and solved_at < now() - interval '7 days';
  get diagnostics n = row_count;
  return n;
end $$;

-- Functions are executable by PUBLIC unless revoked: signed-in users only, the job for service_role.
revoke execute on function public.close_solved_tickets() from public, anon, authenticated;
grant execute on function public.close_solved_tickets() to service_role;
revoke execute on function public.create_workspace(text, text), public.create_ticket(text, text, text),
  public.post_message(uuid, text, text, text, uuid), public.claim_next_ticket(uuid) from public, anon;
grant execute on function public.create_workspace(text, text), public.create_ticket(text, text, text),
  public.post_message(uuid, text, text, text, uuid), public.claim_next_ticket(uuid) to authenticated, service_role;
