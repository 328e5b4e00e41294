-- Durations also per week (span 7). The rows so far are days without a span: emptied here, and counted
-- again from the tickets at the end, by day and by week.
delete from private.report_durations;

alter table "private"."report_durations" drop constraint "report_durations_pkey";

drop index if exists "private"."report_durations_pkey";

alter table "private"."report_durations" add column "span" smallint not null;

CREATE UNIQUE INDEX report_durations_pkey ON private.report_durations USING btree (workspace_id, kind, span, day, bucket);

alter table "private"."report_durations" add constraint "report_durations_pkey" PRIMARY KEY using index "report_durations_pkey";

alter table "private"."report_durations" add constraint "report_durations_span_check" CHECK ((span = ANY (ARRAY[1, 7]))) not valid;

alter table "private"."report_durations" validate constraint "report_durations_span_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.report_spans(p_day date)
 RETURNS TABLE(span smallint, day date)
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select 1::smallint, p_day
  union all
  select 7::smallint, p_day - (extract(isodow from p_day)::int - 1)
$function$
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
  insert into private.report_durations (workspace_id, kind, span, day, bucket, tickets, seconds)
  select new.id, d.kind, p.span, p.day, private.report_bucket(d.seconds), count(*), sum(d.seconds)
    from (select 'first_response' as kind, t.first_response_at as at, private.report_seconds(t.created_at, t.first_response_at) as seconds
            from public.tickets t where t.workspace_id = new.id and t.first_response_at is not null
          union all
          select 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at)
            from public.tickets t where t.workspace_id = new.id and t.solved_at is not null) d
   cross join lateral private.report_spans((d.at at time zone new.time_zone)::date) p
   group by 1, 2, 3, 4, 5;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.report_percentiles(p_workspace_id uuid, p_kind text, p_from date, p_to date)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
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
    insert into private.report_durations as r (workspace_id, kind, span, day, bucket, tickets, seconds)
    select d.workspace_id, d.kind, p.span, p.day, private.report_bucket(d.seconds), count(*), sum(d.seconds)
      from (select n.workspace_id, 'first_response' as kind, n.first_response_at as at,
                   private.report_seconds(n.created_at, n.first_response_at) as seconds
              from new_tickets n where n.first_response_at is not null
            union all
            select n.workspace_id, 'resolution', n.solved_at, private.report_seconds(n.created_at, n.solved_at)
              from new_tickets n where n.solved_at is not null) d
      join public.workspaces w on w.id = d.workspace_id
      cross join lateral private.report_spans((d.at at time zone w.time_zone)::date) p
     group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, kind, span, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
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
    insert into private.report_durations as r (workspace_id, kind, span, day, bucket, tickets, seconds)
    select d.workspace_id, d.kind, p.span, p.day, private.report_bucket(d.seconds), sum(d.sign), sum(d.sign * d.seconds)
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
      cross join lateral private.report_spans((d.at at time zone w.time_zone)::date) p
     group by 1, 2, 3, 4, 5 having sum(d.sign) <> 0 or sum(d.sign * d.seconds) <> 0 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, kind, span, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
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
      from (select o.workspace_id, o.kind, p.span, p.day, private.report_bucket(o.seconds) as bucket,
                   count(*) as tickets, sum(o.seconds) as seconds
              from (select workspace_id, 'first_response' as kind, first_response_at as at, private.report_seconds(created_at, first_response_at) as seconds
                      from old_tickets where first_response_at is not null
                    union all
                    select workspace_id, 'resolution', solved_at, private.report_seconds(created_at, solved_at)
                      from old_tickets where solved_at is not null) o
              join public.workspaces w on w.id = o.workspace_id
              cross join lateral private.report_spans((o.at at time zone w.time_zone)::date) p
             group by 1, 2, 3, 4, 5) d
     where r.workspace_id = d.workspace_id and r.kind = d.kind and r.span = d.span and r.day = d.day and r.bucket = d.bucket;
  end if;
  return null;
end $function$
;

revoke execute on function private.report_spans(p_day date) from public;

insert into private.report_durations (workspace_id, kind, span, day, bucket, tickets, seconds)
select d.workspace_id, d.kind, p.span, p.day, private.report_bucket(d.seconds), count(*), sum(d.seconds)
  from (select t.workspace_id, 'first_response' as kind, t.first_response_at as at, private.report_seconds(t.created_at, t.first_response_at) as seconds
          from public.tickets t where t.first_response_at is not null
        union all
        select t.workspace_id, 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at)
          from public.tickets t where t.solved_at is not null) d
  join public.workspaces w on w.id = d.workspace_id
  cross join lateral private.report_spans((d.at at time zone w.time_zone)::date) p
 group by 1, 2, 3, 4, 5;
