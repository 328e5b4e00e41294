drop function if exists "public"."workspace_report"(p_workspace_id uuid, p_since timestamp with time zone);


  create table "private"."report_durations" (
    "workspace_id" uuid not null,
    "kind" text not null,
    "day" date not null,
    "bucket" smallint not null,
    "tickets" integer not null,
    "seconds" bigint not null
      );


alter table "private"."report_durations" enable row level security;


  create table "private"."report_slots" (
    "workspace_id" uuid not null,
    "slot" timestamp with time zone not null,
    "created" integer not null default 0,
    "solved" integer not null default 0
      );


alter table "private"."report_slots" enable row level security;

alter table "private"."ticket_tallies" enable row level security;

CREATE UNIQUE INDEX report_durations_pkey ON private.report_durations USING btree (workspace_id, kind, day, bucket);

CREATE UNIQUE INDEX report_slots_pkey ON private.report_slots USING btree (workspace_id, slot);

alter table "private"."report_durations" add constraint "report_durations_pkey" PRIMARY KEY using index "report_durations_pkey";

alter table "private"."report_slots" add constraint "report_slots_pkey" PRIMARY KEY using index "report_slots_pkey";

alter table "private"."report_durations" add constraint "report_durations_kind_check" CHECK ((kind = ANY (ARRAY['first_response'::text, 'resolution'::text]))) not valid;

alter table "private"."report_durations" validate constraint "report_durations_kind_check";

alter table "private"."report_durations" add constraint "report_durations_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "private"."report_durations" validate constraint "report_durations_workspace_id_fkey";

alter table "private"."report_slots" add constraint "report_slots_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "private"."report_slots" validate constraint "report_slots_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.clear_report_rollups()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from private.report_slots;
  delete from private.report_durations;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.rebuild_report_durations()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  lock table private.report_durations in exclusive mode;
  delete from private.report_durations where workspace_id = new.id;
  insert into private.report_durations (workspace_id, kind, day, bucket, tickets, seconds)
  select new.id, d.kind, (d.at at time zone new.time_zone)::date, private.report_bucket(d.seconds), count(*), sum(d.seconds)
    from (select 'first_response' as kind, t.first_response_at as at, private.report_seconds(t.created_at, t.first_response_at) as seconds
            from public.tickets t where t.workspace_id = new.id and t.first_response_at is not null
          union all
          select 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at)
            from public.tickets t where t.workspace_id = new.id and t.solved_at is not null) d
   group by 1, 2, 3, 4;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.report_bucket(p_seconds bigint)
 RETURNS smallint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select case when p_seconds < 60 then greatest(p_seconds, 0)
              else 60 + floor(ln(p_seconds / 60.0) / ln(1.02)) end::smallint
$function$
;

CREATE OR REPLACE FUNCTION private.report_percentiles(p_workspace_id uuid, p_kind text, p_from date, p_to date)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  with h as (
    select r.bucket, sum(r.tickets) as tickets, sum(r.seconds) as seconds
      from private.report_durations r
     where r.workspace_id = p_workspace_id and r.kind = p_kind and r.day between p_from and p_to
     group by 1 having sum(r.tickets) > 0
  ), c as (
    select h.*, sum(h.tickets) over (order by h.bucket) as rank, sum(h.tickets) over () as total from h
  )
  select jsonb_build_object(
    'count', coalesce(max(c.total), 0),
    'median_seconds', (select round(c2.seconds::numeric / c2.tickets) from c c2 where c2.rank >= 0.5 * c2.total order by c2.bucket limit 1),
    'p90_seconds', (select round(c2.seconds::numeric / c2.tickets) from c c2 where c2.rank >= 0.9 * c2.total order by c2.bucket limit 1))
  from c
$function$
;

CREATE OR REPLACE FUNCTION private.report_seconds(p_from timestamp with time zone, p_to timestamp with time zone)
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select greatest(floor(extract(epoch from p_to - p_from)), 0)::bigint
$function$
;

