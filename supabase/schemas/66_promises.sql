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
create function private.business_periods(p_workspace_id uuid, p_from timestamptz, p_to timestamptz)
returns table (opens_at timestamptz, closes_at timestamptz)
language sql stable security definer set search_path = '' as $$
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
   order by 1
$$;

-- Business minutes between a and b (0 when b is not after a), to the second (a fraction of a minute).
create function private.business_minutes_between(p_workspace_id uuid, p_from timestamptz, p_to timestamptz)
returns numeric
language sql stable security definer set search_path = '' as $$
  select coalesce(sum(extract(epoch from p.closes_at - p.opens_at)), 0) / 60
    from private.business_periods(p_workspace_id, p_from, p_to) p
   where p_to > p_from
$$;

-- The instant N business minutes after t (t itself for 0 or less; null if the workspace is closed for
-- a whole year, holidays throughout). Walks the periods a week and a day at a time. Lengths are added
-- as seconds, never as days: a day-long interval would follow the session's time zone over a DST change.
create function private.business_minutes_add(p_workspace_id uuid, p_at timestamptz, p_minutes numeric)
returns timestamptz
language plpgsql stable security definer set search_path = '' as $$
declare
  remaining numeric := p_minutes * 60;
  window_start timestamptz := p_at;
  window_end timestamptz;
  p record;
  len numeric;
begin
  if remaining <= 0 then
    return p_at;
  end if;
  for i in 1..46 loop
    window_end := window_start + make_interval(secs => 8 * 86400);
    for p in select * from private.business_periods(p_workspace_id, window_start, window_end) loop
      len := extract(epoch from p.closes_at - p.opens_at);
      if len >= remaining then
        return p.opens_at + make_interval(secs => remaining::double precision);
      end if;
      remaining := remaining - len;
    end loop;
    window_start := window_end;
  end loop;
  return null;
end $$;

revoke all on function private.business_periods(uuid, timestamptz, timestamptz),
  private.business_minutes_between(uuid, timestamptz, timestamptz),
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
end $$;
revoke all on function public.save_business_hours(uuid, jsonb) from public, anon;
grant execute on function public.save_business_hours(uuid, jsonb) to authenticated, service_role;

-- When the team is next open at or after p_at (null: never within a year). For the acknowledgement
-- outside business hours.
create function public.next_opening(p_workspace_id uuid, p_at timestamptz default now()) returns timestamptz
language sql stable security definer set search_path = '' as $$
  select case when private.is_member(p_workspace_id) or private.is_system()
              then private.business_minutes_add(p_workspace_id, p_at, 1 / 60.0) - interval '1 second' end
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
