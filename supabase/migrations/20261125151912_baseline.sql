-- Baseline: the database as supabase/schemas/ describes it (those files, in name order). Replaces the
-- 22 migrations written before the schema became declarative; later changes are generated with
-- `npm run stack -- db diff -f <name>`.

-- =============================================================================================
-- supabase/schemas/00_private.sql

-- Tend's database, declared (docs/decisions: declarative schema). The files run in name order; each
-- table, policy, function and trigger is defined once, in the file of its domain. Change a file, then
-- `npm run stack -- db diff -f <name>` writes the migration.
--
-- Errors the app maps to its catalogue (app/lib/errors/catalogue.ts) are raised as
--   raise exception using errcode = 'P0001', message = '<catalogue code>', detail = '<context>';
-- PostgREST returns them as {"code": "P0001", "message": "<catalogue code>", "details": "<context>"}.

-- Helpers for policies and triggers. Not exposed through PostgREST; anon never reaches them (its one
-- policy is `using (true)` and its one RPC is security definer); authenticated executes the helpers
-- its policies and security invoker RPCs call. Trigger functions fire without EXECUTE.
create schema if not exists private;
grant usage on schema private to authenticated, service_role;

-- The platform: service_role, or a direct database session (seed, migrations, jobs). A PostgREST
-- request without claims runs as anon with no role claim: that is not the platform.
create function private.is_system() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(auth.role() = 'service_role', false)
      or (auth.role() is null and coalesce(current_setting('role', true), 'none') not in ('anon', 'authenticated'))
$$;
revoke all on function private.is_system() from public;
grant execute on function private.is_system() to authenticated, service_role;

-- =============================================================================================
-- supabase/schemas/10_workspaces.sql

-- People, workspaces and who belongs to them: profiles, workspaces, memberships, invitations and the
-- workspace's canned replies, with the membership helpers every policy uses.

-- A member's role in a workspace; an invitation offers one.
create type public.member_role as enum ('admin', 'agent');

create table public.profiles (
  user_id uuid primary key references auth.users (id) on delete cascade,
  display_name text not null check (char_length(display_name) between 1 and 60),
  created_at timestamptz not null default now()
);

create table public.workspaces (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique
    check (char_length(slug) between 3 and 40 and slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'
           and slug not in ('new', 'admin', 'api', 'app', 'auth', 'login', 'logout', 'support', 'w', 'settings',
                            'account', 'onboarding', 'invite', 'www', 'help', 'static', 'assets', 'build')),
  name text not null check (char_length(name) between 1 and 80),
  created_by uuid references auth.users (id) on delete set null,
  -- Per-workspace ticket numbers: incremented in the creating transaction, so numbers have no gaps.
  ticket_seq integer not null default 0,
  created_at timestamptz not null default now()
);

