-- Reports for admins (/w/:slug/reports, docs/product.md#reports): for a range of days in the workspace's
-- time zone, tickets created and solved per day, first response and resolution times (median, p90),
-- the backlog by status and by assignee, and the busiest hours. One call, workspace_report.
--
-- Counting every ticket of a range is too slow at a million tickets, so the counts come from rollups
-- kept by statement triggers: tickets created and solved per 15-minute UTC slot. Every time zone's
-- offset is a multiple of 15 minutes, so a slot lies within one local hour of any zone: days and hours
-- in the workspace's zone are exact sums of slots, and changing the zone needs no rebuild. The backlog
-- is the inbox's tallies (50_inbox.sql). Percentiles can't be summed; they read the range's tickets
-- through covering indexes.

-- The rollups' arithmetic: four small SQL functions that the planner inlines into the statements of the
-- rollup triggers below (a statement trigger adding 50 000 tickets calls them ~250 000 times: as calls
-- through the function manager they took half of its time, docs/decisions/066-page-cost.md). Postgres
-- inlines an SQL function only without a SET clause, so these have no `set search_path = ''`; instead
-- every function they call is named with its schema (pg_catalog), and the operators they use are
-- built-in ones on built-in types. That keeps them safe as the definer functions' own helpers: only
-- those (search_path '', which is where an inlined body is parsed) and the owner can call them, as
-- EXECUTE is revoked from public below.

-- The start of the 15-minute UTC slot of a moment.
create function private.report_slot(p_at timestamptz) returns timestamptz
language sql immutable parallel safe as $$
  select pg_catalog.date_bin('15 minutes'::pg_catalog.interval, p_at, '2000-01-01 00:00:00+00'::pg_catalog.timestamptz)
$$;

-- A duration's histogram bucket: whole seconds under a minute, then buckets 2 % wide. A percentile is
-- the mean of its bucket: exact when the bucket holds one value, within 2 % otherwise.
create function private.report_bucket(p_seconds bigint) returns smallint
language sql immutable parallel safe as $$
  select (case when p_seconds < 60 then greatest(p_seconds, 0)
               else 60 + pg_catalog.floor(pg_catalog.ln(p_seconds / 60.0) / pg_catalog.ln(1.02)) end)::pg_catalog.int2
$$;

-- Whole seconds from one moment to a later one (never negative).
create function private.report_seconds(p_from timestamptz, p_to timestamptz) returns bigint
language sql immutable parallel safe as $$
  select greatest(pg_catalog.floor(extract(epoch from p_to - p_from)), 0)::pg_catalog.int8
$$;

create table private.report_slots (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  slot timestamptz not null,
  -- No checks (>= 0): an upsert's proposed row is checked before the conflict, and a move proposes -1.
  created integer not null default 0,
  solved integer not null default 0,
  primary key (workspace_id, slot)
);

-- First response times (by the day of the first response) and resolution times (by the day solved), per
-- day in the workspace's time zone (span 1) and per week from Monday (span 7, day: the Monday): a long
-- range reads its whole weeks from weekly rows. Rebuilt when the zone changes.
create table private.report_durations (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  kind text not null check (kind in ('first_response', 'resolution')),
  span smallint not null check (span in (1, 7)),
  day date not null,
  bucket smallint not null,
  tickets integer not null,
  seconds bigint not null,
  primary key (workspace_id, kind, span, day, bucket)
);

-- The rows a duration counts in: its day, and its week.
-- Inlined like the functions above (no SET clause, schema-qualified names).
create function private.report_spans(p_day date) returns table (span smallint, day date)
language sql immutable parallel safe as $$
  select 1::pg_catalog.int2, p_day
  union all
  select 7::pg_catalog.int2, p_day - (extract(isodow from p_day)::pg_catalog.int4 - 1)
$$;

-- One statement, one upsert per rollup of the summed differences, in key order (two statements touching
-- the same rows queue instead of deadlocking), as the inbox's tallies do. A ticket counts in the
-- rollups through created_at, first_response_at and solved_at; updates that move none of them add nothing.
create function private.roll_up_report() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into private.report_slots as s (workspace_id, slot, created, solved)
    select d.workspace_id, d.slot, sum(d.created), sum(d.solved)
      from (select n.workspace_id, private.report_slot(n.created_at) as slot, 1 as created, 0 as solved from new_tickets n where private.ticket_counted(n.number, n.spam_at, n.trashed_at)
            union all
            select n.workspace_id, private.report_slot(n.solved_at), 0, 1 from new_tickets n where private.ticket_counted(n.number, n.spam_at, n.trashed_at) and n.solved_at is not null) d
     group by 1, 2 order by 1, 2
    on conflict (workspace_id, slot) do update set created = s.created + excluded.created, solved = s.solved + excluded.solved;
    insert into private.report_durations as r (workspace_id, kind, span, day, bucket, tickets, seconds)
    select d.workspace_id, d.kind, p.span, p.day, private.report_bucket(d.seconds), count(*), sum(d.seconds)
      from (select n.workspace_id, 'first_response' as kind, n.first_response_at as at,
                   private.report_seconds(n.created_at, n.first_response_at) as seconds
              from new_tickets n where private.ticket_counted(n.number, n.spam_at, n.trashed_at) and n.first_response_at is not null
            union all
            select n.workspace_id, 'resolution', n.solved_at, private.report_seconds(n.created_at, n.solved_at)
              from new_tickets n where private.ticket_counted(n.number, n.spam_at, n.trashed_at) and n.solved_at is not null) d
      join public.workspaces w on w.id = d.workspace_id
      cross join lateral private.report_spans((d.at at time zone w.time_zone)::date) p
     group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, kind, span, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
  elsif tg_op = 'UPDATE' then
    -- Most updates (an assignment, a priority, a status short of solved, the latest message's time) move
    -- no rollup: one look at the changed rows, not the two upserts' queries (docs/decisions/069-rules-cost.md).
    -- As sets, not a join: under `exists` the planner joined the two tables by a nested loop, every new row
    -- against every old one (a bulk change of 1 000 tickets: a million pairs;
    -- docs/decisions/073-bulk-change-per-statement.md). `except` compares nulls as equal, as `is distinct from` does.
    if not exists (select n.id, n.created_at, n.solved_at, n.first_response_at, private.ticket_counted(n.number, n.spam_at, n.trashed_at)
                     from new_tickets n
                   except
                   select o.id, o.created_at, o.solved_at, o.first_response_at, private.ticket_counted(o.number, o.spam_at, o.trashed_at)
                     from old_tickets o) then
      return null;
    end if;
    -- A ticket in Spam or Trash counts nowhere (54_spam_trash_split.sql): its times are read as empty, so
    -- going there takes it out of the rollups and coming back puts it in again.
    insert into private.report_slots as s (workspace_id, slot, created, solved)
    with n as (select x.id, x.workspace_id, case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.created_at end as created_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.solved_at end as solved_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.first_response_at end as first_response_at from new_tickets x),
         o as (select x.id, x.workspace_id, case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.created_at end as created_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.solved_at end as solved_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.first_response_at end as first_response_at from old_tickets x)
    select d.workspace_id, d.slot, sum(d.created), sum(d.solved)
      from (select n.workspace_id, private.report_slot(n.created_at) as slot, 1 as created, 0 as solved
              from n join o using (id) where n.created_at is distinct from o.created_at and n.created_at is not null
            union all
            select o.workspace_id, private.report_slot(o.created_at), -1, 0
              from n join o using (id) where n.created_at is distinct from o.created_at and o.created_at is not null
            union all
            select n.workspace_id, private.report_slot(n.solved_at), 0, 1
              from n join o using (id) where n.solved_at is distinct from o.solved_at and n.solved_at is not null
            union all
            select o.workspace_id, private.report_slot(o.solved_at), 0, -1
              from n join o using (id) where n.solved_at is distinct from o.solved_at and o.solved_at is not null) d
     group by 1, 2 having sum(d.created) <> 0 or sum(d.solved) <> 0 order by 1, 2
    on conflict (workspace_id, slot) do update set created = s.created + excluded.created, solved = s.solved + excluded.solved;
    insert into private.report_durations as r (workspace_id, kind, span, day, bucket, tickets, seconds)
    with n as (select x.id, x.workspace_id, case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.created_at end as created_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.solved_at end as solved_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.first_response_at end as first_response_at from new_tickets x),
         o as (select x.id, x.workspace_id, case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.created_at end as created_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.solved_at end as solved_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.first_response_at end as first_response_at from old_tickets x)
    select d.workspace_id, d.kind, p.span, p.day, private.report_bucket(d.seconds), sum(d.sign), sum(d.sign * d.seconds)
      from (select t.workspace_id, 'first_response' as kind, t.first_response_at as at,
                   private.report_seconds(t.created_at, t.first_response_at) as seconds, t.sign
              from (select n.*, 1 as sign from n join o using (id)
                     where (n.created_at, n.first_response_at) is distinct from (o.created_at, o.first_response_at)
                    union all
                    select o.*, -1 from n join o using (id)
                     where (n.created_at, n.first_response_at) is distinct from (o.created_at, o.first_response_at)) t
             where t.first_response_at is not null
            union all
            select t.workspace_id, 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at), t.sign
              from (select n.*, 1 as sign from n join o using (id)
                     where (n.created_at, n.solved_at) is distinct from (o.created_at, o.solved_at)
                    union all
                    select o.*, -1 from n join o using (id)
                     where (n.created_at, n.solved_at) is distinct from (o.created_at, o.solved_at)) t
             where t.solved_at is not null) d
      join public.workspaces w on w.id = d.workspace_id
      cross join lateral private.report_spans((d.at at time zone w.time_zone)::date) p
     group by 1, 2, 3, 4, 5 having sum(d.sign) <> 0 or sum(d.sign * d.seconds) <> 0 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, kind, span, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
  else
    -- Deleting tickets (a workspace going, with its rollups already gone by cascade): only what is left.
    update private.report_slots s set created = s.created - d.created, solved = s.solved - d.solved
      from (select o.workspace_id, o.slot, sum(o.created) as created, sum(o.solved) as solved
              from (select workspace_id, private.report_slot(created_at) as slot, 1 as created, 0 as solved from old_tickets where private.ticket_counted(number, spam_at, trashed_at)
                    union all
                    select workspace_id, private.report_slot(solved_at), 0, 1 from old_tickets where private.ticket_counted(number, spam_at, trashed_at) and solved_at is not null) o
             group by 1, 2) d
     where s.workspace_id = d.workspace_id and s.slot = d.slot;
    update private.report_durations r set tickets = r.tickets - d.tickets, seconds = r.seconds - d.seconds
      from (select o.workspace_id, o.kind, p.span, p.day, private.report_bucket(o.seconds) as bucket,
                   count(*) as tickets, sum(o.seconds) as seconds
              from (select workspace_id, 'first_response' as kind, first_response_at as at, private.report_seconds(created_at, first_response_at) as seconds
                      from old_tickets where private.ticket_counted(number, spam_at, trashed_at) and first_response_at is not null
                    union all
                    select workspace_id, 'resolution', solved_at, private.report_seconds(created_at, solved_at)
                      from old_tickets where private.ticket_counted(number, spam_at, trashed_at) and solved_at is not null) o
              join public.workspaces w on w.id = o.workspace_id
              cross join lateral private.report_spans((o.at at time zone w.time_zone)::date) p
             group by 1, 2, 3, 4, 5) d
     where r.workspace_id = d.workspace_id and r.kind = d.kind and r.span = d.span and r.day = d.day and r.bucket = d.bucket;
  end if;
  return null;
end $$;
create trigger tickets_report_insert after insert on public.tickets
  referencing new table as new_tickets for each statement execute function private.roll_up_report();
create trigger tickets_report_update after update on public.tickets
  referencing old table as old_tickets new table as new_tickets for each statement execute function private.roll_up_report();
create trigger tickets_report_delete after delete on public.tickets
  referencing old table as old_tickets for each statement execute function private.roll_up_report();

-- TRUNCATE fires no row or transition triggers: it empties the rollups too.
create function private.clear_report_rollups() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from private.report_slots;
  delete from private.report_durations;
  return null;
end $$;
create trigger tickets_report_truncate after truncate on public.tickets
  for each statement execute function private.clear_report_rollups();

-- A workspace's durations from its tickets, by day in its time zone (a new zone moves the days). The
-- table lock holds back tickets' triggers meanwhile, so none adds a day of the old zone after the rebuild.
create function private.rebuild_report_durations() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  lock table private.report_durations in exclusive mode;
  delete from private.report_durations where workspace_id = new.id;
  insert into private.report_durations (workspace_id, kind, span, day, bucket, tickets, seconds)
  select new.id, d.kind, p.span, p.day, private.report_bucket(d.seconds), count(*), sum(d.seconds)
    from (select 'first_response' as kind, t.first_response_at as at, private.report_seconds(t.created_at, t.first_response_at) as seconds
            from public.tickets t where t.workspace_id = new.id and t.spam_at is null and t.trashed_at is null and t.first_response_at is not null
          union all
          select 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at)
            from public.tickets t where t.workspace_id = new.id and t.spam_at is null and t.trashed_at is null and t.solved_at is not null) d
   cross join lateral private.report_spans((d.at at time zone new.time_zone)::date) p
   group by 1, 2, 3, 4, 5;
  return null;
