-- Tend's helpdesk: workspaces, members, tickets and their conversation (product.md §3, §5).
--
-- Errors the app maps to its catalogue (product.md §8) are raised as
--   raise exception using errcode = 'P0001', message = '<catalogue code>', detail = '<context>';
-- PostgREST returns them as {"code": "P0001", "message": "<catalogue code>", "details": "<context>"}.
-- Codes: invalid_transition (detail "from→to"), ticket_closed, ticket_changed (traffic cop; detail =
-- the newest message id), last_admin, assignee_not_member, slug_taken, not_found, forbidden.

create schema if not exists private;
-- Not exposed through PostgREST; the API roles may only execute the helpers below.
grant usage on schema private to anon, authenticated, service_role;

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

create table public.memberships (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null check (role in ('admin', 'agent')),
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index memberships_user_id_idx on public.memberships (user_id);

create table public.invitations (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  email extensions.citext not null check (char_length(email) <= 254 and email::text ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
  role text not null default 'agent' check (role in ('admin', 'agent')),
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  invited_by uuid references auth.users (id) on delete set null,
  expires_at timestamptz not null default now() + interval '7 days',
  accepted_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index invitations_workspace_id_idx on public.invitations (workspace_id);

create table public.tickets (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  number integer not null,
  requester_id uuid not null references auth.users (id),
  subject text not null check (char_length(subject) between 1 and 200),
  status text not null default 'new' check (status in ('new', 'open', 'pending', 'solved', 'closed')),
  priority text not null default 'normal' check (priority in ('low', 'normal', 'high', 'urgent')),
  assignee_id uuid references auth.users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  first_response_at timestamptz,
  solved_at timestamptz,
  closed_at timestamptz,
  last_message_at timestamptz not null default now(),
  -- Subject (weight A) and every message body, notes included: only agents search.
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

create table public.messages (
  id uuid primary key default gen_random_uuid(),
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  author_id uuid not null references auth.users (id),
  kind text not null default 'reply' check (kind in ('reply', 'note')),
  body text not null check (char_length(body) between 1 and 20000),
  created_at timestamptz not null default clock_timestamp()
);
create index messages_ticket_idx on public.messages (ticket_id, created_at, id);
create index messages_workspace_idx on public.messages (workspace_id);

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

create table public.canned_replies (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  title text not null check (char_length(title) between 1 and 80),
  body text not null check (char_length(body) between 1 and 5000),
  created_by uuid references auth.users (id) on delete set null,
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

-- Users the caller may see the profile of: co-members, requesters of their workspaces' tickets, and the
-- members of workspaces where the caller has requests.
create function private.visible_users() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select m2.user_id from public.memberships m1 join public.memberships m2 on m2.workspace_id = m1.workspace_id
   where m1.user_id = (select auth.uid())
  union
  select t.requester_id from public.tickets t where t.workspace_id in (select workspace_id from public.memberships where user_id = (select auth.uid()))
  union
  select m.user_id from public.tickets t join public.memberships m on m.workspace_id = t.workspace_id
   where t.requester_id = (select auth.uid())
$$;

-- The platform itself: service_role, or a direct database session with no JWT (seed, migrations, jobs).
create function private.is_system() returns boolean
language sql stable set search_path = '' as $$
  select auth.role() = 'service_role' or auth.role() is null
$$;

revoke all on all functions in schema private from public;
grant execute on all functions in schema private to anon, authenticated, service_role;
alter default privileges in schema private revoke execute on functions from public;