-- memberships.user_id also references profiles (every user has one, by trigger), so PostgREST can embed
-- a member's name: memberships?select=*,profile:profiles!memberships_user_profile_fkey(display_name).
create table public.memberships (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade
    constraint memberships_user_profile_fkey references public.profiles (user_id) on delete cascade,
  role public.member_role not null,
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index memberships_user_id_idx on public.memberships (user_id);

-- The app emails a random token and stores only its sha-256 (lower-case hex). Pending until
-- accept_invitation; revoked by an admin (revoked_at); expired after expires_at.
create table public.invitations (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  email extensions.citext not null check (char_length(email) <= 254 and email::text ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$')
    constraint invitations_email_lower_check check (email::text = lower(email::text)),
  role public.member_role not null default 'agent',
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  invited_by uuid references auth.users (id) on delete set null,
  expires_at timestamptz not null default now() + interval '7 days',
  accepted_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index invitations_workspace_id_idx on public.invitations (workspace_id);
-- Pending invitations per workspace and email (resend, "already invited").
create index invitations_pending_idx on public.invitations (workspace_id, email) where accepted_at is null and revoked_at is null;

create table public.canned_replies (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  title text not null check (char_length(title) between 1 and 80),
  body text not null check (char_length(body) between 1 and 5000),
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now()
);
create index canned_replies_workspace_idx on public.canned_replies (workspace_id);

-- ---------------------------------------------------------------------------------------------
-- Membership helpers: security definer so policies can ask without recursing into RLS.

create function private.member_workspaces() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select workspace_id from public.memberships where user_id = (select auth.uid())
$$;

create function private.admin_workspaces() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select workspace_id from public.memberships where user_id = (select auth.uid()) and role = 'admin'
$$;

create function private.is_member(ws uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.memberships where workspace_id = ws and user_id = (select auth.uid()))
$$;

create function private.is_admin(ws uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.memberships where workspace_id = ws and user_id = (select auth.uid()) and role = 'admin')
$$;

-- "An agent, not an admin" (is_member covers both, is_admin admins only).
create function private.is_agent(ws uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.memberships where workspace_id = ws and user_id = (select auth.uid()) and role = 'agent')
$$;

revoke all on function private.member_workspaces(), private.admin_workspaces(), private.is_member(uuid),
  private.is_admin(uuid), private.is_agent(uuid) from public;
grant execute on function private.member_workspaces(), private.admin_workspaces(), private.is_member(uuid),
  private.is_admin(uuid), private.is_agent(uuid) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- A profile for every new user; GoTrue inserts as supabase_auth_admin, hence security definer. A blank
-- display name and local part fall back to "user".
create function private.handle_new_user() returns trigger
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
create trigger on_auth_user_created after insert on auth.users for each row execute function private.handle_new_user();

-- A workspace always keeps an admin, also when two admins step down at the same moment.
create function private.keep_an_admin() returns trigger
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
create trigger memberships_keep_admin before update or delete on public.memberships
  for each row execute function private.keep_an_admin();

-- Invitation emails: trimmed and lower-case whatever the caller sends.
create function private.normalise_invitation_email() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.email := lower(trim(new.email::text));
  return new;
end $$;
create trigger invitations_email before insert or update of email on public.invitations
  for each row execute function private.normalise_invitation_email();

-- An invitation's times are the database's: a resend (new token) runs for 7 days from now, a revoke
-- happens now and stays; an accepted or revoked invitation is done with.
create function private.invitation_times() returns trigger
language plpgsql set search_path = '' as $$
begin
  if old.accepted_at is not null or old.revoked_at is not null then
    raise exception using errcode = 'P0001', message = 'invitation_invalid',
      detail = case when old.accepted_at is not null then 'accepted' else 'revoked' end;
  end if;
  if new.token_hash is distinct from old.token_hash then
    new.expires_at := now() + interval '7 days';
  end if;
  if new.revoked_at is not null then
    new.revoked_at := now();
  end if;
  return new;
end $$;
-- Only what the API writes: accept_invitation (the owner) records the acceptance.
create trigger invitations_times before update on public.invitations
  for each row when (current_user in ('anon', 'authenticated', 'service_role'))
  execute function private.invitation_times();

revoke all on function private.handle_new_user(), private.keep_an_admin(), private.normalise_invitation_email(),
  private.invitation_times() from public;

-- ---------------------------------------------------------------------------------------------
-- Remote procedures.

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
revoke execute on function public.create_workspace(text, text) from public, anon;
grant execute on function public.create_workspace(text, text) to authenticated, service_role;

-- The portal's name by slug, for anyone: slug and name only.
create function public.portal_workspace(p_slug text) returns table (slug text, name text)
language sql stable security definer set search_path = '' as $$
  select w.slug, w.name from public.workspaces w where w.slug = lower(trim(p_slug))
$$;
revoke execute on function public.portal_workspace(text) from public;
grant execute on function public.portal_workspace(text) to anon, authenticated, service_role;

-- Accepting an invitation. Raises invitation_invalid (unknown, used, revoked or expired token; the
-- detail says which) or invitation_email_mismatch (signed in with another address; no detail on purpose).
create function public.accept_invitation(p_token text)
returns table (workspace_id uuid, slug text, role public.member_role)
language plpgsql security definer set search_path = '' as $$
declare
  inv public.invitations;
  me_email text;
begin
  if auth.uid() is null then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'sign in first';
  end if;
  select * into inv from public.invitations i
   where i.token_hash = encode(extensions.digest(coalesce(p_token, ''), 'sha256'), 'hex')
   for update;
  if inv.id is null or inv.accepted_at is not null or inv.revoked_at is not null or inv.expires_at <= now() then
    raise exception using errcode = 'P0001', message = 'invitation_invalid', detail = coalesce(case
      when inv.id is null then 'unknown' when inv.accepted_at is not null then 'accepted'
      when inv.revoked_at is not null then 'revoked' else 'expired' end, 'unknown');
  end if;
  select u.email into me_email from auth.users u where u.id = auth.uid();
  if me_email is null or lower(me_email) <> lower(inv.email::text) then
    raise exception using errcode = 'P0001', message = 'invitation_email_mismatch';
  end if;

  -- An existing member keeps their role unless the invitation makes them an admin.
  insert into public.memberships as m (workspace_id, user_id, role) values (inv.workspace_id, auth.uid(), inv.role)
  on conflict on constraint memberships_pkey do update set role = case when excluded.role = 'admin' then 'admin' else m.role end;
  update public.invitations set accepted_at = now() where id = inv.id;

  return query select w.id, w.slug, m.role from public.workspaces w
    join public.memberships m on m.workspace_id = w.id and m.user_id = auth.uid()
   where w.id = inv.workspace_id;
end $$;
revoke execute on function public.accept_invitation(text) from public, anon;
grant execute on function public.accept_invitation(text) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Row-level security: the authorisation. One policy per operation and role; column privileges narrow
-- what RLS lets through to the columns that action needs.
alter table public.profiles enable row level security;
alter table public.workspaces enable row level security;
alter table public.memberships enable row level security;
alter table public.invitations enable row level security;
alter table public.canned_replies enable row level security;

revoke insert, update, delete on public.profiles from anon, authenticated;
grant update (display_name) on public.profiles to authenticated;
create policy "users rename themselves" on public.profiles for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
-- Who reads whose profile depends on tickets: 25_profile_visibility.sql.

-- The portal needs name and slug, for everyone; the portal loader keeps the id for its next query.
revoke select, insert, update, delete on public.workspaces from anon, authenticated;
grant select (id, slug, name) on public.workspaces to anon;
grant select (id, slug, name, created_at) on public.workspaces to authenticated;
grant update (name, slug) on public.workspaces to authenticated;
create policy "visitors read a workspace's portal name" on public.workspaces for select to anon using (true);
create policy "signed-in users read a workspace's portal name" on public.workspaces for select to authenticated using (true);
create policy "admins rename their workspace" on public.workspaces for update to authenticated
  using (id in (select private.admin_workspaces())) with check (id in (select private.admin_workspaces()));

-- Membership comes from accepting an invitation (accept_invitation), or from creating the workspace
-- (create_workspace): nobody adds someone else without their consent. Admins change a membership's
-- role only (not whose or where).
revoke all on public.memberships from anon;
revoke insert, update on public.memberships from authenticated;
grant update (role) on public.memberships to authenticated;
create policy "members read their workspace's members" on public.memberships for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins change roles" on public.memberships for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins remove members and members leave" on public.memberships for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()) or user_id = (select auth.uid()));

-- Invitations are written through their own columns only (acceptance is accept_invitation's): invite;
-- resend (a new token), revoke, change the offered role. Expiry and revocation times are the
-- database's (private.invitation_times).
revoke all on public.invitations from anon;
revoke insert, update on public.invitations from authenticated;
grant insert (workspace_id, email, role, token_hash, invited_by) on public.invitations to authenticated;
grant update (role, token_hash, revoked_at) on public.invitations to authenticated;
create policy "admins read invitations" on public.invitations for select to authenticated
  using (workspace_id in (select private.admin_workspaces()));
create policy "admins invite" on public.invitations for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()) and invited_by = (select auth.uid()));
create policy "admins resend and revoke invitations" on public.invitations for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins delete invitations" on public.invitations for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