end $$;
create trigger workspaces_report_time_zone after update of time_zone on public.workspaces
  for each row when (old.time_zone is distinct from new.time_zone) execute function private.rebuild_report_durations();

revoke all on function private.roll_up_report(), private.clear_report_rollups(), private.rebuild_report_durations() from public;
revoke all on function private.report_slot(timestamptz), private.report_bucket(bigint), private.report_seconds(timestamptz, timestamptz),
  private.report_spans(date) from public;

-- The report runs as its caller: admins read their workspaces' rollups and tallies, nobody else any.
alter table private.report_slots enable row level security;
alter table private.report_durations enable row level security;
grant select on private.report_slots, private.report_durations to authenticated;
create policy "admins read their workspaces' report slots" on private.report_slots for select to authenticated
  using (workspace_id in (select private.admin_workspaces()));
create policy "admins read their workspaces' report durations" on private.report_durations for select to authenticated
  using (workspace_id in (select private.admin_workspaces()));
alter table private.ticket_tallies enable row level security;
grant select on private.ticket_tallies to authenticated;
create policy "admins read their workspaces' tallies" on private.ticket_tallies for select to authenticated
  using (workspace_id in (select private.admin_workspaces()));

-- Median and p90 of a kind of duration over the days of a range, from the histogram: the mean of the
-- bucket holding the value at that rank (as percentile_disc ranks). The range's whole weeks (Monday to
-- Sunday) come from weekly rows, the days before and after them from daily ones: three index ranges.
-- { count, median_seconds, p90_seconds }
create function private.report_percentiles(p_workspace_id uuid, p_kind text, p_from date, p_to date) returns jsonb
language sql stable security invoker set search_path = '' as $$
  with weeks as (
    select w.first_monday, w.last_sunday, w.first_monday + 6 <= w.last_sunday as whole
      from (select p_from + (8 - extract(isodow from p_from)::int) % 7 as first_monday,
                   p_to - extract(isodow from p_to)::int % 7 as last_sunday) w
  ), b as (
    -- No whole week: every day from the daily rows.
    select case when whole then first_monday else p_to + 1 end as first_monday,
           case when whole then last_sunday else p_to end as last_sunday
      from weeks
  ), h as (
    select r.bucket, sum(r.tickets) as tickets, sum(r.seconds) as seconds
      from (select r.bucket, r.tickets, r.seconds from private.report_durations r, b
             where r.workspace_id = p_workspace_id and r.kind = p_kind and r.span = 7
               and r.day between b.first_monday and b.last_sunday - 6
            union all
            select r.bucket, r.tickets, r.seconds from private.report_durations r, b
             where r.workspace_id = p_workspace_id and r.kind = p_kind and r.span = 1
               and r.day between p_from and b.first_monday - 1
            union all
            select r.bucket, r.tickets, r.seconds from private.report_durations r, b
             where r.workspace_id = p_workspace_id and r.kind = p_kind and r.span = 1
               and r.day between b.last_sunday + 1 and p_to) r
     group by 1 having sum(r.tickets) > 0
  ), c as (
    select h.*, sum(h.tickets) over (order by h.bucket) as rank, sum(h.tickets) over () as total from h
  )
  select jsonb_build_object(
    'count', coalesce(max(c.total), 0),
    'median_seconds', (select round(c2.seconds::numeric / c2.tickets) from c c2 where c2.rank >= 0.5 * c2.total order by c2.bucket limit 1),
    'p90_seconds', (select round(c2.seconds::numeric / c2.tickets) from c c2 where c2.rank >= 0.9 * c2.total order by c2.bucket limit 1))
  from c
