-- Promises kept (issue 28): business hours and holidays, business-time arithmetic, SLA targets per
-- priority and the due time each ticket carries, the breach sweep and the outcomes the reports count.
-- docs/decisions/040-business-time-and-sla.md says why it is shaped so.

-- ---------------------------------------------------------------------------------------------
-- Business hours: per weekday (ISO, 1 = Monday) any number of periods in the workspace's time zone
-- (workspaces.time_zone). A period may end at 24:00 (midnight). No period at all: open around the
-- clock, so business time is calendar time less the holidays.
create table public.business_hours (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  weekday smallint not null check (weekday between 1 and 7),
  opens time not null,
  closes time not null,
  check (opens < closes),
  primary key (workspace_id, weekday, opens),
  -- Periods of one day never overlap (they may touch: 08:00–12:00 and 12:00–13:00).
  constraint business_hours_no_overlap exclude using gist (
    workspace_id with =, weekday with =,
    int4range(extract(epoch from opens)::integer, extract(epoch from closes)::integer) with &&)
);

create table public.holidays (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  day date not null,
  name text not null check (char_length(name) between 1 and 80),
  created_at timestamptz not null default now(),
  primary key (workspace_id, day)
);

-- The open periods of a workspace that overlap [p_from, p_to), clipped to it, in order. Each local day
-- of the range (one before, for a time zone ahead of the range's dates) gets its weekday's periods
-- unless it is a holiday; local wall times become instants in the time zone of that very day, so a
-- period on a DST change day is as long as the clock says (08:00–12:00 on a spring-forward night is
-- still 4 hours, 00:00–04:00 is 3).
-- plpgsql (not sql) throughout this file: a security definer SQL function is planned again at each
-- call, a plpgsql one keeps its plans for the session (create_ticket calls these several times).
create function private.business_periods(p_workspace_id uuid, p_from timestamptz, p_to timestamptz)
returns table (opens_at timestamptz, closes_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
begin
  return query
  with ws as (select w.time_zone as tz from public.workspaces w where w.id = p_workspace_id),
  periods as (
    select h.weekday, h.opens, h.closes from public.business_hours h where h.workspace_id = p_workspace_id
    union all
    select g::smallint, time '00:00', time '24:00' from generate_series(1, 7) g
     where not exists (select 1 from public.business_hours h where h.workspace_id = p_workspace_id)
  )
  select greatest(x.o, p_from), least(x.c, p_to)
    from ws
   cross join generate_series((p_from at time zone ws.tz)::date - 1, (p_to at time zone ws.tz)::date, interval '1 day') d(day)
    join periods p on p.weekday = extract(isodow from d.day)
   cross join lateral (select (d.day::date + p.opens) at time zone ws.tz as o, (d.day::date + p.closes) at time zone ws.tz as c) x
   where x.c > p_from and x.o < p_to
     and not exists (select 1 from public.holidays hd where hd.workspace_id = p_workspace_id and hd.day = d.day::date)
   order by 1;
end $$;

-- Business minutes between a and b (0 when b is not after a), to the second (a fraction of a minute).
create function private.business_minutes_between(p_workspace_id uuid, p_from timestamptz, p_to timestamptz)
returns numeric
language plpgsql stable security definer set search_path = '' as $$
begin
  if p_to <= p_from then
    return 0;
  end if;
  return (select coalesce(sum(extract(epoch from p.closes_at - p.opens_at)), 0) / 60
            from private.business_periods(p_workspace_id, p_from, p_to) p);
end $$;

-- The instants N1 ≤ N2 ≤ … business minutes after t, in one walk (t itself for 0 or less; null if the
-- workspace is closed for a whole year, holidays throughout): a due time and its 75 % point read the periods
-- once. Walks the periods three days first (a weekend and a day: where most first responses fall due, and
-- a third of the periods a week's look-up reads, on every new ticket of a workspace with targets), then a
-- week and a day at a time (docs/decisions/102-tend-says-so.md). Lengths are added as seconds, never as
-- days: a day-long interval would follow the session's time zone over a DST change.
create function private.business_minutes_add_each(p_workspace_id uuid, p_at timestamptz, p_minutes numeric[])
returns timestamptz[]
language plpgsql stable security definer set search_path = '' as $$
declare
  instants timestamptz[] := '{}';
  k integer := 1;
  n integer := coalesce(array_length(p_minutes, 1), 0);
  passed numeric := 0;
  horizon timestamptz := p_at + make_interval(secs => 46 * 8 * 86400);
  days integer := 3;
  window_start timestamptz := p_at;
  window_end timestamptz;
  p record;
  len numeric;
begin
  while k <= n and p_minutes[k] <= 0 loop
    instants := instants || p_at;
    k := k + 1;
  end loop;
  while k <= n and window_start < horizon loop
    window_end := least(window_start + make_interval(secs => days * 86400), horizon);
    for p in select * from private.business_periods(p_workspace_id, window_start, window_end) loop
      len := extract(epoch from p.closes_at - p.opens_at);
      while k <= n and p_minutes[k] * 60 - passed <= len loop
        instants := instants || (p.opens_at + make_interval(secs => (p_minutes[k] * 60 - passed)::double precision));
        k := k + 1;
      end loop;
      exit when k > n;
      passed := passed + len;
    end loop;
    window_start := window_end;
    days := 8;
  end loop;
  return instants || array_fill(null::timestamptz, array[n - k + 1]);
end $$;

-- The instant N business minutes after t (the walk above, for one).
create function private.business_minutes_add(p_workspace_id uuid, p_at timestamptz, p_minutes numeric)
returns timestamptz
language plpgsql stable security definer set search_path = '' as $$
begin
  return (private.business_minutes_add_each(p_workspace_id, p_at, array[p_minutes]))[1];
end $$;

revoke all on function private.business_periods(uuid, timestamptz, timestamptz),
  private.business_minutes_between(uuid, timestamptz, timestamptz),
  private.business_minutes_add_each(uuid, timestamptz, numeric[]),
  private.business_minutes_add(uuid, timestamptz, numeric) from public;

-- The week's hours in one call, replacing what was there (one transaction: never half a week).
-- p_periods: [{"weekday": 1, "opens": "08:00", "closes": "12:00"}, …]. Admins only; overlapping or
-- empty periods are hours_invalid (the form checks first; a hand-made request gets the same refusal).
create function public.save_business_hours(p_workspace_id uuid, p_periods jsonb) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if jsonb_typeof(p_periods) is distinct from 'array' or jsonb_array_length(p_periods) > 70 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'periods';
  end if;
  delete from public.business_hours where workspace_id = p_workspace_id;
  begin
    insert into public.business_hours (workspace_id, weekday, opens, closes)
    select p_workspace_id, (e ->> 'weekday')::smallint, (e ->> 'opens')::time, (e ->> 'closes')::time
      from jsonb_array_elements(p_periods) e;
  exception when exclusion_violation or check_violation or unique_violation or not_null_violation
            or invalid_datetime_format or datetime_field_overflow or invalid_text_representation then
    raise exception using errcode = 'P0001', message = 'hours_invalid', detail = sqlerrm;
  end;
  -- Due times in business hours move with the hours.
  perform private.sla_refresh_workspace(p_workspace_id);
end $$;
revoke all on function public.save_business_hours(uuid, jsonb) from public, anon;
grant execute on function public.save_business_hours(uuid, jsonb) to authenticated, service_role;

-- When the team is next open at or after p_at (p_at itself while open; null: never within a year).
create function private.next_opening(p_workspace_id uuid, p_at timestamptz) returns timestamptz
language plpgsql stable security definer set search_path = '' as $$
begin
  return private.business_minutes_add(p_workspace_id, p_at, 1 / 60.0) - interval '1 second';
end $$;
revoke all on function private.next_opening(uuid, timestamptz) from public;

-- The same, for members and the platform (the acknowledgement outside business hours, 93_after_hours.sql).
create function public.next_opening(p_workspace_id uuid, p_at timestamptz default now()) returns timestamptz
language sql stable security definer set search_path = '' as $$
  select case when private.is_member(p_workspace_id) or private.is_system() then private.next_opening(p_workspace_id, p_at) end
$$;
revoke all on function public.next_opening(uuid, timestamptz) from public, anon;
grant execute on function public.next_opening(uuid, timestamptz) to authenticated, service_role;

alter table public.business_hours enable row level security;
alter table public.holidays enable row level security;
-- Hours are written through save_business_hours only; holidays directly, by admins.
revoke all on public.business_hours, public.holidays from anon;
revoke insert, update, delete on public.business_hours from authenticated;
revoke insert, update on public.holidays from authenticated;
grant insert (workspace_id, day, name) on public.holidays to authenticated;
create policy "members read their workspace's hours" on public.business_hours for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members read their workspace's holidays" on public.holidays for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins add holidays" on public.holidays for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins remove holidays" on public.holidays for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

-- ---------------------------------------------------------------------------------------------
-- SLA targets: per priority, minutes to the first response, to each next response (after the
-- requester writes again) and to the resolution, counted in business hours or calendar time. No row
-- for a priority (or no minutes for a target): no promise.
create type public.sla_target as enum ('first_response', 'next_response', 'resolution');

create table public.sla_targets (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  priority public.ticket_priority not null,
  first_response_minutes integer check (first_response_minutes between 1 and 525600),
  next_response_minutes integer check (next_response_minutes between 1 and 525600),
  resolution_minutes integer check (resolution_minutes between 1 and 525600),
  business_hours boolean not null default true,
  primary key (workspace_id, priority)
);

-- A ticket's running promise: the next due time (the earliest of its targets still running), when
-- 75 % of it is used (amber), when the sweep saw it breached; and the clock's own state: since when
-- the requester waits for a next response, and the time paused (pending, solved) in both kinds of
-- time. Members only (requesters don't see the team's targets); a row exists only for tickets of a
-- workspace with targets. Computed when the ticket changes (private.sla_refresh), not on reading.
create table public.ticket_sla (
  ticket_id uuid primary key references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  target public.sla_target,
  started_at timestamptz,
  due_at timestamptz,
  warn_at timestamptz,
  breached_at timestamptz,
  waiting_since timestamptz,
  paused_at timestamptz,
  paused_seconds numeric not null default 0,
  paused_business_seconds numeric not null default 0
);
-- The "Breaching soon" view (a workspace's dues in order) and the breach sweep (dues not yet seen). The view
-- (public.inbox) lists soonest due first, ties by ticket: with the ticket in the index its page is the range's
-- first rows and it stops after a page, whatever the count; without it the planner sorted every running
-- promise of the workspace (docs/decisions/074-create-path.md, docs/decisions/078-inbox-dressing-cost.md).
create index ticket_sla_due_idx on public.ticket_sla (workspace_id, due_at, ticket_id) where due_at is not null;
create index ticket_sla_sweep_idx on public.ticket_sla (due_at) where due_at is not null and breached_at is null;

-- Each target of each ticket, met or missed, once (per clock start: a next response has one per wait),
-- with the priority and assignee of that moment: the reports' "targets met".
create table public.sla_outcomes (
  id bigint generated always as identity primary key,
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  target public.sla_target not null,
  started_at timestamptz not null,
  due_at timestamptz not null,
  decided_at timestamptz not null default now(),
  met boolean not null,
  priority public.ticket_priority not null,
  assignee_id uuid references auth.users (id) on delete set null,
  unique (ticket_id, target, started_at)
);
create index sla_outcomes_workspace_idx on public.sla_outcomes (workspace_id, decided_at);

-- N1 ≤ N2 ≤ … minutes after p_from, in business or calendar time.
create function private.sla_add(p_workspace_id uuid, p_business boolean, p_from timestamptz, p_minutes numeric[])
returns timestamptz[]
language plpgsql stable security definer set search_path = '' as $$
begin
  if p_business then
    return private.business_minutes_add_each(p_workspace_id, p_from, p_minutes);
  end if;
  return array(select p_from + make_interval(secs => (m.n * 60)::double precision)
                 from unnest(p_minutes) with ordinality m(n, i) order by m.i);
end $$;

-- When a target of this ticket falls due, its clock's pauses included (null: no such target), at each
-- share of it (ascending: [0.75, 1] is the amber point and the due time, in one walk). A first
-- response and the resolution run from the ticket's creation, less the time paused; a next response
-- from the requester's unanswered message (a wait ends with the team's reply, and the requester's
-- message ends a pending, so it is not paused).
create function private.sla_due_of(
  t public.tickets, g public.sla_targets, s public.ticket_sla, p_target public.sla_target, p_shares numeric[] default '{1}'
) returns timestamptz[]
language plpgsql stable security definer set search_path = '' as $$
declare
  paused numeric := case when g.business_hours then s.paused_business_seconds else s.paused_seconds end / 60;
begin
  return case p_target
    when 'first_response' then private.sla_add(t.workspace_id, g.business_hours, t.created_at,
      array(select g.first_response_minutes * x.share + paused from unnest(p_shares) with ordinality x(share, i) order by x.i))
    when 'resolution' then private.sla_add(t.workspace_id, g.business_hours, t.created_at,
      array(select g.resolution_minutes * x.share + paused from unnest(p_shares) with ordinality x(share, i) order by x.i))
    when 'next_response' then private.sla_add(t.workspace_id, g.business_hours, s.waiting_since,
      array(select g.next_response_minutes * x.share from unnest(p_shares) with ordinality x(share, i) order by x.i))
  end;
end $$;

-- Brings a ticket's promise up to date after a change: the pause (pending and solved stop the clock),
-- the outcome of the target this change met (p_met, at p_met_at), then the next due time.
create function private.sla_refresh(p_ticket_id uuid, p_met public.sla_target default null, p_met_at timestamptz default now())
returns void
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  g public.sla_targets;
  s public.ticket_sla;
  paused boolean;
  due timestamptz;
  candidate public.sla_target;
  next_target public.sla_target;
  next_due timestamptz;
  next_warn timestamptz;
  dues timestamptz[];
  fresh boolean := false;
begin
  select * into t from public.tickets where id = p_ticket_id;
  select * into g from public.sla_targets where workspace_id = t.workspace_id and priority = t.priority;
  select * into s from public.ticket_sla where ticket_id = p_ticket_id for update;
  if s.ticket_id is null then
    -- No targets, no row: a workspace without SLA pays one look-up per change.
    if g.workspace_id is null then
      return;
    end if;
    -- A new row, written once below with its due time.
    fresh := true;
    s.ticket_id := t.id;
    s.workspace_id := t.workspace_id;
    s.paused_seconds := 0;
    s.paused_business_seconds := 0;
  end if;

  if p_met is not null and g.workspace_id is not null then
    due := (private.sla_due_of(t, g, s, p_met))[1];
    if due is not null then
      insert into public.sla_outcomes (ticket_id, workspace_id, target, started_at, due_at, decided_at, met, priority, assignee_id)
      values (t.id, t.workspace_id, p_met, case when p_met = 'next_response' then s.waiting_since else t.created_at end,
              due, p_met_at, p_met_at <= due, t.priority, t.assignee_id)
      on conflict (ticket_id, target, started_at) do nothing;
    end if;
  end if;

  -- Spam and Trash stop the clock too (54_spam_trash_split.sql): no promise runs there.
  paused := t.status in ('pending', 'solved', 'closed') or t.spam_at is not null or t.trashed_at is not null;
  if paused and s.paused_at is null then
    s.paused_at := now();
  elsif not paused and s.paused_at is not null then
    s.paused_seconds := s.paused_seconds + extract(epoch from now() - s.paused_at);
    s.paused_business_seconds := s.paused_business_seconds + private.business_minutes_between(t.workspace_id, s.paused_at, now()) * 60;
    s.paused_at := null;
  end if;

  if not paused and g.workspace_id is not null then
    foreach candidate in array array['first_response', 'next_response', 'resolution']::public.sla_target[] loop
      continue when candidate = 'first_response' and (t.first_response_at is not null or g.first_response_minutes is null);
      continue when candidate = 'next_response' and (s.waiting_since is null or g.next_response_minutes is null);
      continue when candidate = 'resolution' and g.resolution_minutes is null;
      -- From the same start, with the same pause, a longer target falls due no sooner: a first response due
      -- first needn't be weighed against the resolution (a business-time walk fewer).
      continue when candidate = 'resolution' and next_target = 'first_response' and g.first_response_minutes <= g.resolution_minutes;
      dues := private.sla_due_of(t, g, s, candidate, '{0.75, 1}');
      if dues[2] is not null and (next_due is null or dues[2] < next_due) then
        next_due := dues[2];
        next_warn := dues[1];
        next_target := candidate;
      end if;
    end loop;
  end if;

  -- A breach seen stays seen while the same promise runs late.
  s.breached_at := case when next_target = s.target and next_due = s.due_at then s.breached_at end;
  s.started_at := case when next_target = 'next_response' then s.waiting_since when next_target is not null then t.created_at end;
  s.warn_at := next_warn;
  s.target := next_target;
  s.due_at := next_due;
  if fresh then
    insert into public.ticket_sla values (s.*);
  else
    update public.ticket_sla
       set (target, started_at, due_at, warn_at, breached_at, waiting_since, paused_at, paused_seconds, paused_business_seconds)
         = (s.target, s.started_at, s.due_at, s.warn_at, s.breached_at, s.waiting_since, s.paused_at, s.paused_seconds,
            s.paused_business_seconds)
     where ticket_id = t.id;
  end if;
end $$;

-- A new ticket's clocks start once the transaction that created it has done its work (the deferred
-- tickets_rules, after the rules, 95_rules.sql): a rule that sets the priority of a new ticket then costs
-- one due time, not one for "normal" and another for its priority (docs/decisions/074-create-path.md).
-- A change before then that moves the clock (a first response, a status, the priority) started it
-- already, from the same ticket: nothing more to do. sla_refresh reads only the ticket, the targets and
-- this row, so the row is what it would have been had it started at the insert.
create function private.sla_start(p_ticket_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not exists (select 1 from public.ticket_sla s where s.ticket_id = p_ticket_id) then
    perform private.sla_refresh(p_ticket_id);
  end if;
end $$;

-- A status, priority, first response, Spam or Trash moves them: once per statement, from its transition tables,
-- so a bulk change of 1 000 tickets looks its batch up once, and only the tickets of a workspace with targets or
-- with a clock already (the others' sla_refresh returns at once) pay a refresh
-- (docs/decisions/073-bulk-change-per-statement.md). A change that names a column without changing it (a message's
-- bookkeeping sets first_response_at to itself) leaves the promise as it was (docs/decisions/069-rules-cost.md),
-- and so does the opening of a new ticket by its assignment, as when only named columns fired this.
create function private.sla_tickets_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  -- One statement, not a loop over a cursor: planned for all its rows (a hash join), not for the first.
  perform private.sla_refresh(c.id, c.met, c.met_at)
     from (select n.id,
                  case when o.first_response_at is null and n.first_response_at is not null then 'first_response'
                       when n.status = 'solved' and o.status not in ('solved', 'closed') then 'resolution'
                  end::public.sla_target as met,
                  case when o.first_response_at is null then coalesce(n.first_response_at, now()) else now() end as met_at
             from new_tickets n join old_tickets o on o.id = n.id
            -- New and open run the same clocks: the opening of a new ticket by its assignment moves none.
            where ((n.status <> o.status and not (private.is_open(n.status) and private.is_open(o.status)))
                   or (n.priority, n.first_response_at, n.spam_at, n.trashed_at)
                      is distinct from (o.priority, o.first_response_at, o.spam_at, o.trashed_at))
              and (exists (select 1 from public.sla_targets g where g.workspace_id = n.workspace_id)
                   or exists (select 1 from public.ticket_sla s where s.ticket_id = n.id))
            order by n.id) c;
  return null;
end $$;
-- (No column list with transition tables: an update of other columns finds nothing to do.)
create trigger tickets_sla_changed after update on public.tickets
  referencing old table as old_tickets new table as new_tickets for each statement execute function private.sla_tickets_changed();

-- A public reply: the requester's, after the first response, starts a wait for the next response;
-- the team's ends it (and meets or misses that target). Notes never answer anyone.
create function private.sla_message_posted() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  s public.ticket_sla;
  t public.tickets;
  team boolean;
begin
  select * into s from public.ticket_sla where ticket_id = new.ticket_id for update;
  if new.kind <> 'reply' or s.ticket_id is null then
    return null;
  end if;
  select * into t from public.tickets where id = new.ticket_id;
  team := new.author_id <> t.requester_id
    and exists (select 1 from public.memberships where workspace_id = t.workspace_id and user_id = new.author_id);
  if team and s.waiting_since is not null then
    perform private.sla_refresh(t.id, 'next_response', new.created_at);
    update public.ticket_sla set waiting_since = null where ticket_id = t.id;
    perform private.sla_refresh(t.id);
  elsif not team and s.waiting_since is null and t.first_response_at is not null then
    update public.ticket_sla set waiting_since = new.created_at where ticket_id = t.id;
    perform private.sla_refresh(t.id);
  end if;
  return null;
end $$;
-- After messages_bookkeeping (the first response is on the ticket), before messages_status.
create trigger messages_sla after insert on public.messages for each row execute function private.sla_message_posted();

-- Every ticket of a workspace still running, after its hours, holidays or targets changed.
create function private.sla_refresh_workspace(p_workspace_id uuid) returns void
language sql security definer set search_path = '' as $$
  select private.sla_refresh(t.id) from public.tickets t
   where t.workspace_id = p_workspace_id and private.is_backlog(t.status)
$$;

create function private.sla_holidays_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.sla_refresh_workspace(coalesce(new.workspace_id, old.workspace_id));
  return null;
end $$;
create trigger holidays_sla after insert or delete on public.holidays
  for each row execute function private.sla_holidays_changed();

-- The targets in one call, replacing what was there: [{"priority": "urgent", "first_response_minutes":
-- 60, "next_response_minutes": null, "resolution_minutes": 480, "business_hours": true}, …]. Admins only.
create function public.save_sla_targets(p_workspace_id uuid, p_targets jsonb) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if jsonb_typeof(p_targets) is distinct from 'array' or jsonb_array_length(p_targets) > 4 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'targets';
  end if;
  delete from public.sla_targets where workspace_id = p_workspace_id;
  begin
    insert into public.sla_targets (workspace_id, priority, first_response_minutes, next_response_minutes, resolution_minutes, business_hours)
    select p_workspace_id, (e ->> 'priority')::public.ticket_priority, (e ->> 'first_response_minutes')::integer,
           (e ->> 'next_response_minutes')::integer, (e ->> 'resolution_minutes')::integer, coalesce((e ->> 'business_hours')::boolean, true)
      from jsonb_array_elements(p_targets) e;
  exception when check_violation or unique_violation or not_null_violation or invalid_text_representation
            or numeric_value_out_of_range then
    raise exception using errcode = 'P0001', message = 'sla_invalid', detail = sqlerrm;
  end;
  perform private.sla_refresh_workspace(p_workspace_id);
end $$;
revoke all on function public.save_sla_targets(uuid, jsonb) from public, anon;
grant execute on function public.save_sla_targets(uuid, jsonb) to authenticated, service_role;

-- The breach sweep (pg_cron, every minute): each due time passed and not yet seen becomes a missed
-- outcome and an event in the ticket's history (no actor: the platform), and the ticket's assignee hears
-- of it (private.notify_member, the "SLA warnings" of their notification settings: in the app, by email).
-- Rows someone holds are left for the next run. At most 1 000 a run (about a quarter of a second of
-- database CPU; 5 000 took 2.2–2.4 s, over issue 28's 2 s: docs/decisions/069-rules-cost.md): a backlog
-- of breaches (a holiday removed, the stack back from a stop) drains at 1 000 a minute.
create function public.record_sla_breaches() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  breached uuid[];
  r record;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  with due as (
    select s.ticket_id from public.ticket_sla s
     where s.due_at is not null and s.breached_at is null and s.due_at <= now()
     order by s.due_at
     limit 1000
     for no key update skip locked
  ), seen as (
    update public.ticket_sla s set breached_at = now() from due where s.ticket_id = due.ticket_id
    returning s.*
  ), missed as (
    insert into public.sla_outcomes (ticket_id, workspace_id, target, started_at, due_at, decided_at, met, priority, assignee_id)
    select seen.ticket_id, seen.workspace_id, seen.target, seen.started_at, seen.due_at, now(), false, t.priority, t.assignee_id
      from seen join public.tickets t on t.id = seen.ticket_id
    on conflict (ticket_id, target, started_at) do nothing
  ), logged as (
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
    select seen.ticket_id, seen.workspace_id, null, 'sla_breach', seen.due_at::text, seen.target::text from seen
    returning ticket_id
  )
  select array_agg(logged.ticket_id) into breached from logged;
  for r in select t.id, t.workspace_id, t.assignee_id from public.tickets t
            where t.id = any(breached) and t.assignee_id is not null loop
    perform private.notify_member(r.workspace_id, r.assignee_id, 'sla_warning', r.id, null, null);
  end loop;
  return coalesce(cardinality(breached), 0);
end $$;
revoke all on function public.record_sla_breaches() from public, anon, authenticated;
grant execute on function public.record_sla_breaches() to service_role;
-- `db diff` doesn't see this statement (data, not schema): its migration carries it by hand.
select cron.schedule('sla-breaches', '* * * * *', 'select public.record_sla_breaches()');

revoke all on function private.sla_add(uuid, boolean, timestamptz, numeric[]),
  private.sla_due_of(public.tickets, public.sla_targets, public.ticket_sla, public.sla_target, numeric[]),
  private.sla_refresh(uuid, public.sla_target, timestamptz), private.sla_start(uuid), private.sla_tickets_changed(),
  private.sla_message_posted(),
  private.sla_refresh_workspace(uuid), private.sla_holidays_changed() from public;

-- The SLA section of the reports (admins; the range as workspace_report takes it): the share of
-- targets met among those decided in the range (met, or missed by the sweep or a late answer), per
-- week (Monday first, in the workspace's time zone), per agent (the assignee then) and per priority.
create function public.sla_report(p_slug text, p_from date default null, p_to date default null, p_days integer default null)
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
declare
  ws uuid;
  my_role public.member_role;
  tz text;
  lo timestamptz;
  hi timestamptz;
begin
  select w.id, m.role, w.time_zone into ws, my_role, tz
    from public.memberships m join public.workspaces w on w.id = m.workspace_id
   where w.slug = p_slug and m.user_id = (select auth.uid());
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  if my_role <> 'admin' then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if p_days is not null and p_from is null and p_to is null and p_days between 1 and 366 then
    p_to := (now() at time zone tz)::date;
    p_from := p_to - (p_days - 1);
  elsif p_days is not null or p_from is null or p_to is null or p_to < p_from or p_to - p_from > 365 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'range';
  end if;
  lo := p_from::timestamp at time zone tz;
  hi := (p_to + 1)::timestamp at time zone tz;
  return (
    with o as (
      select x.*, (x.decided_at at time zone tz)::date as day from public.sla_outcomes x
       where x.workspace_id = ws and x.decided_at >= lo and x.decided_at < hi
         -- Spam and Trash are out of the reports (54_spam_trash_split.sql).
         and exists (select 1 from public.tickets t where t.id = x.ticket_id and t.spam_at is null and t.trashed_at is null)
    )
    select jsonb_build_object(
      'weeks', (select coalesce(jsonb_agg(jsonb_build_object('week', w.week, 'met', w.met, 'total', w.total) order by w.week), '[]')
                  from (select o.day - (extract(isodow from o.day)::int - 1) as week, count(*) filter (where o.met) as met, count(*) as total
                          from o group by 1) w),
      'agents', (select coalesce(jsonb_agg(jsonb_build_object('assignee_id', a.assignee_id, 'name', p.display_name, 'met', a.met, 'total', a.total)
                                           order by p.display_name nulls first, a.assignee_id), '[]')
                   from (select o.assignee_id, count(*) filter (where o.met) as met, count(*) as total from o group by 1) a
                   left join public.profiles p on p.user_id = a.assignee_id),
      'priorities', (select coalesce(jsonb_agg(jsonb_build_object('priority', r.priority, 'met', r.met, 'total', r.total) order by r.priority), '[]')
                       from (select o.priority, count(*) filter (where o.met) as met, count(*) as total from o group by 1) r)
    )
  );
end $$;
revoke all on function public.sla_report(text, date, date, integer) from public, anon;
grant execute on function public.sla_report(text, date, date, integer) to authenticated, service_role;

alter table public.sla_targets enable row level security;
alter table public.ticket_sla enable row level security;
alter table public.sla_outcomes enable row level security;
-- Written by the database (and save_sla_targets); members read.
revoke all on public.sla_targets, public.ticket_sla, public.sla_outcomes from anon;
revoke insert, update, delete on public.sla_targets, public.ticket_sla, public.sla_outcomes from authenticated;
create policy "members read their workspace's targets" on public.sla_targets for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members read their tickets' promises" on public.ticket_sla for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members read their workspace's outcomes" on public.sla_outcomes for select to authenticated
  using (workspace_id in (select private.member_workspaces()));

-- A breach seen by the sweep reaches the inboxes live (members only, by the policy above).
alter publication supabase_realtime add table public.ticket_sla;

-- ---------------------------------------------------------------------------------------------
-- Automatic assignment: per workspace off (the default), round robin or least open tickets, among
-- the members who are available (no row: available), each up to a cap of backlog tickets (new, open,
-- pending) if one is set. New tickets, and reopened ones whose assignee is away or gone, are assigned
-- at once; one that finds nobody stays unassigned until someone becomes available.
create type public.assignment_mode as enum ('off', 'round_robin', 'least_open');

create table public.assignment_settings (
  workspace_id uuid primary key references public.workspaces (id) on delete cascade,
  mode public.assignment_mode not null default 'off',
  max_open integer check (max_open between 1 and 10000),
  -- Round robin's place: the member given the last ticket.
  last_assignee_id uuid references auth.users (id) on delete set null
);

create table public.member_availability (
  workspace_id uuid not null,
  user_id uuid not null,
  available boolean not null,
  changed_at timestamptz not null default now(),
  primary key (workspace_id, user_id),
  foreign key (workspace_id, user_id) references public.memberships (workspace_id, user_id) on delete cascade
);

-- The unassignment just recorded in the ticket's history (a reopened ticket whose assignee is away) was
-- Tend's, not the person whose request it ran in: it names no one, nor does the notice an assignment sent
-- earlier in this transaction (docs/decisions/085-rules-before-assignment.md). Tend's assignment itself
-- says so as it writes (private.tend_acting). plpgsql, so its plan is kept
-- (docs/decisions/040-business-time-and-sla.md).
create function private.by_tend(p_ticket_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
begin
  update public.ticket_events set actor_id = null
   where id = (select max(e.id) from public.ticket_events e where e.ticket_id = p_ticket_id and e.type = 'assignee');
  update public.notifications set actor_id = null
   where ticket_id = p_ticket_id and kind = 'assigned' and created_at = now() and actor_id is not null;
end $$;

-- Gives the ticket to the next member by the workspace's mode; the member, or null (off, nobody
-- available under the cap, or the ticket is assigned or not open). The settings row is locked for the
-- transaction, so concurrent assignments in a workspace queue and each sees the last one's count
-- (read committed: a fresh snapshot per statement); the counts come from the tallies (50_inbox.sql).
-- The assignment is Tend's: its line and notice name no one (private.tend_acting); by a rule's action,
-- the rules' already. A new ticket with a provisional number (create_ticket's) is numbered here: the counter
-- before the settings' row, as every creation takes them (docs/decisions/104-number-late.md), and the number
-- written with the assignee, one update of the ticket (docs/decisions/108-rules-cpu.md).
create function private.auto_assign(p_ticket_id uuid) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  cfg public.assignment_settings;
  chosen uuid;
  said text;
  n integer;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.number < 0 then
    n := private.next_ticket_number(t.workspace_id);
  end if;
  select * into cfg from public.assignment_settings where workspace_id = t.workspace_id for no key update;
  if cfg.mode is not null and cfg.mode <> 'off' and t.assignee_id is null and private.is_open(t.status)
     and t.spam_at is null and t.trashed_at is null then
    select m.user_id into chosen
      from public.memberships m
      left join public.member_availability a on a.workspace_id = m.workspace_id and a.user_id = m.user_id
      cross join lateral (select coalesce(sum(c.n), 0) as open from private.ticket_tallies c
                           where c.workspace_id = m.workspace_id and c.assignee_id = m.user_id and private.is_backlog(c.status)) load
     where m.workspace_id = t.workspace_id and coalesce(a.available, true)
       and (cfg.max_open is null or load.open < cfg.max_open)
     order by case when cfg.mode = 'least_open' then load.open else 0 end,
              -- after the last one given a ticket, in id order, wrapping around
              m.user_id <= coalesce(cfg.last_assignee_id, '00000000-0000-0000-0000-000000000000'::uuid), m.user_id
     limit 1;
  end if;
  if chosen is not null and (private.tend_acting()).ticket_id is distinct from t.id then
    said := private.tend_act(t.id, 'assignment');
  end if;
  -- One update of the ticket, here: the assignee chosen, with the number taken above if there is one; or the
  -- number alone (without assignee_id in its list, which fires the assignee's triggers).
  if chosen is not null then
    update public.tickets set assignee_id = chosen, number = coalesce(n, number) where id = t.id;
  elsif n is not null then
    update public.tickets set number = n where id = t.id;
  end if;
  if said is not null then
    perform private.tend_done(said);
  end if;
  if chosen is not null then
    update public.assignment_settings set last_assignee_id = chosen where workspace_id = t.workspace_id;
  end if;
  return chosen;
end $$;

-- The unassigned open tickets of a workspace, oldest first, while someone can take them.
create function private.auto_assign_waiting(p_workspace_id uuid) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  waiting uuid;
  n integer := 0;
begin
  for waiting in
    select t.id from public.tickets t
     where t.workspace_id = p_workspace_id and t.assignee_id is null and private.is_open(t.status)
       and t.spam_at is null and t.trashed_at is null
     order by t.created_at, t.number
  loop
    exit when private.auto_assign(waiting) is null;
    n := n + 1;
  end loop;
  return n;
end $$;

-- A new ticket that nobody has once its ticket-created rules ran: called at the end of its creating
-- transaction by private.rules_on_ticket_created (95_rules.sql), after the rules, so a ticket a rule
-- assigns is never first given to someone else (no notice, no email, round robin's turn unmoved;
-- docs/decisions/085-rules-before-assignment.md). Every session, as tickets_route at the insert did.
-- A provisional number is written with the assignee (private.auto_assign).
create function private.assign_new(p_ticket_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if exists (select 1 from public.tickets t join public.assignment_settings c on c.workspace_id = t.workspace_id
              where t.id = p_ticket_id and t.assignee_id is null and c.mode <> 'off') then
    perform private.auto_assign(p_ticket_id);
  end if;
end $$;

-- A ticket reopened while unassigned or held by someone away.
create function private.assign_on_arrival() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if coalesce((select c.mode from public.assignment_settings c where c.workspace_id = new.workspace_id), 'off') = 'off' then
    return null;
  end if;
  if new.assignee_id is not null
     and coalesce((select a.available from public.member_availability a
                    where a.workspace_id = new.workspace_id and a.user_id = new.assignee_id), true) then
    return null;
  end if;
  if new.assignee_id is not null then
    update public.tickets set assignee_id = null where id = new.id;
    perform private.by_tend(new.id);
  end if;
  perform private.auto_assign(new.id);
  return null;
end $$;
create trigger tickets_reroute after update of status on public.tickets
  for each row when (old.status in ('pending', 'solved') and new.status = 'open') execute function private.assign_on_arrival();

-- A member says they are available (or away); becoming available picks up what waits.
create function public.set_availability(p_workspace_id uuid, p_available boolean) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_member(p_workspace_id) or p_available is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  insert into public.member_availability (workspace_id, user_id, available) values (p_workspace_id, auth.uid(), p_available)
  on conflict (workspace_id, user_id) do update set available = excluded.available, changed_at = now();
  if p_available then
    perform private.auto_assign_waiting(p_workspace_id);
  end if;
end $$;

-- The workspace's mode and cap (admins); turning it on assigns what waits.
create function public.save_assignment_settings(p_workspace_id uuid, p_mode public.assignment_mode, p_max_open integer default null)
returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  begin
    insert into public.assignment_settings (workspace_id, mode, max_open) values (p_workspace_id, coalesce(p_mode, 'off'), p_max_open)
    on conflict (workspace_id) do update set mode = excluded.mode, max_open = excluded.max_open;
  exception when check_violation then
    raise exception using errcode = 'P0001', message = 'cap_invalid', detail = p_max_open::text;
  end;
  perform private.auto_assign_waiting(p_workspace_id);
end $$;

-- The members as assignment sees them: available or away, and their backlog (from the tallies, as
-- private.auto_assign counts it). Members of the workspace only; anyone else gets nothing.
create function public.assignment_members(p_workspace_id uuid)
returns table (user_id uuid, available boolean, open bigint)
language plpgsql stable security definer set search_path = '' as $$
begin
  if not private.is_member(p_workspace_id) then
    return;
  end if;
  return query
  select m.user_id, coalesce(a.available, true),
         (select coalesce(sum(c.n), 0)::bigint from private.ticket_tallies c
           where c.workspace_id = m.workspace_id and c.assignee_id = m.user_id and private.is_backlog(c.status))
    from public.memberships m
    left join public.member_availability a on a.workspace_id = m.workspace_id and a.user_id = m.user_id
   where m.workspace_id = p_workspace_id;
end $$;
revoke all on function public.assignment_members(uuid) from public, anon;
grant execute on function public.assignment_members(uuid) to authenticated, service_role;

revoke all on function private.by_tend(uuid), private.auto_assign(uuid), private.auto_assign_waiting(uuid),
  private.assign_new(uuid), private.assign_on_arrival() from public;
revoke all on function public.set_availability(uuid, boolean), public.save_assignment_settings(uuid, public.assignment_mode, integer)
  from public, anon;
grant execute on function public.set_availability(uuid, boolean), public.save_assignment_settings(uuid, public.assignment_mode, integer)
  to authenticated, service_role;

alter table public.assignment_settings enable row level security;
alter table public.member_availability enable row level security;
-- Written through the two functions above; members read (who is away, how tickets are handed out).
revoke all on public.assignment_settings, public.member_availability from anon;
revoke insert, update, delete on public.assignment_settings, public.member_availability from authenticated;
create policy "members read their workspace's assignment" on public.assignment_settings for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members read who is available" on public.member_availability for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