-- Who wrote a canned reply, and when, is the database's to say.
revoke all on public.canned_replies from anon;
revoke insert, update on public.canned_replies from authenticated;
grant insert (workspace_id, title, body) on public.canned_replies to authenticated;
grant update (title, body) on public.canned_replies to authenticated;
create policy "members read canned replies" on public.canned_replies for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins add canned replies" on public.canned_replies for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins edit canned replies" on public.canned_replies for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins delete canned replies" on public.canned_replies for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

-- =============================================================================================
-- supabase/schemas/20_tickets.sql

-- Tickets and their history: numbering, the assignee rule, the status state machine, the history
-- the database writes, and the procedures that move tickets (claim, auto-close).

create type public.ticket_status as enum ('new', 'open', 'pending', 'solved', 'closed');
create type public.ticket_priority as enum ('low', 'normal', 'high', 'urgent');

-- requester_id and assignee_id also reference profiles, so PostgREST can embed names:
--   tickets?select=*,requester:profiles!tickets_requester_profile_fkey(display_name)
create table public.tickets (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  number integer not null,
  requester_id uuid not null references auth.users (id)
    constraint tickets_requester_profile_fkey references public.profiles (user_id),
  subject text not null check (char_length(subject) between 1 and 200),
  status public.ticket_status not null default 'new',
  priority public.ticket_priority not null default 'normal',
  assignee_id uuid references auth.users (id)
    constraint tickets_assignee_profile_fkey references public.profiles (user_id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  first_response_at timestamptz,
  solved_at timestamptz,
  closed_at timestamptz,
  -- The latest public message: the inbox's order, and the activity requesters see (notes never touch
  -- this row, 30_messages.sql).
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

-- ---------------------------------------------------------------------------------------------
-- The state machine. Every status change passes through private.check_transition, with who asks
-- (the actor) and why (the reason):
--   * a direct edit through the API (the agent's form, the requester's "solved"): tickets_transition;
--   * assigning a new ticket opens it: tickets_transition;
--   * a reply (post_message, or a reply inserted directly): private.change_status;
--   * the auto-close job: close_solved_tickets.
-- The database's own functions run as their owner (postgres) and check their change themselves, so
-- tickets_transition checks writes made as an API role only; a direct database session (seed,
-- imports) is the platform and writes history as it is given.
create type private.ticket_actor as enum ('requester', 'agent', 'admin', 'system');
create type private.status_reason as enum ('edit', 'reply', 'assignment', 'auto_close');

-- Raises invalid_transition (detail "from→to") unless p_actor may move a ticket from p_from to p_to for
-- p_reason. Requesters solve their own tickets and reopen them only by replying; admins (or the
-- platform) close.
create function private.check_transition(
  p_from public.ticket_status, p_to public.ticket_status, p_actor private.ticket_actor, p_reason private.status_reason
) returns void
language plpgsql immutable set search_path = '' as $$
declare
  team boolean := p_actor in ('agent', 'admin', 'system');
  by_reply boolean := p_actor = 'requester' and p_reason = 'reply';
  allowed boolean;
begin
  allowed := case p_from || '→' || p_to
    when 'new→open' then team
    when 'new→pending' then team
    when 'new→solved' then true
    when 'open→pending' then team
    when 'open→solved' then true
    when 'pending→open' then team or by_reply
    when 'pending→solved' then true
    when 'solved→open' then team or by_reply
    when 'solved→closed' then p_actor in ('admin', 'system')
    else false
  end;
  if not allowed then
    raise exception using errcode = 'P0001', message = 'invalid_transition', detail = p_from || '→' || p_to;
  end if;
end $$;

-- What a user is to the tickets of a workspace: its admin or agent, else a requester.
create function private.ticket_actor(p_workspace_id uuid, p_user_id uuid) returns private.ticket_actor
language sql stable security definer set search_path = '' as $$
  select coalesce((select m.role::text::private.ticket_actor from public.memberships m
                    where m.workspace_id = p_workspace_id and m.user_id = p_user_id), 'requester')
$$;

-- What a public reply does to the status: the requester's reopens a pending or solved request, the
-- team's opens a new one; null when it stays.
create function private.status_after_reply(p_status public.ticket_status, p_actor private.ticket_actor)
returns public.ticket_status
language sql immutable set search_path = '' as $$
  select case
    when p_actor = 'requester' and p_status in ('pending', 'solved') then 'open'::public.ticket_status
    when p_actor <> 'requester' and p_status = 'new' then 'open'::public.ticket_status
  end
$$;

-- A status change by the database's own functions: checked, then written as the owner.
create function private.change_status(
  p_ticket_id uuid, p_to public.ticket_status, p_actor private.ticket_actor, p_reason private.status_reason
) returns void
language plpgsql security definer set search_path = '' as $$
declare
  current_status public.ticket_status;
begin
  select status into current_status from public.tickets where id = p_ticket_id for update;
  if current_status is distinct from p_to then
    perform private.check_transition(current_status, p_to, p_actor, p_reason);
    update public.tickets set status = p_to where id = p_ticket_id;
  end if;
end $$;

-- Direct writes: the state machine for API roles, what a requester may change, and the timestamps
-- that follow the status (the platform may supply its own).
create function private.ticket_transition() returns trigger
language plpgsql security invoker set search_path = '' as $$
declare
  api boolean := current_user in ('anon', 'authenticated', 'service_role');
  platform boolean := not api or private.is_system();
  actor private.ticket_actor := case when platform then 'system' else private.ticket_actor(new.workspace_id, auth.uid()) end;
begin
  if tg_op = 'INSERT' then
    if new.status <> 'new' and not platform then
      raise exception using errcode = 'P0001', message = 'invalid_transition', detail = 'new→' || new.status;
    end if;
  elsif old.status = 'new' and new.status = 'new' and old.assignee_id is null and new.assignee_id is not null then
    perform private.check_transition('new', 'open', actor, 'assignment');
    new.status := 'open';
  elsif api and new.status is distinct from old.status then
    perform private.check_transition(old.status, new.status, actor, 'edit');
  end if;

  if actor = 'requester' and tg_op = 'UPDATE'
     and (new.subject, new.priority, new.assignee_id) is distinct from (old.subject, old.priority, old.assignee_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'requesters may only change the status';
  end if;

  new.solved_at := case when new.status in ('solved', 'closed') then coalesce(
    case when platform then new.solved_at end,
    case when tg_op = 'UPDATE' and old.status in ('solved', 'closed') then old.solved_at end,
    now()) end;
  new.closed_at := case when new.status = 'closed' then coalesce(
    case when platform then new.closed_at end,
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
-- The state machine runs in the API roles' own triggers (security invoker, to see who wrote), so they
-- execute it; the private schema is not exposed, so no request calls it directly.
revoke all on function private.check_transition(public.ticket_status, public.ticket_status, private.ticket_actor,
  private.status_reason), private.ticket_actor(uuid, uuid),
  private.status_after_reply(public.ticket_status, private.ticket_actor),
  private.change_status(uuid, public.ticket_status, private.ticket_actor, private.status_reason) from public;
grant execute on function private.check_transition(public.ticket_status, public.ticket_status, private.ticket_actor,
  private.status_reason), private.ticket_actor(uuid, uuid),
  private.status_after_reply(public.ticket_status, private.ticket_actor),
  private.change_status(uuid, public.ticket_status, private.ticket_actor, private.status_reason)
  to authenticated, service_role;

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
-- history records the close with no actor (the platform). Security definer: it checks its one move.
create function public.close_solved_tickets() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  perform private.check_transition('solved', 'closed', 'system', 'auto_close');
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

-- =============================================================================================
-- supabase/schemas/25_profile_visibility.sql

-- Who reads whose profile: yourself, co-members, the requesters of your workspaces' tickets, and the
-- team of a workspace where you have requests. A per-row check with index look-ups, for the few
-- profiles a page asks for.

create function private.can_see_profile(uid uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select uid = (select auth.uid())
    -- a co-member
    or exists (select 1 from public.memberships mine join public.memberships theirs on theirs.workspace_id = mine.workspace_id
                where mine.user_id = (select auth.uid()) and theirs.user_id = uid)
    -- a requester in one of my workspaces
    or exists (select 1 from public.tickets t join public.memberships mine on mine.workspace_id = t.workspace_id and mine.user_id = (select auth.uid())
                where t.requester_id = uid)
    -- the team of a workspace where I have requests
    or exists (select 1 from public.memberships theirs join public.tickets t on t.workspace_id = theirs.workspace_id and t.requester_id = (select auth.uid())
                where theirs.user_id = uid)
$$;
revoke all on function private.can_see_profile(uuid) from public;
grant execute on function private.can_see_profile(uuid) to authenticated, service_role;

create policy "users read profiles they share a workspace with" on public.profiles for select to authenticated
  using (user_id = (select auth.uid()) or private.can_see_profile(user_id));

-- =============================================================================================
-- supabase/schemas/30_messages.sql

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
  created_at timestamptz not null default clock_timestamp()
);
create index messages_ticket_idx on public.messages (ticket_id, created_at, id);
create index messages_workspace_idx on public.messages (workspace_id);
-- Agents search internal notes too; tickets.search stays requester-safe, so notes get their own index.
create index messages_note_search_idx on public.messages using gin (to_tsvector('english', body)) where kind = 'note';

-- ---------------------------------------------------------------------------------------------
-- A ticket's search vector: subject and public replies.
create function private.ticket_search() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.subject is distinct from old.subject then
    new.search := setweight(to_tsvector('english', new.subject), 'A')
      || coalesce((select to_tsvector('english', string_agg(body, ' ')) from public.messages where ticket_id = new.id and kind = 'reply'), ''::tsvector);
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

-- A reply lands: the ticket's activity time, first response by the team and search text follow. A
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
         search = search || to_tsvector('english', new.body)
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

revoke all on function private.ticket_search(), private.message_posted(), private.message_bookkeeping(),
  private.message_status() from public;

-- ---------------------------------------------------------------------------------------------
-- Message + optional status change in one transaction. Security definer, so that its status change
-- is checked once, for the right actor and reason (private.change_status); its checks above are the
-- messages policies'.
create function public.post_message(
  p_ticket_id uuid, p_body text, p_kind text default 'reply', p_new_status public.ticket_status default null,
  p_last_seen_message_id uuid default null
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
  -- What the policies let through: the ticket's team, or its requester.
  if t.id is null or auth.uid() is null or (actor = 'requester' and t.requester_id <> auth.uid()) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
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

  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), p_kind, p_body) returning * into m;

  -- The status after the message: the one asked for, else what a reply does.
  target := coalesce(p_new_status, case when p_kind = 'reply' then private.status_after_reply(t.status, actor) end);
  if target is not null then
    perform private.change_status(t.id, target, actor, 'reply');
  end if;
  return m;
end $$;
revoke execute on function public.post_message(uuid, text, text, public.ticket_status, uuid) from public, anon;
grant execute on function public.post_message(uuid, text, text, public.ticket_status, uuid) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Requesters never see notes.
alter table public.messages enable row level security;
revoke insert, update, delete on public.messages from anon, authenticated;
grant insert (ticket_id, author_id, kind, body) on public.messages to authenticated;
create policy "members read the whole thread, requesters its replies" on public.messages for select to authenticated
  using (
    workspace_id in (select private.member_workspaces())
    or (kind = 'reply' and ticket_id in (select id from public.tickets where requester_id = (select auth.uid())))
  );
create policy "members write, requesters reply to open requests" on public.messages for insert to authenticated
  with check (
    author_id = (select auth.uid())
    and (
      ticket_id in (select id from public.tickets where workspace_id in (select private.member_workspaces()))
      or (kind = 'reply' and ticket_id in (select id from public.tickets where requester_id = (select auth.uid()) and status <> 'closed'))
    )
  );

-- =============================================================================================
-- supabase/schemas/50_inbox.sql

-- What agents read: search, the inbox in one call (with tallies for its counts), the ticket page in
-- one call and the requester card.
--
-- inbox, ticket_page and requester_card are security definer because they cross row-level security
-- (for speed, or to read auth.users). Their explicit check is the members' policy itself: the caller
-- must be a member of the workspace, and every query is confined to that workspace, which is exactly
-- what "requesters and members read tickets" lets a member read.

-- ---------------------------------------------------------------------------------------------
-- Search. Under RLS, Postgres uses a qual as an index condition only if it is leakproof, and @@ is not:
-- a text search through the table never uses the GIN index. private.search_ticket_ids looks the matches
-- up with the GIN indexes (no RLS inside, so it checks membership itself), and search_tickets returns
-- those tickets through RLS by primary key. Use it like the table, with PostgREST filters on top:
--   rpc('search_tickets', { p_workspace_id, p_query }).eq('status', 'open').order('last_message_at')
-- p_query is websearch syntax (quoted phrases, "or", -exclusions).

-- For members: subject, public replies and notes; for anyone else, their own requests by subject and
-- public replies.
create function private.search_ticket_ids(p_workspace_id uuid, p_query text) returns uuid[]
language plpgsql stable security definer set search_path = '' as $$
declare
  q tsquery := websearch_to_tsquery('english'::regconfig, coalesce(p_query, ''));
begin
  if private.is_member(p_workspace_id) then
    return array(
      select s.id from public.tickets s where s.workspace_id = p_workspace_id and s.search @@ q
      union
      select m.ticket_id from public.messages m
       where m.workspace_id = p_workspace_id and m.kind = 'note' and to_tsvector('english'::regconfig, m.body) @@ q);
  end if;
  return array(
    select s.id from public.tickets s
     where s.workspace_id = p_workspace_id and s.requester_id = (select auth.uid()) and s.search @@ q);
end $$;
revoke all on function private.search_ticket_ids(uuid, text) from public;
grant execute on function private.search_ticket_ids(uuid, text) to authenticated, service_role;

-- plpgsql, so the matches are looked up once, not once per ticket row.
create function public.search_tickets(p_workspace_id uuid, p_query text)
returns setof public.tickets
language plpgsql stable security invoker set search_path = '' as $$
declare
  matches uuid[] := private.search_ticket_ids(p_workspace_id, p_query);
begin
  return query select t.* from public.tickets t where t.id = any (matches) and t.workspace_id = p_workspace_id;
end $$;
revoke execute on function public.search_tickets(uuid, text) from public, anon;
grant execute on function public.search_tickets(uuid, text) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Counts without counting: per workspace, how many tickets there are for each (status, priority,
-- assignee) — at most 5 × 4 × (members + 1) rows — kept by statement triggers on tickets. Every view
-- count, and the total of any status/priority/assignee filter, is a sum over those few rows.
create table private.ticket_tallies (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  status public.ticket_status not null,
  priority public.ticket_priority not null,
  assignee_id uuid,
  -- No check (n >= 0): Postgres checks the proposed row of an upsert before it sees the conflict, and a
  -- move out of a tally proposes a negative one.
  n bigint not null
);
create unique index ticket_tallies_key on private.ticket_tallies (workspace_id, status, priority, assignee_id) nulls not distinct;

-- One statement, one upsert of the summed differences. Rows are taken in key order, so two statements
-- that touch the same tallies queue instead of deadlocking.
create function private.tally_tickets() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into private.ticket_tallies as t (workspace_id, status, priority, assignee_id, n)
    select d.workspace_id, d.status, d.priority, d.assignee_id, count(*)
      from new_tickets d group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (workspace_id, status, priority, assignee_id) do update set n = t.n + excluded.n;
  elsif tg_op = 'UPDATE' then
    -- Differences are summed per key first: a statement that moves tickets back and forth nets out.
    insert into private.ticket_tallies as t (workspace_id, status, priority, assignee_id, n)
    select d.workspace_id, d.status, d.priority, d.assignee_id, sum(d.delta)
      from (select n.workspace_id, n.status, n.priority, n.assignee_id, 1 as delta from new_tickets n
            union all
            select o.workspace_id, o.status, o.priority, o.assignee_id, -1 from old_tickets o) d
     group by 1, 2, 3, 4 having sum(d.delta) <> 0 order by 1, 2, 3, 4
    on conflict (workspace_id, status, priority, assignee_id) do update set n = t.n + excluded.n;
  else
    -- Deleting tickets (a workspace going, with its tallies already gone by cascade): only what is left.
    update private.ticket_tallies t set n = t.n - d.n
      from (select o.workspace_id, o.status, o.priority, o.assignee_id, count(*) as n from old_tickets o group by 1, 2, 3, 4) d
     where t.workspace_id = d.workspace_id and t.status = d.status and t.priority = d.priority
       and t.assignee_id is not distinct from d.assignee_id;
  end if;
  return null;
end $$;
create trigger tickets_tally_insert after insert on public.tickets
  referencing new table as new_tickets for each statement execute function private.tally_tickets();
-- (Postgres allows no column list with transition tables: updates that move no tally add nothing.)
create trigger tickets_tally_update after update on public.tickets
  referencing old table as old_tickets new table as new_tickets for each statement execute function private.tally_tickets();
create trigger tickets_tally_delete after delete on public.tickets
  referencing old table as old_tickets for each statement execute function private.tally_tickets();

-- TRUNCATE fires no row or transition triggers: it empties the tallies too.
create function private.clear_ticket_tallies() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from private.ticket_tallies;
  return null;
end $$;
create trigger tickets_tally_truncate after truncate on public.tickets
  for each statement execute function private.clear_ticket_tallies();

revoke all on function private.tally_tickets(), private.clear_ticket_tallies() from public;

-- ---------------------------------------------------------------------------------------------
-- The inbox views as SQL (constants only; values are always bound parameters). $1 is the caller.
create function private.inbox_view_filter(p_view text) returns text
language sql immutable set search_path = '' as $$
  select case p_view
    when 'unassigned' then 't.assignee_id is null and t.status in (''new'', ''open'')'
    when 'mine' then 't.assignee_id = $1 and t.status in (''new'', ''open'', ''pending'')'
    when 'open' then 't.status in (''new'', ''open'')'
    when 'pending' then 't.status = ''pending'''
    when 'solved' then 't.status = ''solved'''
    when 'all' then 'true'
  end
$$;

-- The workspace of p_slug and the caller's role in it, for the pages that only members see. Not a
-- member, or no such workspace: the same not_found (never reveal that a workspace exists).
create function private.membership(p_slug text, out workspace public.workspaces, out role public.member_role)
language plpgsql stable security definer set search_path = '' as $$
begin
  select w.* into workspace from public.workspaces w where w.slug = p_slug;
  select m.role into role from public.memberships m where m.workspace_id = (workspace).id and m.user_id = auth.uid();
  if auth.uid() is null or (workspace).id is null or role is null then
    raise exception 'not_found' using errcode = 'P0001';
  end if;
end $$;

revoke all on function private.inbox_view_filter(text), private.membership(text) from public;

-- The inbox in one call: the workspace, my role, the members, the view counts, one page of tickets
-- (newest activity first, keyset-paged) with requester and assignee names, and the cursors for the
-- pages around it.
create function public.inbox(
  p_slug text,
  p_view text default 'unassigned',
  p_query text default null,
  p_status text default null,
  p_priority text default null,
  p_assignee text default null,
  p_after_at timestamptz default null,
  p_after_id uuid default null,
  p_before_at timestamptz default null,
  p_before_id uuid default null,
  p_limit integer default 25
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  me uuid := auth.uid();
  member record;
  ws public.workspaces;
  my_role text;
  view_sql text := private.inbox_view_filter(p_view);
  status_filter public.ticket_status;
  priority_filter public.ticket_priority;
  assignee uuid;
  q tsquery;
  base text;
  dir text;
  search_window constant integer := 1000;
  note_ids uuid[];
  newer boolean := p_before_at is not null and p_before_id is not null;
  older boolean := not newer and p_after_at is not null and p_after_id is not null;
  page_ids uuid[];
  has_more boolean;
  result jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  my_role := member.role;
  if view_sql is null or p_limit not between 1 and 100 then
    raise exception 'bad_request' using errcode = 'P0001';
  end if;
  -- Filters from the URL: a status, priority or assignee id that isn't one is a bad request.
  begin
    status_filter := p_status::public.ticket_status;
    priority_filter := p_priority::public.ticket_priority;
    assignee := case when p_assignee <> 'none' then p_assignee::uuid end;
  exception when invalid_text_representation then
    raise exception 'bad_request' using errcode = 'P0001';
  end;

  -- $1 me, $2 workspace, $3 status, $4 priority, $5 assignee, $6 query, $7/$8 cursor, $9 page size + 1
  base := 't.workspace_id = $2 and ' || view_sql
    || case when p_status is not null then ' and t.status = $3' else '' end
    || case when p_priority is not null then ' and t.priority = $4' else '' end
    || case when p_assignee = 'none' then ' and t.assignee_id is null' when assignee is not null then ' and t.assignee_id = $5' else '' end
    || case when older then ' and (t.last_message_at, t.id) < ($7, $8)' when newer then ' and (t.last_message_at, t.id) > ($7, $8)' else '' end;

  dir := case when newer then 'asc' else 'desc' end;
  if coalesce(btrim(p_query), '') <> '' then
    q := websearch_to_tsquery('english'::regconfig, p_query);
  end if;
  if q is not null and numnode(q) = 0 then
    -- Only stop words ("the") or punctuation: nothing can match, and an empty query would make the
    -- GIN path below read every ticket.
    page_ids := '{}';
  elsif q is not null then
    -- Subject and public replies. The planner can't tell a rare word from an absent one, and walking
    -- the inbox index for an absent word reads every ticket (150 ms at 100k). So: look for the page among
    -- the view's newest SEARCH_WINDOW tickets first (a common word fills it within a few dozen rows), and
    -- only if that falls short take every match from the GIN index and sort them.
    execute format(
      'select array(select w.id from (select t.id, t.last_message_at, t.search from public.tickets t where %2$s'
      || ' order by t.last_message_at %1$s, t.id %1$s limit %3$s) w where w.search @@ $6 order by w.last_message_at %1$s, w.id %1$s limit $9)',
      dir, base, search_window)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, coalesce(p_after_at, p_before_at), coalesce(p_after_id, p_before_id), p_limit + 1;
    if cardinality(page_ids) <= p_limit then
      execute format(
        'with m as materialized (select t.id, t.last_message_at from public.tickets t where %2$s and t.search @@ $6)'
        || ' select array(select id from m order by last_message_at %1$s, id %1$s limit $9)', dir, base)
        into page_ids
        using me, ws.id, status_filter, priority_filter, assignee, q, coalesce(p_after_at, p_before_at), coalesce(p_after_id, p_before_id), p_limit + 1;
    end if;
    -- Internal notes (their own GIN index), then the newest of both lists.
    execute format(
      'select array(select t.id from public.tickets t where %2$s and t.id in (select m.ticket_id from public.messages m'
      || ' where m.workspace_id = $2 and m.kind = ''note'' and to_tsvector(''english''::regconfig, m.body) @@ $6)'
      || ' order by t.last_message_at %1$s, t.id %1$s limit $9)', dir, base)
      into note_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, coalesce(p_after_at, p_before_at), coalesce(p_after_id, p_before_id), p_limit + 1;
    execute format('select array(select t.id from public.tickets t where t.id = any ($1) order by t.last_message_at %1$s, t.id %1$s limit $2)', dir)
      into page_ids using page_ids || note_ids, p_limit + 1;
  else
    execute format(
      'select array(select t.id from public.tickets t where %2$s order by t.last_message_at %1$s, t.id %1$s limit $9)', dir, base)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, coalesce(p_after_at, p_before_at), coalesce(p_after_id, p_before_id), p_limit + 1;
  end if;
  page_ids := coalesce(page_ids, '{}');
  -- One row past the page says whether there is another page in that direction.
  has_more := cardinality(page_ids) > p_limit;
  page_ids := page_ids[1:p_limit];
  if newer then
    page_ids := array(select x from unnest(page_ids) with ordinality u(x, i) order by i desc);
  end if;

  select jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
    'role', my_role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role, 'name', coalesce(p.display_name, 'Unknown'))
                                          order by coalesce(p.display_name, 'Unknown'), m.user_id), '[]')
                  from public.memberships m left join public.profiles p on p.user_id = m.user_id
                 where m.workspace_id = ws.id),
    'counts', (select jsonb_build_object(
                 'unassigned', coalesce(sum(c.n) filter (where c.assignee_id is null and c.status in ('new', 'open')), 0),
                 'mine', coalesce(sum(c.n) filter (where c.assignee_id = me and c.status in ('new', 'open', 'pending')), 0),
                 'open', coalesce(sum(c.n) filter (where c.status in ('new', 'open')), 0),
                 'pending', coalesce(sum(c.n) filter (where c.status = 'pending'), 0),
                 'solved', coalesce(sum(c.n) filter (where c.status = 'solved'), 0),
                 'all', coalesce(sum(c.n), 0))
                 from private.ticket_tallies c where c.workspace_id = ws.id),
    -- Without a search the view's total, filters included, is exact from the tallies too.
    'total', case when q is null then (
               select coalesce(sum(c.n), 0) from private.ticket_tallies c
                where c.workspace_id = ws.id
                  and case p_view
                        when 'unassigned' then c.assignee_id is null and c.status in ('new', 'open')
                        when 'mine' then c.assignee_id = me and c.status in ('new', 'open', 'pending')
                        when 'open' then c.status in ('new', 'open')
                        when 'pending' then c.status = 'pending'
                        when 'solved' then c.status = 'solved'
                        else true end
                  and (status_filter is null or c.status = status_filter)
                  and (priority_filter is null or c.priority = priority_filter)
                  and (p_assignee is null or (p_assignee = 'none' and c.assignee_id is null) or c.assignee_id = assignee)) end,
    'tickets', (select coalesce(jsonb_agg(jsonb_build_object(
                   'id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                   'requester_id', t.requester_id, 'requester', coalesce(rp.display_name, 'Unknown'),
                   'assignee_id', t.assignee_id, 'assignee', case when t.assignee_id is not null then coalesce(ap.display_name, 'Unknown') end,
                   'last_message_at', t.last_message_at) order by u.i), '[]')
                  from unnest(page_ids) with ordinality u(id, i)
                  join public.tickets t on t.id = u.id
                  left join public.profiles rp on rp.user_id = t.requester_id
                  left join public.profiles ap on ap.user_id = t.assignee_id),
    -- Cursors: "older" continues after the last row, "newer" goes back before the first.
    'older', case when cardinality(page_ids) > 0 and (has_more or newer) then
               (select jsonb_build_object('at', t.last_message_at, 'id', t.id) from public.tickets t where t.id = page_ids[cardinality(page_ids)]) end,
    'newer', case when cardinality(page_ids) > 0 and (older or (newer and has_more)) then
               (select jsonb_build_object('at', t.last_message_at, 'id', t.id) from public.tickets t where t.id = page_ids[1]) end
  ) into result;
  return result;