$$;
revoke all on function private.report_percentiles(uuid, text, date, date) from public;
grant execute on function private.report_percentiles(uuid, text, date, date) to authenticated, service_role;

-- The report of a workspace (by its address) for the days p_from to p_to (both included, at most 366),
-- or for the last p_days days up to today, in the workspace's time zone:
-- { time_zone, from, to,
--   days [{day, created, solved}]                        every day of the range, in order,
--   created, solved                                      the range's totals,
--   first_response {count, median_seconds, p90_seconds}  tickets first answered in the range (created → first public reply),
--   resolution {count, median_seconds, p90_seconds}      tickets solved in the range (created → solved),
--   backlog_by_status [{status, tickets}]                new, open and pending now,
--   backlog_by_assignee [{assignee_id, name, new, open, pending, tickets}]  now, most first; assignee_id null: unassigned,
--   by_tag [{name, colour, created, solved}]           tickets created and solved in the range per tag, most created first,
--   busiest_hours [{weekday 1 (Monday)–7, hour 0–23, created}]  tickets created in the range by local hour, none left out but empty ones }
-- Raises not_found unless the caller is a member, forbidden for agents, bad_request for a range it doesn't cover.
create function public.workspace_report(p_slug text, p_from date default null, p_to date default null, p_days integer default null)
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
declare
  ws uuid;
  tz text;
  lo timestamptz;
  hi timestamptz;
  out jsonb;
