create table "public"."business_hours" (
    "workspace_id" uuid not null,
    "weekday" smallint not null,
    "opens" time without time zone not null,
    "closes" time without time zone not null
      );


alter table "public"."business_hours" enable row level security;


  create table "public"."holidays" (
    "workspace_id" uuid not null,
    "day" date not null,
    "name" text not null,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."holidays" enable row level security;

select 1; 
-- CREATE INDEX business_hours_no_overlap ON public.business_hours USING gist (workspace_id, weekday, int4range((EXTRACT(epoch FROM opens))::integer, (EXTRACT(epoch FROM closes))::integer));

CREATE UNIQUE INDEX business_hours_pkey ON public.business_hours USING btree (workspace_id, weekday, opens);

CREATE UNIQUE INDEX holidays_pkey ON public.holidays USING btree (workspace_id, day);

alter table "public"."business_hours" add constraint "business_hours_pkey" PRIMARY KEY using index "business_hours_pkey";

alter table "public"."holidays" add constraint "holidays_pkey" PRIMARY KEY using index "holidays_pkey";

alter table "public"."business_hours" add constraint "business_hours_check" CHECK ((opens < closes)) not valid;

alter table "public"."business_hours" validate constraint "business_hours_check";

alter table "public"."business_hours" add constraint "business_hours_no_overlap" EXCLUDE USING gist (workspace_id WITH =, weekday WITH =, int4range((EXTRACT(epoch FROM opens))::integer, (EXTRACT(epoch FROM closes))::integer) WITH &&);

alter table "public"."business_hours" add constraint "business_hours_weekday_check" CHECK (((weekday >= 1) AND (weekday <= 7))) not valid;

alter table "public"."business_hours" validate constraint "business_hours_weekday_check";

alter table "public"."business_hours" add constraint "business_hours_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."business_hours" validate constraint "business_hours_workspace_id_fkey";

alter table "public"."holidays" add constraint "holidays_name_check" CHECK (((char_length(name) >= 1) AND (char_length(name) <= 80))) not valid;

alter table "public"."holidays" validate constraint "holidays_name_check";

alter table "public"."holidays" add constraint "holidays_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."holidays" validate constraint "holidays_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.business_minutes_add(p_workspace_id uuid, p_at timestamp with time zone, p_minutes numeric)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.business_minutes_between(p_workspace_id uuid, p_from timestamp with time zone, p_to timestamp with time zone)
 RETURNS numeric
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(sum(extract(epoch from p.closes_at - p.opens_at)), 0) / 60
    from private.business_periods(p_workspace_id, p_from, p_to) p
   where p_to > p_from
$function$
;

CREATE OR REPLACE FUNCTION private.business_periods(p_workspace_id uuid, p_from timestamp with time zone, p_to timestamp with time zone)
 RETURNS TABLE(opens_at timestamp with time zone, closes_at timestamp with time zone)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$
;

CREATE OR REPLACE FUNCTION public.next_opening(p_workspace_id uuid, p_at timestamp with time zone DEFAULT now())
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select case when private.is_member(p_workspace_id) or private.is_system()
              then private.business_minutes_add(p_workspace_id, p_at, 1 / 60.0) - interval '1 second' end
$function$
;

CREATE OR REPLACE FUNCTION public.save_business_hours(p_workspace_id uuid, p_periods jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;


  create policy "members read their workspace's hours"
  on "public"."business_hours"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "admins add holidays"
  on "public"."holidays"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins remove holidays"
  on "public"."holidays"
  as permissive
  for delete
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "members read their workspace's holidays"
  on "public"."holidays"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));

grant insert (day) on table public.holidays to authenticated;
grant insert (name) on table public.holidays to authenticated;
grant insert (workspace_id) on table public.holidays to authenticated;
revoke delete on table public.business_hours from anon;
revoke delete on table public.business_hours from authenticated;
revoke delete on table public.holidays from anon;
revoke execute on function private.business_minutes_add(p_workspace_id uuid, p_at timestamp with time zone, p_minutes numeric) from public;
revoke execute on function private.business_minutes_between(p_workspace_id uuid, p_from timestamp with time zone, p_to timestamp with time zone) from public;
revoke execute on function private.business_periods(p_workspace_id uuid, p_from timestamp with time zone, p_to timestamp with time zone) from public;
revoke execute on function public.next_opening(p_workspace_id uuid, p_at timestamp with time zone) from anon;
revoke execute on function public.next_opening(p_workspace_id uuid, p_at timestamp with time zone) from public;
revoke execute on function public.save_business_hours(p_workspace_id uuid, p_periods jsonb) from anon;
revoke execute on function public.save_business_hours(p_workspace_id uuid, p_periods jsonb) from public;
revoke insert on table public.business_hours from anon;
revoke insert on table public.business_hours from authenticated;
revoke insert on table public.holidays from anon;
revoke insert on table public.holidays from authenticated;
revoke maintain on table public.business_hours from anon;
revoke maintain on table public.holidays from anon;
revoke references on table public.business_hours from anon;
revoke references on table public.holidays from anon;
revoke select on table public.business_hours from anon;
revoke select on table public.holidays from anon;
revoke trigger on table public.business_hours from anon;
revoke trigger on table public.holidays from anon;
revoke truncate on table public.business_hours from anon;
revoke truncate on table public.holidays from anon;
revoke update on table public.business_hours from anon;
revoke update on table public.business_hours from authenticated;
revoke update on table public.holidays from anon;
revoke update on table public.holidays from authenticated;

grant insert (day) on table public.holidays to authenticated;
grant insert (name) on table public.holidays to authenticated;
grant insert (workspace_id) on table public.holidays to authenticated;