end $$;
revoke all on function public.inbox(text, text, text, text, text, text, timestamptz, uuid, timestamptz, uuid, integer) from public, anon;
grant execute on function public.inbox(text, text, text, text, text, text, timestamptz, uuid, timestamptz, uuid, integer) to authenticated, service_role;

-- The requester card on an agent's ticket page: who they are (name, and the email address that
-- profiles don't hold) and their other recent requests here. Requesters and other workspaces get
-- not_found.
create function public.requester_card(p_ticket_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.id is null or not private.is_member(t.workspace_id) then
    raise exception 'not_found' using errcode = 'P0001';
  end if;
  return jsonb_build_object(
    'user_id', t.requester_id,
    'name', coalesce((select p.display_name from public.profiles p where p.user_id = t.requester_id), 'Unknown'),
    'email', (select u.email from auth.users u where u.id = t.requester_id),
    'requests', (select count(*) from public.tickets o where o.requester_id = t.requester_id and o.workspace_id = t.workspace_id),
    'recent', (select coalesce(jsonb_agg(jsonb_build_object('number', o.number, 'subject', o.subject, 'status', o.status, 'last_message_at', o.last_message_at)
                                         order by o.last_message_at desc), '[]')
                 from (select o.number, o.subject, o.status, o.last_message_at from public.tickets o
                        where o.requester_id = t.requester_id and o.workspace_id = t.workspace_id and o.id <> t.id
                        order by o.last_message_at desc limit 5) o));
end $$;
revoke all on function public.requester_card(uuid) from public, anon;
grant execute on function public.requester_card(uuid) to authenticated, service_role;

-- An agent's ticket page in one call: the workspace and my role, the members, the ticket, its thread
-- (notes included), its latest 100 events, the display names of everyone involved, and the requester
-- card.
create function public.ticket_page(p_slug text, p_number integer) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  member record;
  ws public.workspaces;
  my_role text;
  t public.tickets;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  my_role := member.role;
  select * into t from public.tickets x where x.workspace_id = ws.id and x.number = p_number;
  if t.id is null then
    raise exception 'not_found' using errcode = 'P0001';
  end if;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
    'role', my_role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role) order by m.user_id), '[]')
                  from public.memberships m where m.workspace_id = ws.id),
    'ticket', jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                                 'requester_id', t.requester_id, 'assignee_id', t.assignee_id, 'created_at', t.created_at,
                                 'first_response_at', t.first_response_at, 'solved_at', t.solved_at),
    'messages', (select coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'kind', m.kind, 'body', m.body, 'created_at', m.created_at,
                                                              'author_id', m.author_id) order by m.created_at, m.id), '[]')
                   from public.messages m where m.ticket_id = t.id),
    'events', (select coalesce(jsonb_agg(jsonb_build_object('id', e.id, 'actor_id', e.actor_id, 'type', e.type, 'from', e."from",
                                                            'to', e."to", 'created_at', e.created_at) order by e.created_at desc, e.id desc), '[]')
                 from (select * from public.ticket_events e where e.ticket_id = t.id order by e.created_at desc, e.id desc limit 100) e),
    'names', (select coalesce(jsonb_object_agg(p.user_id, p.display_name), '{}')
                from public.profiles p
               where p.user_id in (select m.user_id from public.memberships m where m.workspace_id = ws.id)
                  or p.user_id = t.requester_id
                  or p.user_id in (select m.author_id from public.messages m where m.ticket_id = t.id)
                  or p.user_id in (select e.actor_id from public.ticket_events e where e.ticket_id = t.id)
                  -- assignees in the history, former members included
                  or p.user_id::text in (select unnest(array[e."from", e."to"]) from public.ticket_events e
                                          where e.ticket_id = t.id and e.type = 'assignee')),
    'requester', public.requester_card(t.id)
  );
