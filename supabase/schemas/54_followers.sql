-- Followers (issue 27 item 7; docs/product.md#followers; docs/decisions/064-followers.md). People besides the
-- requester who follow a ticket (public.ticket_followers, 52_triage.sql): they get the team's public
-- replies by email (notify), each with a reply address of their own, answer by email (receive_email:
-- their public message), and read and answer the thread in the portal (the policies of tickets,
-- messages and workspaces let them read what the requester reads: never a note). Members add and
-- remove them; an inbound email adds the people it copies, unless the workspace turned that off
-- (workspaces.cc_adds_followers). Members of the workspace, and its requester, are never followers.

-- At most this many followers per ticket.
create function private.followers_max() returns integer
language sql immutable set search_path = '' as $$ select 20 $$;

-- Adds the users in p_users as followers of p_ticket_id, skipping its requester, the workspace's
-- members and whoever follows already; stops at followers_max. The history says who added whom (the
-- caller; an email's sender). Returns how many were added.
create function private.add_followers(p_ticket_id uuid, p_users uuid[]) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  n integer;
begin
  select * into t from public.tickets where id = p_ticket_id;
  with added as (
    insert into public.ticket_followers (ticket_id, user_id, workspace_id)
    select t.id, x.u, t.workspace_id
      from (select distinct u from unnest(p_users) u) x
     where x.u <> t.requester_id
       and not exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = x.u)
       and not exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = x.u)
     limit greatest(private.followers_max() - (select count(*) from public.ticket_followers f where f.ticket_id = t.id), 0)
    on conflict do nothing
    returning user_id
  )
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  select t.id, t.workspace_id, auth.uid(), 'follower_added', u.email
    from added join auth.users u on u.id = added.user_id;
  get diagnostics n = row_count;
  return n;
end $$;

-- A member adds a follower by email address: someone with an account already (the app makes one for a
-- new address first, with the ensure-customer function, as "New conversation" does). Refused: a ticket
-- the caller can't see (not_found), a closed one (ticket_closed), an address that isn't one
-- (email_invalid), the requester (follower_is_requester), a member (follower_is_member), past
-- followers_max (followers_full). Following already changes nothing. Answer: the follower's user id.
create function public.add_ticket_follower(p_ticket_id uuid, p_email text) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  address text := lower(trim(coalesce(p_email, '')));
  follower uuid;
begin
  select * into t from public.tickets where id = p_ticket_id for update;
  if t.id is null or auth.uid() is null or not private.is_member(t.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  if t.status = 'closed' then
    raise exception using errcode = 'P0001', message = 'ticket_closed', detail = t.id::text;
  end if;
  if address !~ '^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$' or char_length(address) > 254 then
    raise exception using errcode = 'P0001', message = 'email_invalid', detail = 'follower address';
  end if;
  select u.id into follower from auth.users u where u.email = address and u.deleted_at is null;
  if follower is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'follower';
  elsif follower = t.requester_id then
    raise exception using errcode = 'P0001', message = 'follower_is_requester';
  elsif exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = follower) then
    raise exception using errcode = 'P0001', message = 'follower_is_member';
  end if;
  if not exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = follower)
     and private.add_followers(t.id, array[follower]) = 0 then
    raise exception using errcode = 'P0001', message = 'followers_full', detail = private.followers_max()::text;
  end if;
  return follower;
end $$;
revoke all on function public.add_ticket_follower(uuid, text) from public, anon;
grant execute on function public.add_ticket_follower(uuid, text) to authenticated;

