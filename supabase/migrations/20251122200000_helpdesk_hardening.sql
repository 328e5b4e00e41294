-- Hardening after review (issue 5): invariants that held for the app's paths now hold for every path.
--   * last_admin under concurrency: two admins demoting (or removing) each other at once each saw the
--     other still an admin; admin changes now queue on the workspace row.
--   * A message to a closed ticket is refused (ticket_closed) on a direct insert too, not only by
--     post_message; direct replies move the status like post_message does (requester reopens,
--     agent opens a new ticket).
--   * Traffic cop: a last_seen_message_id that is not a message of this ticket counts as having seen
--     nothing, so the reply is refused (ticket_changed) instead of passing unchecked.
--   * Members who leave (or are removed) drop off their unfinished tickets, so an assignee is always a
--     member; closed tickets keep their assignee as history.
--   * Invitation emails are stored trimmed and lower-case (citext compares, the column also reads right).
--   * Column privileges: admins change a membership's role only (not whose or where); invitations
--     are written through their own columns only (acceptance is accept_invitation's).
--   * Profiles: a blank local part or display name falls back to "user".
-- Errors keep the convention of 20251122180000_helpdesk_schema.sql (P0001, message = catalogue code).

-- ---------------------------------------------------------------------------------------------
-- A workspace always keeps an admin, also when two admins step down at the same moment.
create or replace function private.keep_an_admin() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if old.role = 'admin' and (tg_op = 'DELETE' or new.role <> 'admin') then
    -- Queue behind any other admin change of this workspace; the check below then reads what they
    -- committed (read committed: each statement takes a fresh snapshot). Gone workspace: a cascade.
    perform 1 from public.workspaces where id = old.workspace_id for no key update;
    if found and not exists (select 1 from public.memberships
                              where workspace_id = old.workspace_id and role = 'admin' and user_id <> old.user_id) then
      raise exception using errcode = 'P0001', message = 'last_admin', detail = old.workspace_id::text;
    end if;
  end if;
  return coalesce(new, old);
end $$;

-- ---------------------------------------------------------------------------------------------
-- Someone who leaves a workspace no longer holds its open work (product.md §3: assignee must be a member).
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
create trigger memberships_unassign before delete on public.memberships for each row execute function private.unassign_departed();

-- ---------------------------------------------------------------------------------------------
-- Messages: the workspace comes from the ticket; nothing is added to a closed ticket (the platform's
-- imports and seed excepted).
create or replace function private.message_posted() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = new.ticket_id;
  new.workspace_id := t.workspace_id;
  if t.status = 'closed' and not private.is_system() then
    raise exception using errcode = 'P0001', message = 'ticket_closed', detail = t.id::text;
  end if;
  return new;
end $$;

-- Bookkeeping as before; a reply inserted directly (not through post_message, which decides the
-- status itself and says so with tend.posting) moves the status the way post_message would.
create or replace function private.message_bookkeeping() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  member boolean;
begin
  select * into t from public.tickets where id = new.ticket_id;
  member := exists (select 1 from public.memberships where workspace_id = t.workspace_id and user_id = new.author_id);
  update public.tickets
     set last_message_at = greatest(last_message_at, new.created_at),
         first_response_at = case when new.kind = 'reply' and new.author_id <> t.requester_id and member
                                  then coalesce(first_response_at, new.created_at) else first_response_at end,
         search = case when new.kind = 'reply' then search || to_tsvector('english', new.body) else search end
   where id = new.ticket_id;

  if new.kind = 'reply' and coalesce(current_setting('tend.posting', true), '') <> 'on' and not private.is_system() then
    if not member and t.status in ('pending', 'solved') then
      perform set_config('tend.reply_reopen', 'on', true);
      update public.tickets set status = 'open' where id = t.id;
      perform set_config('tend.reply_reopen', '', true);
    elsif member and t.status = 'new' then
      update public.tickets set status = 'open' where id = t.id;
    end if;
  end if;
  return null;
end $$;

-- ---------------------------------------------------------------------------------------------
-- post_message as in 20251122190000, with the stricter traffic cop and tend.posting set around its insert.
create or replace function public.post_message(
  p_ticket_id uuid, p_body text, p_kind text default 'reply', p_new_status text default null, p_last_seen_message_id uuid default null
) returns public.messages
language plpgsql security invoker set search_path = '' as $$
declare
  t public.tickets;
  m public.messages;
  member boolean;
  seen_at timestamptz;
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
  -- The traffic cop: an agent's reply written against an older view of the thread is refused when a
  -- newer message arrived since. An id that is not a message of this ticket has seen nothing.
  if member and p_kind = 'reply' and p_last_seen_message_id is not null then
    select created_at into seen_at from public.messages where id = p_last_seen_message_id and ticket_id = t.id;
    select id into newest from public.messages
     where ticket_id = t.id and (seen_at is null or created_at > seen_at)
     order by created_at desc, id desc limit 1;
    if newest is not null then
      raise exception using errcode = 'P0001', message = 'ticket_changed', detail = newest::text;
    end if;
  end if;

  perform set_config('tend.posting', 'on', true);
  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), p_kind, p_body) returning * into m;
  perform set_config('tend.posting', '', true);

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

-- ---------------------------------------------------------------------------------------------
-- Invitation emails: trimmed and lower-case whatever the caller sends (product.md §5).
create function private.normalise_invitation_email() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.email := lower(trim(new.email::text));
  return new;
end $$;
create trigger invitations_email before insert or update of email on public.invitations
  for each row execute function private.normalise_invitation_email();
update public.invitations set email = lower(trim(email::text)) where email::text <> lower(trim(email::text));
alter table public.invitations add constraint invitations_email_lower_check check (email::text = lower(email::text));

-- ---------------------------------------------------------------------------------------------
-- Column privileges: what RLS lets a row through for, narrowed to the columns that action needs.
revoke insert, update on public.memberships from authenticated;
grant insert (workspace_id, user_id, role) on public.memberships to authenticated;
grant update (role) on public.memberships to authenticated;

revoke insert, update on public.invitations from authenticated;
grant insert (workspace_id, email, role, token_hash, invited_by) on public.invitations to authenticated;
-- Resend (new token, new expiry), revoke, change the offered role.
grant update (role, token_hash, expires_at, revoked_at) on public.invitations to authenticated;

-- Canned replies: the author is the caller unless given.
alter table public.canned_replies alter column created_by set default auth.uid();

-- ---------------------------------------------------------------------------------------------
create or replace function private.handle_new_user() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.profiles (user_id, display_name)
  values (new.id, coalesce(
    nullif(left(trim(coalesce(new.raw_user_meta_data ->> 'display_name', '')), 60), ''),
    nullif(left(trim(split_part(coalesce(new.email, ''), '@', 1)), 60), ''),
    'user'))
  on conflict (user_id) do nothing;
  return new;
end $$;

-- Trigger functions need no EXECUTE grant to fire; the default privileges of 20251122180000 keep
-- PUBLIC off the new ones.
revoke all on function private.unassign_departed(), private.normalise_invitation_email() from public;