end $$;
revoke all on function public.ticket_page(text, integer) from public, anon;
grant execute on function public.ticket_page(text, integer) to authenticated, service_role;

-- =============================================================================================
-- supabase/schemas/60_reports.sql

-- Reports for admins: one round trip, the numbers the settings page shows.
-- { since, tickets_by_status {status: n}, created, solved, median_first_response_seconds,
--   by_assignee [{assignee_id, open, solved}] }. Raises forbidden for anyone but the workspace's admins.

create function public.workspace_report(p_workspace_id uuid, p_since timestamptz default now() - interval '30 days')
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
declare
  out jsonb;
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  select jsonb_build_object(
    'since', p_since,
    'tickets_by_status', (select jsonb_object_agg(s, (select count(*) from public.tickets t where t.workspace_id = p_workspace_id and t.status = s))
                            from unnest(enum_range(null::public.ticket_status)) s),
    'created', (select count(*) from public.tickets t where t.workspace_id = p_workspace_id and t.created_at >= p_since),
    'solved', (select count(*) from public.tickets t where t.workspace_id = p_workspace_id and t.solved_at >= p_since),
    'median_first_response_seconds', (select round(extract(epoch from percentile_cont(0.5) within group (order by t.first_response_at - t.created_at)))
                                        from public.tickets t where t.workspace_id = p_workspace_id and t.created_at >= p_since and t.first_response_at is not null),
    'by_assignee', coalesce((select jsonb_agg(jsonb_build_object('assignee_id', a.assignee_id, 'open', a.open, 'solved', a.solved) order by a.open desc, a.assignee_id)
                      from (select t.assignee_id,
                                   count(*) filter (where t.status in ('new', 'open', 'pending')) as open,
                                   count(*) filter (where t.solved_at >= p_since) as solved
                              from public.tickets t where t.workspace_id = p_workspace_id and t.assignee_id is not null group by t.assignee_id) a), '[]'::jsonb)
  ) into out;
  return out;
end $$;
revoke execute on function public.workspace_report(uuid, timestamptz) from public, anon;
grant execute on function public.workspace_report(uuid, timestamptz) to authenticated, service_role;

-- =============================================================================================
-- supabase/schemas/70_realtime.sql

-- postgres_changes for the inbox (tickets) and the thread (messages). Realtime applies the
-- subscriber's RLS to each change. The publication comes with the platform (empty, owned by postgres).
alter publication supabase_realtime add table public.tickets, public.messages;