begin
  -- The workspace (mine, admins only) and the range's local midnights (92_satisfaction.sql), and the
  -- range's days again for the rows by day.
  select r.ws, r.tz, r.lo, r.hi into ws, tz, lo, hi from private.admin_report_range(p_slug, p_from, p_to, p_days) r;
  p_from := (lo at time zone tz)::date;
  p_to := (hi at time zone tz)::date - 1;

  with slots as materialized (
    select s.slot at time zone tz as local, s.created, s.solved
      from private.report_slots s
     where s.workspace_id = ws and s.slot >= lo and s.slot < hi
  ), days as (
    select d.day, coalesce(s.created, 0) as created, coalesce(s.solved, 0) as solved
      from (select g::date as day from pg_catalog.generate_series(p_from, p_to, interval '1 day') g) d
      left join (select s.local::date as day, sum(s.created) as created, sum(s.solved) as solved from slots s group by 1) s using (day)
  ), backlog as (
    select c.status, c.assignee_id, sum(c.n) as n
      from private.ticket_tallies c
     where c.workspace_id = ws and private.is_backlog(c.status)
     group by 1, 2
  )
  select jsonb_build_object(
    'time_zone', tz,
    'from', p_from,
    'to', p_to,
    'days', (select jsonb_agg(jsonb_build_object('day', d.day, 'created', d.created, 'solved', d.solved) order by d.day) from days d),
    'created', (select sum(d.created) from days d),
    'solved', (select sum(d.solved) from days d),
    'first_response', private.report_percentiles(ws, 'first_response', p_from, p_to),
    'resolution', private.report_percentiles(ws, 'resolution', p_from, p_to),
    'backlog_by_status', (
      select jsonb_agg(jsonb_build_object('status', st, 'tickets', coalesce((select sum(b.n) from backlog b where b.status = st), 0)) order by st)
        from unnest(enum_range(null::public.ticket_status)) st where private.is_backlog(st)),
    'backlog_by_assignee', coalesce((
      select jsonb_agg(jsonb_build_object('assignee_id', a.assignee_id, 'name', p.display_name,
                                          'new', a.new, 'open', a.open, 'pending', a.pending, 'tickets', a.tickets)
                       order by a.tickets desc, p.display_name, a.assignee_id)
        from (select b.assignee_id, coalesce(sum(b.n) filter (where b.status = 'new'), 0) as new,
                     coalesce(sum(b.n) filter (where b.status = 'open'), 0) as open,
                     coalesce(sum(b.n) filter (where b.status = 'pending'), 0) as pending, sum(b.n) as tickets
                from backlog b group by 1 having sum(b.n) > 0) a
        left join public.profiles p on p.user_id = a.assignee_id), '[]'::jsonb),
    -- Tickets created, and solved (still solved or closed), in the range, per tag; tags with neither
    -- left out. Read from the tags' tickets (ticket_tags_tag_idx), not rolled up.
    'by_tag', coalesce((
      select jsonb_agg(jsonb_build_object('name', g.name, 'colour', g.colour, 'created', x.created, 'solved', x.solved)
                       order by x.created desc, x.solved desc, g.name)
        from public.tags g
        cross join lateral (
          select count(*) filter (where t.created_at >= lo and t.created_at < hi) as created,
                 count(*) filter (where t.solved_at >= lo and t.solved_at < hi) as solved
            from public.ticket_tags tt join public.tickets t on t.id = tt.ticket_id
           where tt.tag_id = g.id and t.spam_at is null and t.trashed_at is null) x
       where g.workspace_id = ws and (x.created > 0 or x.solved > 0)), '[]'::jsonb),
    'busiest_hours', coalesce((
      select jsonb_agg(jsonb_build_object('weekday', h.weekday, 'hour', h.hour, 'created', h.created) order by h.weekday, h.hour)
        from (select extract(isodow from s.local)::int as weekday, extract(hour from s.local)::int as hour, sum(s.created) as created
                from slots s group by 1, 2 having sum(s.created) > 0) h), '[]'::jsonb)
  ) into out;
  return out;
end $$;
revoke execute on function public.workspace_report(text, date, date, integer) from public, anon;
grant execute on function public.workspace_report(text, date, date, integer) to authenticated, service_role;
