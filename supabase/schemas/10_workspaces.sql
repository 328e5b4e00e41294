-- People, workspaces and who belongs to them: profiles, workspaces, memberships and invitations, with
-- the membership helpers every policy uses. (Canned replies: 45_canned_replies.sql.)

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
  -- The workspace's IANA time zone (reports count days in it); checked against the database's list.
  time_zone text not null default 'UTC' check (char_length(time_zone) between 1 and 64),
  created_by uuid references auth.users (id) on delete set null,
  -- Per-workspace ticket numbers: incremented in the creating transaction, so numbers have no gaps.
  ticket_seq integer not null default 0,
  created_at timestamptz not null default now(),
  -- Agents may create tags while tagging (52_triage.sql); admins always may.
  agents_create_tags boolean not null default true,
  -- The people an inbound email copies (To and Cc besides the workspace) follow its ticket (54_followers.sql).
  cc_adds_followers boolean not null default true
);

-- A workspace's earlier addresses, so old links keep working (workspace_slug_redirect). An address
-- once used stays its workspace's (refuse_used_workspace_slug): old emails never lead to a stranger.
create table public.workspace_slug_history (
  slug text primary key,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  created_at timestamptz not null default now()
);
create index workspace_slug_history_workspace_idx on public.workspace_slug_history (workspace_id);

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

-- ---------------------------------------------------------------------------------------------
-- Membership helpers: security definer so policies can ask without recursing into RLS.
-- The two sets are plpgsql, as private.followed_tickets is: a SQL function with a setting is never inlined, and its
-- statement was parsed and planned again in every statement whose policy asks (~0.25 ms each: the bell's count on
-- every page, each read of tickets, messages … as a member); plpgsql keeps the plan for the connection
-- (docs/decisions/120-inbox-page-cpu.md).

create function private.member_workspaces() returns setof uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  return query select workspace_id from public.memberships where user_id = (select auth.uid());
end $$;

create function private.admin_workspaces() returns setof uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  return query select workspace_id from public.memberships where user_id = (select auth.uid()) and role = 'admin';
end $$;

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

-- Someone who already belongs gets no invitation (nor its email): already_member. Only what the API writes.
create function private.refuse_member_invitation() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if exists (select 1 from public.memberships m join auth.users u on u.id = m.user_id
              where m.workspace_id = new.workspace_id and lower(u.email) = lower(new.email::text)) then
    raise exception using errcode = 'P0001', message = 'already_member';
  end if;
  return new;
end $$;
-- After invitations_email (the address as stored), before invitations_limit (nothing counted).
create trigger invitations_existing_member before insert or update of email, token_hash on public.invitations
  for each row when (current_user in ('anon', 'authenticated')) execute function private.refuse_member_invitation();

revoke all on function private.handle_new_user(), private.keep_an_admin(), private.normalise_invitation_email(),
  private.invitation_times(), private.refuse_member_invitation() from public;

-- A time zone the database knows (pg_timezone_names), or bad_request: only a hand-made request sends another.
create function private.check_workspace_time_zone() returns trigger
language plpgsql set search_path = '' as $$
begin
  if not exists (select 1 from pg_catalog.pg_timezone_names where name = new.time_zone) then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'unknown time zone';
  end if;
  return new;
end $$;
create trigger workspaces_time_zone before insert or update of time_zone on public.workspaces
  for each row execute function private.check_workspace_time_zone();

-- A renamed workspace remembers its old address; the new one stops being anyone's old address.
create function private.remember_workspace_slug() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from public.workspace_slug_history where slug = new.slug;
  insert into public.workspace_slug_history (slug, workspace_id) values (old.slug, new.id)
  on conflict (slug) do update set workspace_id = excluded.workspace_id, created_at = now();
  return new;
end $$;
create trigger workspaces_slug_history after update of slug on public.workspaces
  for each row when (old.slug is distinct from new.slug) execute function private.remember_workspace_slug();

-- Another workspace's old address is taken, as a current one is (slug_taken); its own old address a
-- workspace may take back.
create function private.refuse_used_workspace_slug() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if exists (select 1 from public.workspace_slug_history h where h.slug = new.slug and h.workspace_id <> new.id) then
    raise exception using errcode = 'P0001', message = 'slug_taken', detail = new.slug;
  end if;
  return new;
end $$;
create trigger workspaces_used_slug before insert or update of slug on public.workspaces
  for each row execute function private.refuse_used_workspace_slug();

revoke all on function private.check_workspace_time_zone(), private.remember_workspace_slug(),
  private.refuse_used_workspace_slug() from public;

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

-- The portal's workspace by slug, for anyone: one at a time, never the list. The id is for the portal's
-- next query (the requester's tickets there).
create function public.portal_workspace(p_slug text) returns table (id uuid, slug text, name text)
language sql stable security definer set search_path = '' as $$
  select w.id, w.slug, w.name from public.workspaces w where w.slug = lower(trim(p_slug))
$$;
revoke execute on function public.portal_workspace(text) from public;
grant execute on function public.portal_workspace(text) to anon, authenticated, service_role;

-- The current address of a workspace that was renamed from p_slug (null if none): old links of the
-- portal and the inbox redirect. Public like the portal's name; what RLS hides stays hidden there.
create function public.workspace_slug_redirect(p_slug text) returns text
language sql stable security definer set search_path = '' as $$
  select w.slug from public.workspace_slug_history h join public.workspaces w on w.id = h.workspace_id
   where h.slug = lower(trim(p_slug))
$$;
revoke execute on function public.workspace_slug_redirect(text) from public;
grant execute on function public.workspace_slug_redirect(text) to anon, authenticated, service_role;

-- What an invitation's link offers, for its page (/invite/:token): the workspace's name, who invited,
-- the role, the address it was sent to, and why it can't be accepted any more (null: it can). No row for
-- a token that isn't one. The token is the secret: whoever holds it was mailed it.
create function public.invitation_preview(p_token text)
returns table (workspace_name text, inviter_name text, role public.member_role, email text, problem text)
language sql stable security definer set search_path = '' as $$
  select w.name, p.display_name, i.role, i.email::text,
         case when i.accepted_at is not null then 'accepted' when i.revoked_at is not null then 'revoked'
              when i.expires_at <= now() then 'expired' end
    from public.invitations i
    join public.workspaces w on w.id = i.workspace_id
    left join public.profiles p on p.user_id = i.invited_by
   where i.token_hash = encode(extensions.digest(coalesce(p_token, ''), 'sha256'), 'hex')
$$;
revoke execute on function public.invitation_preview(text) from public, anon;
grant execute on function public.invitation_preview(text) to authenticated, service_role;

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
alter table public.workspace_slug_history enable row level security;

-- Read through workspace_slug_redirect only; written by the rename trigger.
revoke all on public.workspace_slug_history from anon, authenticated;

revoke insert, update, delete on public.profiles from anon, authenticated;
grant update (display_name) on public.profiles to authenticated;
create policy "users rename themselves" on public.profiles for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
-- Who reads whose profile depends on tickets: 25_profile_visibility.sql.

-- Nobody lists workspaces: a portal looks its one up by slug (portal_workspace). Signed-in users read
-- the workspaces they belong to or have requests at (the policy is with tickets, 20_tickets.sql).
revoke select, insert, update, delete on public.workspaces from anon, authenticated;
grant select (id, slug, name, time_zone, created_at, agents_create_tags, cc_adds_followers) on public.workspaces to authenticated;
grant update (name, slug, time_zone, agents_create_tags, cc_adds_followers) on public.workspaces to authenticated;
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