CREATE OR REPLACE FUNCTION private.report_slot(p_at timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select pg_catalog.date_bin('15 minutes', p_at, timestamptz '2000-01-01 00:00:00+00')
$function$
;

CREATE OR REPLACE FUNCTION private.roll_up_report()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' then
    insert into private.report_slots as s (workspace_id, slot, created, solved)
    select d.workspace_id, d.slot, sum(d.created), sum(d.solved)
      from (select n.workspace_id, private.report_slot(n.created_at) as slot, 1 as created, 0 as solved from new_tickets n
            union all
            select n.workspace_id, private.report_slot(n.solved_at), 0, 1 from new_tickets n where n.solved_at is not null) d
     group by 1, 2 order by 1, 2
    on conflict (workspace_id, slot) do update set created = s.created + excluded.created, solved = s.solved + excluded.solved;
    insert into private.report_durations as r (workspace_id, kind, day, bucket, tickets, seconds)
    select d.workspace_id, d.kind, (d.at at time zone w.time_zone)::date, private.report_bucket(d.seconds), count(*), sum(d.seconds)
      from (select n.workspace_id, 'first_response' as kind, n.first_response_at as at,
                   private.report_seconds(n.created_at, n.first_response_at) as seconds
              from new_tickets n where n.first_response_at is not null
            union all
            select n.workspace_id, 'resolution', n.solved_at, private.report_seconds(n.created_at, n.solved_at)
              from new_tickets n where n.solved_at is not null) d
      join public.workspaces w on w.id = d.workspace_id
     group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (workspace_id, kind, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
  elsif tg_op = 'UPDATE' then
    insert into private.report_slots as s (workspace_id, slot, created, solved)
    select d.workspace_id, d.slot, sum(d.created), sum(d.solved)
      from (select n.workspace_id, private.report_slot(n.created_at) as slot, 1 as created, 0 as solved
              from new_tickets n join old_tickets o using (id) where n.created_at is distinct from o.created_at
            union all
            select o.workspace_id, private.report_slot(o.created_at), -1, 0
              from new_tickets n join old_tickets o using (id) where n.created_at is distinct from o.created_at
            union all
            select n.workspace_id, private.report_slot(n.solved_at), 0, 1
              from new_tickets n join old_tickets o using (id) where n.solved_at is distinct from o.solved_at and n.solved_at is not null
            union all
            select o.workspace_id, private.report_slot(o.solved_at), 0, -1
              from new_tickets n join old_tickets o using (id) where n.solved_at is distinct from o.solved_at and o.solved_at is not null) d
     group by 1, 2 having sum(d.created) <> 0 or sum(d.solved) <> 0 order by 1, 2
    on conflict (workspace_id, slot) do update set created = s.created + excluded.created, solved = s.solved + excluded.solved;
    insert into private.report_durations as r (workspace_id, kind, day, bucket, tickets, seconds)
    select d.workspace_id, d.kind, (d.at at time zone w.time_zone)::date, private.report_bucket(d.seconds), sum(d.sign), sum(d.sign * d.seconds)
      from (select t.workspace_id, 'first_response' as kind, t.first_response_at as at,
                   private.report_seconds(t.created_at, t.first_response_at) as seconds, t.sign
              from (select n.*, 1 as sign from new_tickets n join old_tickets o using (id)
                     where (n.created_at, n.first_response_at) is distinct from (o.created_at, o.first_response_at)
                    union all
                    select o.*, -1 from new_tickets n join old_tickets o using (id)
                     where (n.created_at, n.first_response_at) is distinct from (o.created_at, o.first_response_at)) t
             where t.first_response_at is not null
            union all
            select t.workspace_id, 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at), t.sign
              from (select n.*, 1 as sign from new_tickets n join old_tickets o using (id)
                     where (n.created_at, n.solved_at) is distinct from (o.created_at, o.solved_at)
                    union all
                    select o.*, -1 from new_tickets n join old_tickets o using (id)
                     where (n.created_at, n.solved_at) is distinct from (o.created_at, o.solved_at)) t
             where t.solved_at is not null) d
      join public.workspaces w on w.id = d.workspace_id
     group by 1, 2, 3, 4 having sum(d.sign) <> 0 or sum(d.sign * d.seconds) <> 0 order by 1, 2, 3, 4
    on conflict (workspace_id, kind, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
  else
    -- Deleting tickets (a workspace going, with its rollups already gone by cascade): only what is left.
    update private.report_slots s set created = s.created - d.created, solved = s.solved - d.solved
      from (select o.workspace_id, o.slot, sum(o.created) as created, sum(o.solved) as solved
              from (select workspace_id, private.report_slot(created_at) as slot, 1 as created, 0 as solved from old_tickets
                    union all
                    select workspace_id, private.report_slot(solved_at), 0, 1 from old_tickets where solved_at is not null) o
             group by 1, 2) d
     where s.workspace_id = d.workspace_id and s.slot = d.slot;
    update private.report_durations r set tickets = r.tickets - d.tickets, seconds = r.seconds - d.seconds
      from (select o.workspace_id, o.kind, (o.at at time zone w.time_zone)::date as day, private.report_bucket(o.seconds) as bucket,
                   count(*) as tickets, sum(o.seconds) as seconds
              from (select workspace_id, 'first_response' as kind, first_response_at as at, private.report_seconds(created_at, first_response_at) as seconds
                      from old_tickets where first_response_at is not null
                    union all
                    select workspace_id, 'resolution', solved_at, private.report_seconds(created_at, solved_at)
                      from old_tickets where solved_at is not null) o
              join public.workspaces w on w.id = o.workspace_id
             group by 1, 2, 3, 4) d
     where r.workspace_id = d.workspace_id and r.kind = d.kind and r.day = d.day and r.bucket = d.bucket;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION public.workspace_report(p_slug text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date, p_days integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  my_role public.member_role;
  tz text;
  lo timestamptz;
  hi timestamptz;
  out jsonb;
begin
  -- My membership, through its policy: the workspace is mine to see, or it is "not found".
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
  -- Local midnights as moments: a day is 23 or 25 hours long when the clocks change.
  lo := p_from::timestamp at time zone tz;
  hi := (p_to + 1)::timestamp at time zone tz;

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
     where c.workspace_id = ws and c.status in ('new', 'open', 'pending')
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
        from unnest(array['new', 'open', 'pending']::public.ticket_status[]) st),
    'backlog_by_assignee', coalesce((
      select jsonb_agg(jsonb_build_object('assignee_id', a.assignee_id, 'name', p.display_name,
                                          'new', a.new, 'open', a.open, 'pending', a.pending, 'tickets', a.tickets)
                       order by a.tickets desc, p.display_name, a.assignee_id)
        from (select b.assignee_id, coalesce(sum(b.n) filter (where b.status = 'new'), 0) as new,
                     coalesce(sum(b.n) filter (where b.status = 'open'), 0) as open,
                     coalesce(sum(b.n) filter (where b.status = 'pending'), 0) as pending, sum(b.n) as tickets
                from backlog b group by 1 having sum(b.n) > 0) a
        left join public.profiles p on p.user_id = a.assignee_id), '[]'::jsonb),
    'busiest_hours', coalesce((
      select jsonb_agg(jsonb_build_object('weekday', h.weekday, 'hour', h.hour, 'created', h.created) order by h.weekday, h.hour)
        from (select extract(isodow from s.local)::int as weekday, extract(hour from s.local)::int as hour, sum(s.created) as created
                from slots s group by 1, 2 having sum(s.created) > 0) h), '[]'::jsonb)
  ) into out;
  return out;
end $function$
;


  create policy "admins read their workspaces' report durations"
  on "private"."report_durations"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins read their workspaces' report slots"
  on "private"."report_slots"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins read their workspaces' tallies"
  on "private"."ticket_tallies"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));


