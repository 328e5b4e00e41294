-- Tickets and their history: numbering, the assignee rule, the status state machine, the history
-- the database writes, and the procedures that move tickets (claim, auto-close).

create type public.ticket_status as enum ('new', 'open', 'pending', 'solved', 'closed');
create type public.ticket_priority as enum ('low', 'normal', 'high', 'urgent');

-- The statuses the inbox, the queue and the reports group by, said once: open (new or open: the
-- team's turn) and the backlog (open or pending: not solved yet). Immutable SQL with no settings, so
-- the planner inlines them: a query's `private.is_open(t.status)` still matches tickets_unassigned_idx.
create function private.is_open(p_status public.ticket_status) returns boolean
language sql immutable parallel safe as $$
  select p_status in ('new', 'open')
$$;
create function private.is_backlog(p_status public.ticket_status) returns boolean
language sql immutable parallel safe as $$
  select private.is_open(p_status) or p_status = 'pending'
$$;
revoke all on function private.is_open(public.ticket_status), private.is_backlog(public.ticket_status) from public;
grant execute on function private.is_open(public.ticket_status), private.is_backlog(public.ticket_status)
  to authenticated, service_role;

-- requester_id and assignee_id reference profiles, so PostgREST can embed names:
--   tickets?select=*,requester:profiles!tickets_requester_profile_fkey(display_name)
-- and so a user: a profile is its user's (profiles.user_id, on delete cascade), and deleting a user whose
-- profile a ticket names is refused as before. Not a second key to auth.users as well: Postgres checks every
-- key of a row this transaction wrote again at each update, and a new ticket is updated by its rules and its
-- assignment (docs/decisions/102-tend-says-so.md).
create table public.tickets (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  number integer not null,
  requester_id uuid not null
    constraint tickets_requester_profile_fkey references public.profiles (user_id),
  subject text not null check (char_length(subject) between 1 and 200),
  status public.ticket_status not null default 'new',
  priority public.ticket_priority not null default 'normal',
  assignee_id uuid
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
  -- A request opened by mail to a closed ticket follows up on it (inbound-email, 80_email.sql).
  follow_up_of uuid references public.tickets (id) on delete set null,
  -- The key of the form that opened it (create_ticket): a resubmitted form finds its ticket.
  client_key uuid,
  -- Snoozed (52_triage.sql): out of the open views until then, or until the requester replies. Only a
  -- ticket not yet solved; solving or closing it ends the snooze (ticket_transition).
  snoozed_until timestamptz,
  -- Merged into another ticket of the workspace (52_triage.sql, merge_tickets): closed for good, and its
  -- links lead there. Always the final ticket: a merge re-points what was merged into the secondary.
  merged_into_id uuid references public.tickets (id),
  -- In Spam since (54_spam_trash_split.sql): out of every other view, heard of by no one.
  spam_at timestamptz,
  -- In Trash since (54_spam_trash_split.sql): out of every other view, search, report and the requester's
  -- portal; deleted for good 30 days later (private.purge_trash).
  trashed_at timestamptz,
  unique (workspace_id, number),
  constraint tickets_merged_closed check (merged_into_id is null or (status = 'closed' and merged_into_id <> id)),
  constraint tickets_snoozed_unsolved check (snoozed_until is null or private.is_backlog(status)),
  constraint tickets_requester_client_key unique (requester_id, client_key)
);
-- Room in each page for a changed row's next version: a change of columns no index holds (priority, a tag's
-- updated_at) is then a HOT update, which writes none of the table's indexes (a bulk priority change of 1 000
-- tickets: docs/decisions/073-bulk-change-per-statement.md). migra compares no storage parameters: the
-- migration that set it says so by hand, and tests/integration/db-bulk.test.ts holds the two equal.
alter table public.tickets set (fillfactor = 90);
-- Inbox views, newest activity first: all, by status, by assignee, unassigned queue, search.
create index tickets_inbox_idx on public.tickets (workspace_id, last_message_at desc, id desc);
create index tickets_status_idx on public.tickets (workspace_id, status, last_message_at desc, id desc);
create index tickets_assignee_idx on public.tickets (workspace_id, assignee_id, last_message_at desc, id desc);
create index tickets_unassigned_idx on public.tickets (workspace_id, created_at, number) where assignee_id is null and private.is_open(status);
create index tickets_requester_idx on public.tickets (requester_id, workspace_id, last_message_at desc);
-- Search's GIN index keeps new entries in a pending list that every search reads whole (Postgres's fast
-- update): 4 MB by default, 500 pages a search once replies have filled it, more than the index look-up
-- itself. Capped at 256 kB, a writer merges it into the index sooner (docs/decisions/088-search-cost.md).
create index tickets_search_idx on public.tickets using gin (search) with (gin_pending_list_limit = 256);
-- The auto-close job finds due tickets without reading every ticket.
create index tickets_solved_due_idx on public.tickets (solved_at) where status = 'solved';
-- The wake-up job finds due snoozes without reading every ticket.
create index tickets_snoozed_due_idx on public.tickets (snoozed_until) where snoozed_until is not null;
-- A merge re-points the tickets merged into its secondary.
create index tickets_merged_into_idx on public.tickets (merged_into_id) where merged_into_id is not null;
-- Deleting a ticket (the Trash purge) clears the follow-ups that point at it: without this, each deleted
-- ticket read every ticket (docs/decisions/070-bulk-merge-purge-at-volume.md).
create index tickets_follow_up_idx on public.tickets (follow_up_of) where follow_up_of is not null;
-- The Spam and Trash views (newest activity first), and the purge job's look-up of what is due.
create index tickets_spam_idx on public.tickets (workspace_id, last_message_at desc, id desc)
  where spam_at is not null and trashed_at is null;