-- A member stops someone following a ticket of their workspace (nothing happens if they didn't).
create function public.remove_ticket_follower(p_ticket_id uuid, p_user_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  ws uuid := (select t.workspace_id from public.tickets t where t.id = p_ticket_id);
begin
  if ws is null or auth.uid() is null or not private.is_member(ws) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  with removed as (
    delete from public.ticket_followers where ticket_id = p_ticket_id and user_id = p_user_id returning user_id
  )
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  select p_ticket_id, ws, auth.uid(), 'follower_removed', u.email from removed join auth.users u on u.id = removed.user_id;
end $$;
revoke all on function public.remove_ticket_follower(uuid, uuid) from public, anon;
grant execute on function public.remove_ticket_follower(uuid, uuid) to authenticated;

-- A ticket's followers with their names and email addresses, first added first: what the followers
-- page (ticket_follower_list) and the ticket page's card (ticket_page, 50_inbox.sql) list. Called by
-- those definer functions only, after their own membership check. plpgsql keeps the statement's plan
-- for the connection; as a SQL function (never inlined: it sets search_path) it was planned at every
-- call (docs/decisions/084-ticket-page-cost.md).
create function private.ticket_follower_rows(p_ticket_id uuid)
returns table (user_id uuid, name text, email text, created_at timestamptz)
language plpgsql stable set search_path = '' as $$
begin
  return query
  select f.user_id, coalesce(p.display_name, split_part(u.email, '@', 1)), u.email::text, f.created_at
    from public.ticket_followers f
    join auth.users u on u.id = f.user_id
    left join public.profiles p on p.user_id = f.user_id
   where f.ticket_id = p_ticket_id;
end $$;
revoke all on function private.ticket_follower_rows(uuid) from public;

-- A ticket's followers for its members, by the ticket's address (the workspace's slug and its number),
-- as the page has it. Anyone else gets nothing.
create function public.ticket_follower_list(p_slug text, p_number integer)
returns table (user_id uuid, name text, email text, created_at timestamptz)
language sql stable security definer set search_path = '' as $$
  select r.user_id, r.name, r.email, r.created_at
    from public.workspaces w
    join public.tickets t on t.workspace_id = w.id and t.number = p_number
    cross join lateral private.ticket_follower_rows(t.id) r
   where w.slug = p_slug and private.is_member(w.id)
   order by r.created_at, r.user_id
$$;
revoke all on function public.ticket_follower_list(text, integer) from public, anon;
grant execute on function public.ticket_follower_list(text, integer) to authenticated;

-- The customers of a thread — its requester and followers — for whoever reads the thread (its
-- requester, a follower, a member): the portal shows their messages as written, the team's as Markdown
-- (docs/decisions/056-rich-replies-one-sanitiser.md). Anyone else gets an empty list.
create function public.thread_customers(p_ticket_id uuid) returns uuid[]
language sql stable security definer set search_path = '' as $$
  select coalesce(array_agg(x.id), '{}')
    from public.tickets t
    cross join lateral (select t.requester_id as id
                        union select f.user_id from public.ticket_followers f where f.ticket_id = t.id) x
   where t.id = p_ticket_id
     and (t.requester_id = (select auth.uid()) or private.is_member(t.workspace_id)
          or exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = (select auth.uid())))
$$;
revoke all on function public.thread_customers(uuid) from public, anon;
grant execute on function public.thread_customers(uuid) to authenticated;

-- The people an inbound email copies (inbound-email: its To and Cc, the workspace's own addresses and
-- the sender left out) follow the ticket it landed on, when the workspace keeps that on: those with an
-- account are added (never a member, the requester, or the workspace's sender address); the answer
-- lists the addresses without one, for which the function makes accounts and calls again (the call is
-- idempotent). Service role only.
create function private.follow_copied(p_ticket_id uuid, p_cc text[]) returns text[]
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  own text;
  addresses text[];
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.id is null or coalesce(cardinality(p_cc), 0) = 0
     or not (select w.cc_adds_followers from public.workspaces w where w.id = t.workspace_id) then
    return '{}';
  end if;
  select lower(s.sender_address) into own from public.workspace_email_settings s where s.workspace_id = t.workspace_id;
  select array_agg(distinct a) into addresses
    from (select lower(trim(x)) a from unnest(p_cc) x limit 10) c
   where a ~ '^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$' and char_length(a) <= 254 and a is distinct from own;
  perform private.add_followers(t.id, array(select u.id from auth.users u where u.email = any (addresses) and u.deleted_at is null));
  return array(select a from unnest(addresses) a
                where not exists (select 1 from auth.users u where u.email = a and u.deleted_at is null));
end $$;
revoke all on function private.followers_max(), private.add_followers(uuid, uuid[]), private.follow_copied(uuid, text[]) from public;