CREATE TRIGGER tickets_report_delete AFTER DELETE ON public.tickets REFERENCING OLD TABLE AS old_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.roll_up_report();

CREATE TRIGGER tickets_report_insert AFTER INSERT ON public.tickets REFERENCING NEW TABLE AS new_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.roll_up_report();

CREATE TRIGGER tickets_report_truncate AFTER TRUNCATE ON public.tickets FOR EACH STATEMENT EXECUTE FUNCTION private.clear_report_rollups();

CREATE TRIGGER tickets_report_update AFTER UPDATE ON public.tickets REFERENCING OLD TABLE AS old_tickets NEW TABLE AS new_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.roll_up_report();

CREATE TRIGGER workspaces_report_time_zone AFTER UPDATE OF time_zone ON public.workspaces FOR EACH ROW WHEN ((old.time_zone IS DISTINCT FROM new.time_zone)) EXECUTE FUNCTION private.rebuild_report_durations();

grant execute on function private.report_percentiles(p_workspace_id uuid, p_kind text, p_from date, p_to date) to authenticated;
grant execute on function private.report_percentiles(p_workspace_id uuid, p_kind text, p_from date, p_to date) to service_role;
grant select on table private.report_durations to authenticated;
grant select on table private.report_slots to authenticated;
grant select on table private.ticket_tallies to authenticated;
revoke execute on function private.clear_report_rollups() from public;
revoke execute on function private.rebuild_report_durations() from public;
revoke execute on function private.report_bucket(p_seconds bigint) from public;
revoke execute on function private.report_percentiles(p_workspace_id uuid, p_kind text, p_from date, p_to date) from public;
revoke execute on function private.report_seconds(p_from timestamp with time zone, p_to timestamp with time zone) from public;
revoke execute on function private.report_slot(p_at timestamp with time zone) from public;
revoke execute on function private.roll_up_report() from public;
revoke execute on function public.workspace_report(p_slug text, p_from date, p_to date, p_days integer) from anon;
revoke execute on function public.workspace_report(p_slug text, p_from date, p_to date, p_days integer) from public;

-- The rollups of the tickets that exist already (later ones are counted by the triggers).
insert into private.report_slots (workspace_id, slot, created, solved)
select d.workspace_id, d.slot, sum(d.created), sum(d.solved)
  from (select t.workspace_id, private.report_slot(t.created_at) as slot, 1 as created, 0 as solved from public.tickets t
        union all
        select t.workspace_id, private.report_slot(t.solved_at), 0, 1 from public.tickets t where t.solved_at is not null) d
 group by 1, 2;
insert into private.report_durations (workspace_id, kind, day, bucket, tickets, seconds)
select d.workspace_id, d.kind, (d.at at time zone w.time_zone)::date, private.report_bucket(d.seconds), count(*), sum(d.seconds)
  from (select t.workspace_id, 'first_response' as kind, t.first_response_at as at, private.report_seconds(t.created_at, t.first_response_at) as seconds
          from public.tickets t where t.first_response_at is not null
        union all
        select t.workspace_id, 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at)
          from public.tickets t where t.solved_at is not null) d
  join public.workspaces w on w.id = d.workspace_id
 group by 1, 2, 3, 4;