create index tickets_trash_idx on public.tickets (workspace_id, last_message_at desc, id desc) where trashed_at is not null;
create index tickets_trashed_due_idx on public.tickets (trashed_at) where trashed_at is not null;

create table public.ticket_events (
  id bigint generated always as identity primary key,
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  actor_id uuid references auth.users (id),
  -- sla_breach: a promise broken (90_promises.sql), "from" the due time, "to" the target.
  -- merged_into ("to": the primary's number), merged_from ("from": the secondary's number): 52_triage.sql.
  -- spam, not_spam, trashed, restored; split_to ("to": the new ticket's number), split_from ("from": the
  -- original's number): 54_spam_trash_split.sql. field: a custom field's value ("from" → "to", null: empty).
  -- follower_added, follower_removed ("to": their address): 54_followers.sql.
  -- rule: a rule fired ("to": its name; no actor), 95_rules.sql.
  type text not null check (type in ('created', 'status', 'assignee', 'priority', 'tag_added', 'tag_removed', 'snoozed',
                                     'unsnoozed', 'sla_breach', 'merged_into', 'merged_from', 'spam', 'not_spam',
                                     'trashed', 'restored', 'split_to', 'split_from', 'field', 'follower_added',
                                     'follower_removed', 'rule')),
  "from" text,
  "to" text,
  -- A 'field' event's custom field, by the label it had then.
  field text,
  -- The number of the ticket the event was written on, when a merge moved it to this one.
  from_ticket integer,
  created_at timestamptz not null default clock_timestamp()
);
create index ticket_events_ticket_idx on public.ticket_events (ticket_id, created_at);
create index ticket_events_workspace_idx on public.ticket_events (workspace_id);

-- ---------------------------------------------------------------------------------------------
-- Tend acting on a ticket by itself, in the transaction's own writes: its rules ('rules', 95_rules.sql) or
-- the automatic assignment ('assignment', 90_promises.sql). What it writes there names no one, as the
-- history says: every line a rule's action writes, the assignment's own line, and the "assigned" notice
-- (docs/decisions/102-tend-says-so.md). Written once, with no actor, instead of written with the actor of
-- the request and cleared after. A setting local to the transaction, set only by private functions through
-- private.tend_act (an API caller reaches public functions only, and none sets it), and read only with the
-- id of the transaction that set it: a value from an earlier transaction of the session is never read.
create function private.tend_acting(out ticket_id uuid, out what text)
language plpgsql stable set search_path = '' as $$
declare
  v text[] := string_to_array(nullif(current_setting('private.tend_acting', true), ''), ' ');
begin
  if v[1] = pg_current_xact_id_if_assigned()::text then
    ticket_id := v[2]::uuid;
    what := v[3];
  end if;
end $$;

-- Tend starts acting on a ticket ('rules' or 'assignment'): what was said before, for private.tend_done to
-- say again once it is done.
create function private.tend_act(p_ticket_id uuid, p_what text) returns text
language plpgsql set search_path = '' as $$
declare
  before text := coalesce(current_setting('private.tend_acting', true), '');
begin
  perform set_config('private.tend_acting', pg_current_xact_id()::text || ' ' || p_ticket_id || ' ' || p_what, true);
  return before;
end $$;

create function private.tend_done(p_before text) returns void
language plpgsql set search_path = '' as $$
begin
  perform set_config('private.tend_acting', p_before, true);
end $$;

-- ---------------------------------------------------------------------------------------------
-- Numbers come from the workspace's counter row: the update locks it until commit, so concurrent
-- creations queue and numbers stay consecutive. Whatever a creation does after taking its number, the
-- workspace's other creations wait for, so create_ticket takes it late: its ticket is inserted with a
-- provisional number (below zero, from a sequence: unique, and nobody waits for it), runs its rules and SLA
-- clocks, and only then is numbered (private.number_ticket, from private.rules_on_ticket_created; by its
-- automatic assignment, which takes the counter before the assignment settings' row, as every other creation
-- takes them) and before anyone hears of it (a rule's reply, note or status numbers it first, 95_rules.sql; a
-- notice's email is queued once it has its number, 85_notifications.sql).
-- Until then it counts in no tally, customer or report (private.ticket_counted): rows every creation of the
-- workspace also holds to its commit (docs/decisions/104-number-late.md).
create sequence private.provisional_ticket_numbers;

create function private.assign_ticket_number() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  -- Bulk imports by the platform reserve a block of numbers themselves (scripts/seed-bulk.ts), and
  -- create_ticket's provisional number is its own (no API role inserts tickets).
  if new.number < 0 or (new.number is not null and private.is_system()) then
    return new;
  end if;
  update public.workspaces set ticket_seq = ticket_seq + 1 where id = new.workspace_id returning ticket_seq into new.number;
  if new.number is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  return new;
end $$;
create trigger tickets_number before insert on public.tickets for each row execute function private.assign_ticket_number();

-- The workspace's next number: its counter's update, held from here to the commit. The caller writes it on
-- its ticket, with its own change where it makes one (an assignment: one update of the new ticket, not two,
-- docs/decisions/108-rules-cpu.md).
create function private.next_ticket_number(p_workspace_id uuid) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  update public.workspaces set ticket_seq = ticket_seq + 1 where id = p_workspace_id returning ticket_seq into n;
  return n;
end $$;

-- A ticket with a provisional number takes its number from the workspace's counter (held from here to the
-- commit); its number, whether just taken or taken before.
create function private.number_ticket(p_ticket_id uuid) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  n integer;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.number > 0 then
    return t.number;
  end if;
  n := private.next_ticket_number(t.workspace_id);
  update public.tickets set number = n where id = p_ticket_id;
  return n;
end $$;

-- Whether a ticket counts in the tallies, the customers' counts and the reports: numbered (not yet, with
-- create_ticket's provisional number), and not in Spam or Trash (54_spam_trash_split.sql).
create function private.ticket_counted(p_number integer, p_spam_at timestamptz, p_trashed_at timestamptz)
returns boolean
language sql immutable parallel safe as $$
  select p_number > 0 and p_spam_at is null and p_trashed_at is null
$$;

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
create type private.status_reason as enum ('edit', 'reply', 'assignment', 'auto_close', 'merge');

-- Raises invalid_transition (detail "from→to") unless p_actor may move a ticket from p_from to p_to for
-- p_reason. Requesters solve their own tickets and reopen them only by replying; admins (or the
-- platform) close; a merge closes the secondary ticket from any status but closed, for the team.
create function private.check_transition(
  p_from public.ticket_status, p_to public.ticket_status, p_actor private.ticket_actor, p_reason private.status_reason
) returns void
language plpgsql immutable set search_path = '' as $$
declare
  team boolean := p_actor in ('agent', 'admin', 'system');
  by_reply boolean := p_actor = 'requester' and p_reason = 'reply';
  allowed boolean;
begin
  allowed := case when p_reason = 'merge' then team and p_to = 'closed' and p_from <> 'closed'
    else case p_from || '→' || p_to
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
  end end;
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
  -- A solved or closed ticket is no longer snoozed.
  if new.status in ('solved', 'closed') then
    new.snoozed_until := null;
  end if;
  new.closed_at := case when new.status = 'closed' then coalesce(
    case when platform then new.closed_at end,
    case when tg_op = 'UPDATE' and old.status = 'closed' then old.closed_at end,
    now()) end;
  new.updated_at := now();
  return new;
end $$;
create trigger tickets_transition before insert or update on public.tickets
  for each row execute function private.ticket_transition();

-- History, written by the database so every path (app, RPC, SQL) leaves a trace. A new ticket and a status
-- change row by row: what fires after them reads that event (private.status_since, for the waiting rules of
-- 95_rules.sql). Every other change once per statement, from its transition tables (below): a bulk change of
-- 1 000 tickets writes its events in one insert (docs/decisions/073-bulk-change-per-statement.md).
create function private.ticket_history() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  actor uuid := auth.uid();
  tend record;
begin
  if tg_op = 'INSERT' then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to") values (new.id, new.workspace_id, actor, 'created', new.status);
    -- A request of a sender marked as spam opens in Spam: Tend put it there.
    if new.spam_at is not null then
      insert into public.ticket_events (ticket_id, workspace_id, actor_id, type) values (new.id, new.workspace_id, null, 'spam');
    end if;
    return null;
  end if;
  -- A status a rule's action moved is Tend's; the opening an automatic assignment causes names the requester.
  tend := private.tend_acting();
  if tend.ticket_id = new.id and tend.what = 'rules' then
    actor := null;
  end if;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to") values (new.id, new.workspace_id, actor, 'status', old.status, new.status);
  return null;
end $$;
create trigger tickets_history after insert on public.tickets
  for each row execute function private.ticket_history();
-- Named so: after it come the row triggers that read the status event (tickets_reroute, tickets_rule_waits). No
-- column list: assigning a new ticket opens it in ticket_transition, a status the update doesn't name.
create trigger tickets_history_status after update on public.tickets
  for each row when (old.status is distinct from new.status) execute function private.ticket_history();

-- The rest of a change, per ticket in this order, after its status event: assignee, priority, snoozed until
-- a time (`to`) or woken (by hand, by the requester's reply, by the job: no actor), Spam and Trash
-- (54_spam_trash_split.sql; the requester's own message that took it to Spam, they being marked as spam, was
-- Tend's doing, not theirs: no actor).
create function private.ticket_changes_history() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  actor uuid := auth.uid();
  tend record := private.tend_acting();
begin
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
  select c.id, c.workspace_id, c.actor_id, c.type, c."from", c."to"
    from (select n.id, n.workspace_id, e.*
            from new_tickets n join old_tickets o on o.id = n.id
           -- Tend's change names no one (private.tend_acting).
           cross join lateral (select case when n.id = tend.ticket_id then null else actor end as who) a
           cross join lateral (values
             (1, a.who, 'assignee', o.assignee_id::text, n.assignee_id::text, n.assignee_id is distinct from o.assignee_id),
             (2, a.who, 'priority', o.priority::text, n.priority::text, n.priority is distinct from o.priority),
             (3, a.who, case when n.snoozed_until is null then 'unsnoozed' else 'snoozed' end, o.snoozed_until::text,
              n.snoozed_until::text, n.snoozed_until is distinct from o.snoozed_until),
             (4, nullif(a.who, n.requester_id), case when n.spam_at is null then 'not_spam' else 'spam' end, null, null,
              (n.spam_at is null) <> (o.spam_at is null)),
             (5, a.who, case when n.trashed_at is null then 'restored' else 'trashed' end, null, null,
              (n.trashed_at is null) <> (o.trashed_at is null))) e(k, actor_id, type, "from", "to", changed)
           where e.changed) c
   order by c.id, c.k;
  return null;
end $$;
create trigger tickets_history_changes after update on public.tickets
  referencing old table as old_tickets new table as new_tickets for each statement execute function private.ticket_changes_history();

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

revoke all on function private.tend_acting(), private.tend_act(uuid, text), private.tend_done(text), private.assign_ticket_number(),
  private.next_ticket_number(uuid), private.number_ticket(uuid), private.ticket_counted(integer, timestamptz, timestamptz), private.check_assignee(), private.ticket_transition(), private.ticket_history(), private.ticket_changes_history(),
  private.unassign_departed() from public;
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
-- Any signed-in user may open a request in any workspace (the portal is public), with files uploaded
-- first to <workspace>/<p_ticket_id>/… (40_attachments.sql): the ticket takes the id they were put under.
create function public.create_ticket(
  p_workspace_slug text, p_subject text, p_body text, p_attachments jsonb default null, p_ticket_id uuid default null,
  p_client_key uuid default null
)
returns table (id uuid, number integer)
language plpgsql security definer set search_path = '' as $$
declare
  ws uuid;
  t public.tickets;
  message_id uuid;
begin
  if auth.uid() is null then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'sign in first';
  end if;
  select w.id into ws from public.workspaces w where w.slug = p_workspace_slug;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  -- A form sent twice (double click, resubmitted POST) opens one request: the second gets the first.
  -- The lock queues concurrent sends of one form, so the look-up is exact.
  if p_client_key is not null then
    perform pg_advisory_xact_lock(hashtextextended(auth.uid()::text || p_client_key::text, 0));
    select * into t from public.tickets tk where tk.requester_id = auth.uid() and tk.client_key = p_client_key;
    if t.id is not null then
      return query select t.id, t.number;
      return;
    end if;
  end if;
  insert into public.tickets (id, workspace_id, number, requester_id, subject, client_key)
  values (coalesce(p_ticket_id, gen_random_uuid()), ws, -nextval('private.provisional_ticket_numbers'), auth.uid(),
          trim(p_subject), p_client_key) returning * into t;
  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), 'reply', p_body)
  returning public.messages.id into message_id;
  perform private.attach_files(message_id, p_attachments);
  -- What the commit would run for the new ticket runs now (its rules, SLA clocks, number, assignment and
  -- notices: private.rules_on_ticket_created), so the number is there to return. The last call of the
  -- request's transaction, so the same as at the commit.
  set constraints public.tickets_rules immediate;
  set constraints public.tickets_rules deferred;
  return query select t.id, tk.number from public.tickets tk where tk.id = t.id;
end $$;
revoke execute on function public.create_ticket(text, text, text, jsonb, uuid, uuid) from public, anon;
grant execute on function public.create_ticket(text, text, text, jsonb, uuid, uuid) to authenticated, service_role;

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
  -- Oldest unassigned open request; rows another agent is claiming right now are skipped.
  select * into t from public.tickets
   where workspace_id = p_workspace_id and assignee_id is null and private.is_open(status) and snoozed_until is null
     and spam_at is null and trashed_at is null
   order by created_at, number
   limit 1
   for no key update skip locked;
  if t.id is null then
    return;
  end if;
  -- Assigning a new ticket opens it (the transition trigger).
  return query update public.tickets set assignee_id = (select auth.uid()) where id = t.id returning *;
end $$;
revoke execute on function public.claim_next_ticket(uuid) from public, anon;
grant execute on function public.claim_next_ticket(uuid) to authenticated, service_role;

-- Removing a member (or leaving), with their tickets that aren't closed handed to another member in
-- the same transaction (null: left unassigned, as memberships_unassign does). As the caller: RLS says
-- who may remove whom (admins, or oneself) and the assignee rule that the new one is a member. The
-- number of tickets handed over; not_found when the membership isn't there or isn't the caller's to end.
create function public.remove_member(p_workspace_id uuid, p_user_id uuid, p_reassign_to uuid default null)
returns integer
language plpgsql security invoker set search_path = '' as $$
declare
  n integer := 0;
begin
  if p_reassign_to = p_user_id then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'reassign to someone else';
  end if;
  if p_reassign_to is not null then
    update public.tickets set assignee_id = p_reassign_to
     where workspace_id = p_workspace_id and assignee_id = p_user_id and status <> 'closed';
    get diagnostics n = row_count;
  end if;
  delete from public.memberships where workspace_id = p_workspace_id and user_id = p_user_id;
  if not found then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'membership';
  end if;
  return n;
end $$;
revoke execute on function public.remove_member(uuid, uuid, uuid) from public, anon;
grant execute on function public.remove_member(uuid, uuid, uuid) to authenticated, service_role;

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
                 -- no key update: rows that others only reference right now (a delivery or an event
                 -- being inserted holds a key-share lock) are not "held", and close on this run.
                 for no key update skip locked);
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
-- The tickets the caller follows (ticket_followers, 52_triage.sql; docs/decisions/064-followers.md).
-- plpgsql, so this file may name a table made later; security definer: followers can't read that table.
create function private.followed_tickets() returns setof uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  return query select f.ticket_id from public.ticket_followers f where f.user_id = (select auth.uid());
end $$;
revoke all on function private.followed_tickets() from public;
grant execute on function private.followed_tickets() to authenticated, service_role;

-- Followers read the tickets they follow as requesters do; only requesters and members change them. A
-- ticket in Trash is gone for its requester and followers (54_spam_trash_split.sql); Spam looks the same
-- to them as ever.
create policy "requesters, followers and members read tickets" on public.tickets for select to authenticated
  using (((requester_id = (select auth.uid()) or id in (select private.followed_tickets())) and trashed_at is null)
         or workspace_id in (select private.member_workspaces()));
create policy "requesters and members update tickets" on public.tickets for update to authenticated
  using (requester_id = (select auth.uid()) or workspace_id in (select private.member_workspaces()))
  with check (requester_id = (select auth.uid()) or workspace_id in (select private.member_workspaces()));

-- Workspaces a signed-in user may read: theirs, and those where they have requests or follow one.
create policy "members, requesters and followers read their workspaces" on public.workspaces for select to authenticated
  using (
    id in (select private.member_workspaces())
    or id in (select t.workspace_id from public.tickets t where t.requester_id = (select auth.uid())
                                                               or t.id in (select private.followed_tickets()))
  );

-- The history is for the team.
revoke insert, update, delete on public.ticket_events from anon, authenticated;
create policy "members read ticket history" on public.ticket_events for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
