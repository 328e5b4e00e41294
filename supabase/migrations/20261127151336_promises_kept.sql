create type "public"."assignment_mode" as enum ('off', 'round_robin', 'least_open');

create type "public"."sla_target" as enum ('first_response', 'next_response', 'resolution');

alter table "public"."ticket_events" drop constraint "ticket_events_type_check";


  create table "public"."assignment_settings" (
    "workspace_id" uuid not null,
    "mode" assignment_mode not null default 'off'::assignment_mode,
    "max_open" integer,
    "last_assignee_id" uuid
      );


alter table "public"."assignment_settings" enable row level security;


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


  create table "public"."member_availability" (
    "workspace_id" uuid not null,
    "user_id" uuid not null,
    "available" boolean not null,
    "changed_at" timestamp with time zone not null default now()
      );


alter table "public"."member_availability" enable row level security;


  create table "public"."sla_outcomes" (
    "id" bigint generated always as identity not null,
    "ticket_id" uuid not null,
    "workspace_id" uuid not null,
    "target" sla_target not null,
    "started_at" timestamp with time zone not null,
    "due_at" timestamp with time zone not null,
    "decided_at" timestamp with time zone not null default now(),
    "met" boolean not null,
    "priority" ticket_priority not null,
    "assignee_id" uuid
      );


alter table "public"."sla_outcomes" enable row level security;


  create table "public"."sla_targets" (
    "workspace_id" uuid not null,
    "priority" ticket_priority not null,
    "first_response_minutes" integer,
    "next_response_minutes" integer,
    "resolution_minutes" integer,
    "business_hours" boolean not null default true
      );


alter table "public"."sla_targets" enable row level security;


  create table "public"."ticket_sla" (
    "ticket_id" uuid not null,
    "workspace_id" uuid not null,
    "target" sla_target,
    "started_at" timestamp with time zone,
    "due_at" timestamp with time zone,
    "warn_at" timestamp with time zone,
    "breached_at" timestamp with time zone,
    "waiting_since" timestamp with time zone,
    "paused_at" timestamp with time zone,
    "paused_seconds" numeric not null default 0,
    "paused_business_seconds" numeric not null default 0
      );


alter table "public"."ticket_sla" enable row level security;

CREATE UNIQUE INDEX assignment_settings_pkey ON public.assignment_settings USING btree (workspace_id);

select 1; 
-- CREATE INDEX business_hours_no_overlap ON public.business_hours USING gist (workspace_id, weekday, int4range((EXTRACT(epoch FROM opens))::integer, (EXTRACT(epoch FROM closes))::integer));

CREATE UNIQUE INDEX business_hours_pkey ON public.business_hours USING btree (workspace_id, weekday, opens);

CREATE UNIQUE INDEX holidays_pkey ON public.holidays USING btree (workspace_id, day);

CREATE UNIQUE INDEX member_availability_pkey ON public.member_availability USING btree (workspace_id, user_id);

CREATE UNIQUE INDEX sla_outcomes_pkey ON public.sla_outcomes USING btree (id);

CREATE UNIQUE INDEX sla_outcomes_ticket_id_target_started_at_key ON public.sla_outcomes USING btree (ticket_id, target, started_at);

CREATE INDEX sla_outcomes_workspace_idx ON public.sla_outcomes USING btree (workspace_id, decided_at);

CREATE UNIQUE INDEX sla_targets_pkey ON public.sla_targets USING btree (workspace_id, priority);

CREATE INDEX ticket_sla_due_idx ON public.ticket_sla USING btree (workspace_id, due_at) WHERE (due_at IS NOT NULL);

CREATE UNIQUE INDEX ticket_sla_pkey ON public.ticket_sla USING btree (ticket_id);

CREATE INDEX ticket_sla_sweep_idx ON public.ticket_sla USING btree (due_at) WHERE ((due_at IS NOT NULL) AND (breached_at IS NULL));

alter table "public"."assignment_settings" add constraint "assignment_settings_pkey" PRIMARY KEY using index "assignment_settings_pkey";

alter table "public"."business_hours" add constraint "business_hours_pkey" PRIMARY KEY using index "business_hours_pkey";

alter table "public"."holidays" add constraint "holidays_pkey" PRIMARY KEY using index "holidays_pkey";

alter table "public"."member_availability" add constraint "member_availability_pkey" PRIMARY KEY using index "member_availability_pkey";

alter table "public"."sla_outcomes" add constraint "sla_outcomes_pkey" PRIMARY KEY using index "sla_outcomes_pkey";

alter table "public"."sla_targets" add constraint "sla_targets_pkey" PRIMARY KEY using index "sla_targets_pkey";

alter table "public"."ticket_sla" add constraint "ticket_sla_pkey" PRIMARY KEY using index "ticket_sla_pkey";

alter table "public"."assignment_settings" add constraint "assignment_settings_last_assignee_id_fkey" FOREIGN KEY (last_assignee_id) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."assignment_settings" validate constraint "assignment_settings_last_assignee_id_fkey";

alter table "public"."assignment_settings" add constraint "assignment_settings_max_open_check" CHECK (((max_open >= 1) AND (max_open <= 10000))) not valid;

alter table "public"."assignment_settings" validate constraint "assignment_settings_max_open_check";

alter table "public"."assignment_settings" add constraint "assignment_settings_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."assignment_settings" validate constraint "assignment_settings_workspace_id_fkey";

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

alter table "public"."member_availability" add constraint "member_availability_workspace_id_user_id_fkey" FOREIGN KEY (workspace_id, user_id) REFERENCES memberships(workspace_id, user_id) ON DELETE CASCADE not valid;

alter table "public"."member_availability" validate constraint "member_availability_workspace_id_user_id_fkey";

alter table "public"."sla_outcomes" add constraint "sla_outcomes_assignee_id_fkey" FOREIGN KEY (assignee_id) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."sla_outcomes" validate constraint "sla_outcomes_assignee_id_fkey";

alter table "public"."sla_outcomes" add constraint "sla_outcomes_ticket_id_fkey" FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE not valid;

alter table "public"."sla_outcomes" validate constraint "sla_outcomes_ticket_id_fkey";

alter table "public"."sla_outcomes" add constraint "sla_outcomes_ticket_id_target_started_at_key" UNIQUE using index "sla_outcomes_ticket_id_target_started_at_key";

alter table "public"."sla_outcomes" add constraint "sla_outcomes_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."sla_outcomes" validate constraint "sla_outcomes_workspace_id_fkey";

alter table "public"."sla_targets" add constraint "sla_targets_first_response_minutes_check" CHECK (((first_response_minutes >= 1) AND (first_response_minutes <= 525600))) not valid;

alter table "public"."sla_targets" validate constraint "sla_targets_first_response_minutes_check";

alter table "public"."sla_targets" add constraint "sla_targets_next_response_minutes_check" CHECK (((next_response_minutes >= 1) AND (next_response_minutes <= 525600))) not valid;

alter table "public"."sla_targets" validate constraint "sla_targets_next_response_minutes_check";

alter table "public"."sla_targets" add constraint "sla_targets_resolution_minutes_check" CHECK (((resolution_minutes >= 1) AND (resolution_minutes <= 525600))) not valid;

alter table "public"."sla_targets" validate constraint "sla_targets_resolution_minutes_check";

alter table "public"."sla_targets" add constraint "sla_targets_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."sla_targets" validate constraint "sla_targets_workspace_id_fkey";

alter table "public"."ticket_sla" add constraint "ticket_sla_ticket_id_fkey" FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_sla" validate constraint "ticket_sla_ticket_id_fkey";

alter table "public"."ticket_sla" add constraint "ticket_sla_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_sla" validate constraint "ticket_sla_workspace_id_fkey";

alter table "public"."ticket_events" add constraint "ticket_events_type_check" CHECK ((type = ANY (ARRAY['created'::text, 'status'::text, 'assignee'::text, 'priority'::text, 'sla_breach'::text]))) not valid;

alter table "public"."ticket_events" validate constraint "ticket_events_type_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.assign_on_arrival()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if coalesce((select c.mode from public.assignment_settings c where c.workspace_id = new.workspace_id), 'off') = 'off' then
    return null;
  end if;
  if tg_op = 'UPDATE' and new.assignee_id is not null
     and coalesce((select a.available from public.member_availability a
                    where a.workspace_id = new.workspace_id and a.user_id = new.assignee_id), true) then
    return null;
  end if;
  if tg_op = 'UPDATE' and new.assignee_id is not null then
    update public.tickets set assignee_id = null where id = new.id;
    perform private.by_tend(new.id);
  end if;
  perform private.auto_assign(new.id);
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.auto_assign(p_ticket_id uuid)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  cfg public.assignment_settings;
  chosen uuid;
begin
  select * into t from public.tickets where id = p_ticket_id;
  select * into cfg from public.assignment_settings where workspace_id = t.workspace_id for no key update;
  if cfg.mode is null or cfg.mode = 'off' or t.assignee_id is not null or not private.is_open(t.status) then
    return null;
  end if;
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
  if chosen is not null then
    update public.tickets set assignee_id = chosen where id = t.id;
    perform private.by_tend(t.id);
    update public.assignment_settings set last_assignee_id = chosen where workspace_id = t.workspace_id;
  end if;
  return chosen;
end $function$
;

CREATE OR REPLACE FUNCTION private.auto_assign_waiting(p_workspace_id uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  waiting uuid;
  n integer := 0;
begin
  for waiting in
    select t.id from public.tickets t
     where t.workspace_id = p_workspace_id and t.assignee_id is null and private.is_open(t.status)
     order by t.created_at, t.number
  loop
    exit when private.auto_assign(waiting) is null;
    n := n + 1;
  end loop;
  return n;
end $function$
;

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
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p_to <= p_from then
    return 0;
  end if;
  return (select coalesce(sum(extract(epoch from p.closes_at - p.opens_at)), 0) / 60
            from private.business_periods(p_workspace_id, p_from, p_to) p);
end $function$
;

CREATE OR REPLACE FUNCTION private.business_periods(p_workspace_id uuid, p_from timestamp with time zone, p_to timestamp with time zone)
 RETURNS TABLE(opens_at timestamp with time zone, closes_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.by_tend(p_ticket_id uuid)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
  update public.ticket_events set actor_id = null
   where id = (select max(e.id) from public.ticket_events e where e.ticket_id = p_ticket_id and e.type = 'assignee')
$function$
;

CREATE OR REPLACE FUNCTION private.sla_add(p_workspace_id uuid, p_business boolean, p_from timestamp with time zone, p_minutes numeric)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return case when p_business then private.business_minutes_add(p_workspace_id, p_from, p_minutes)
              else p_from + make_interval(secs => (p_minutes * 60)::double precision) end;
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_due_of(t tickets, g sla_targets, s ticket_sla, p_target sla_target, p_share numeric DEFAULT 1)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return case p_target
    when 'first_response' then private.sla_add(t.workspace_id, g.business_hours, t.created_at,
      g.first_response_minutes * p_share + case when g.business_hours then s.paused_business_seconds else s.paused_seconds end / 60)
    when 'resolution' then private.sla_add(t.workspace_id, g.business_hours, t.created_at,
      g.resolution_minutes * p_share + case when g.business_hours then s.paused_business_seconds else s.paused_seconds end / 60)
    when 'next_response' then private.sla_add(t.workspace_id, g.business_hours, s.waiting_since, g.next_response_minutes * p_share)
  end;
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_holidays_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.sla_refresh_workspace(coalesce(new.workspace_id, old.workspace_id));
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_message_posted()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_refresh(p_ticket_id uuid, p_met sla_target DEFAULT NULL::sla_target, p_met_at timestamp with time zone DEFAULT now())
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  g public.sla_targets;
  s public.ticket_sla;
  paused boolean;
  due timestamptz;
  candidate public.sla_target;
  next_target public.sla_target;
  next_due timestamptz;
begin
  select * into t from public.tickets where id = p_ticket_id;
  select * into g from public.sla_targets where workspace_id = t.workspace_id and priority = t.priority;
  select * into s from public.ticket_sla where ticket_id = p_ticket_id for update;
  if s.ticket_id is null then
    -- No targets, no row: a workspace without SLA pays one look-up per change.
    if g.workspace_id is null then
      return;
    end if;
    insert into public.ticket_sla (ticket_id, workspace_id) values (t.id, t.workspace_id) returning * into s;
  end if;

  if p_met is not null and g.workspace_id is not null then
    due := private.sla_due_of(t, g, s, p_met);
    if due is not null then
      insert into public.sla_outcomes (ticket_id, workspace_id, target, started_at, due_at, decided_at, met, priority, assignee_id)
      values (t.id, t.workspace_id, p_met, case when p_met = 'next_response' then s.waiting_since else t.created_at end,
              due, p_met_at, p_met_at <= due, t.priority, t.assignee_id)
      on conflict (ticket_id, target, started_at) do nothing;
    end if;
  end if;

  paused := t.status in ('pending', 'solved', 'closed');
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
      due := private.sla_due_of(t, g, s, candidate);
      if due is not null and (next_due is null or due < next_due) then
        next_due := due;
        next_target := candidate;
      end if;
    end loop;
  end if;

  update public.ticket_sla
     set target = next_target,
         started_at = case when next_target = 'next_response' then s.waiting_since when next_target is not null then t.created_at end,
         due_at = next_due,
         warn_at = case when next_target is not null then private.sla_due_of(t, g, s, next_target, 0.75) end,
         -- A breach seen stays seen while the same promise runs late.
         breached_at = case when next_target = s.target and next_due = s.due_at then s.breached_at end,
         waiting_since = s.waiting_since,
         paused_at = s.paused_at,
         paused_seconds = s.paused_seconds,
         paused_business_seconds = s.paused_business_seconds
   where ticket_id = t.id;
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_refresh_workspace(p_workspace_id uuid)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select private.sla_refresh(t.id) from public.tickets t
   where t.workspace_id = p_workspace_id and private.is_backlog(t.status)
$function$
;

CREATE OR REPLACE FUNCTION private.sla_ticket_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.sla_refresh(new.id,
    case when tg_op = 'UPDATE' and old.first_response_at is null and new.first_response_at is not null then 'first_response'
         when tg_op = 'UPDATE' and new.status = 'solved' and old.status not in ('solved', 'closed') then 'resolution'
    end::public.sla_target,
    case when tg_op = 'UPDATE' and old.first_response_at is null then coalesce(new.first_response_at, now()) else now() end);
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION public.assignment_members(p_workspace_id uuid)
 RETURNS TABLE(user_id uuid, available boolean, open bigint)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
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

CREATE OR REPLACE FUNCTION public.record_sla_breaches()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  n integer;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  with due as (
    select s.ticket_id from public.ticket_sla s
     where s.due_at is not null and s.breached_at is null and s.due_at <= now()
     order by s.due_at
     limit 5000
     for no key update skip locked
  ), seen as (
    update public.ticket_sla s set breached_at = now() from due where s.ticket_id = due.ticket_id
    returning s.*
  ), missed as (
    insert into public.sla_outcomes (ticket_id, workspace_id, target, started_at, due_at, decided_at, met, priority, assignee_id)
    select seen.ticket_id, seen.workspace_id, seen.target, seen.started_at, seen.due_at, now(), false, t.priority, t.assignee_id
      from seen join public.tickets t on t.id = seen.ticket_id
    on conflict (ticket_id, target, started_at) do nothing
  )
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
  select seen.ticket_id, seen.workspace_id, null, 'sla_breach', seen.due_at::text, seen.target::text from seen;
  get diagnostics n = row_count;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION public.save_assignment_settings(p_workspace_id uuid, p_mode assignment_mode, p_max_open integer DEFAULT NULL::integer)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
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
  -- Due times in business hours move with the hours.
  perform private.sla_refresh_workspace(p_workspace_id);
end $function$
;

CREATE OR REPLACE FUNCTION public.save_sla_targets(p_workspace_id uuid, p_targets jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION public.set_availability(p_workspace_id uuid, p_available boolean)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_member(p_workspace_id) or p_available is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  insert into public.member_availability (workspace_id, user_id, available) values (p_workspace_id, auth.uid(), p_available)
  on conflict (workspace_id, user_id) do update set available = excluded.available, changed_at = now();
  if p_available then
    perform private.auto_assign_waiting(p_workspace_id);
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION public.sla_report(p_slug text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date, p_days integer DEFAULT NULL::integer)
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
end $function$
;

CREATE OR REPLACE FUNCTION private.inbox_view_filter(p_view text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case p_view
    when 'unassigned' then 't.assignee_id is null and private.is_open(t.status)'
    when 'mine' then 't.assignee_id = $1 and private.is_backlog(t.status)'
    when 'open' then 'private.is_open(t.status)'
    when 'pending' then 't.status = ''pending'''
    when 'solved' then 't.status = ''solved'''
    when 'all' then 'true'
    -- Tickets with a promise running (90_promises.sql); listed soonest due first.
    when 'breaching' then 'exists (select 1 from public.ticket_sla s where s.ticket_id = t.id and s.due_at is not null)'
  end
$function$
;

CREATE OR REPLACE FUNCTION public.inbox(p_slug text, p_view text DEFAULT 'unassigned'::text, p_query text DEFAULT NULL::text, p_status text DEFAULT NULL::text, p_priority text DEFAULT NULL::text, p_assignee text DEFAULT NULL::text, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid, p_before_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_before_id uuid DEFAULT NULL::uuid, p_limit integer DEFAULT 25)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
  -- The search's window, cap and notes set scale with the page (1 000, 10 000 and 1 000 for 25 rows):
  -- a page of one reaches every step at small scale (tests/integration/db-search.test.ts).
  search_window integer := 40 * p_limit;
  search_cap integer := least(400 * p_limit, 20000);
  search_notes integer := 40 * p_limit;
  note_tickets uuid[] := '{}';
  pins text := '';
  match text;
  stmt text;
  candidates uuid[] := '{}';
  cursor_at timestamptz := coalesce(p_after_at, p_before_at);
  cursor_id uuid := coalesce(p_after_id, p_before_id);
  search_timed_out boolean := false;
  search_plan text;
  -- A query that is an email address also finds that requester's tickets; one that is a number
  -- names a ticket, which the page opens (ticket_number).
  requester uuid;
  ticket_number integer;
  newer boolean := p_before_at is not null and p_before_id is not null;
  older boolean := not newer and p_after_at is not null and p_after_id is not null;
  page_ids uuid[];
  has_more boolean;
  result jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  my_role := member.role;
  -- Up to 1 000 a call: the CSV export streams its pages through here (25 on screen).
  if view_sql is null or p_limit not between 1 and 1000 then
    raise exception using errcode = 'P0001', message = 'bad_request';
  end if;
  -- Filters from the URL: a status, priority or assignee id that isn't one is a bad request.
  begin
    status_filter := p_status::public.ticket_status;
    priority_filter := p_priority::public.ticket_priority;
    assignee := case when p_assignee <> 'none' then p_assignee::uuid end;
  exception when invalid_text_representation then
    raise exception using errcode = 'P0001', message = 'bad_request';
  end;

  -- "Breaching soon" is one page, soonest due first: no cursors.
  if p_view = 'breaching' then
    newer := false;
    older := false;
  end if;

  -- $1 me, $2 workspace, $3 status, $4 priority, $5 assignee, $6 query, $7/$8 cursor, $9 page size + 1,
  -- $10 the requester an email address names, $11 search candidates, $12 tickets of matching notes
  base := 't.workspace_id = $2 and ' || view_sql
    || case when p_status is not null then ' and t.status = $3' else '' end
    || case when p_priority is not null then ' and t.priority = $4' else '' end
    || case when p_assignee = 'none' then ' and t.assignee_id is null' when assignee is not null then ' and t.assignee_id = $5' else '' end
    || case when older then ' and (t.last_message_at, t.id) < ($7, $8)' when newer then ' and (t.last_message_at, t.id) > ($7, $8)' else '' end;

  dir := case when newer then 'asc' else 'desc' end;
  if coalesce(btrim(p_query), '') <> '' then
    q := websearch_to_tsquery('english'::regconfig, p_query);
  end if;
  if p_query ~ '^\s*[^\s@]+@[^\s@]+\s*$' then
    select u.id into requester from auth.users u where u.email = lower(btrim(p_query)) and not u.is_sso_user;
  end if;
  if p_query ~ '^\s*#?\d{1,9}\s*$' then
    select t.number into ticket_number from public.tickets t
     where t.workspace_id = ws.id and t.number = (regexp_replace(p_query, '[^0-9]', '', 'g'))::integer;
  end if;
  if q is not null and numnode(q) = 0 and requester is null then
    -- Only stop words ("the") or punctuation: nothing can match, and an empty query would make the
    -- GIN path below read every ticket.
    page_ids := '{}';
  elsif q is not null then
    -- A ticket matches by its subject and public replies (tickets.search), its internal notes (their
    -- own GIN index) or, for an email address, its requester. The planner can't tell a common word
    -- from a rare or absent one, and each needs another plan (docs/decisions/008-inbox-in-one-call.md); at 1 M tickets the wrong one
    -- reads every ticket. So, in three steps, each with its plan pinned:
    --  1. the view's newest SEARCH_WINDOW tickets, in order: a common word fills the page there;
    --  2. else every match from the GIN indexes, sorted, if there are at most SEARCH_CAP of them
    --     (rare and absent words: a few index pages);
    --  3. else the view in order until the page is full (a word in 1-3 % of the view: a few thousand rows).
    -- Notes: the tickets of at most SEARCH_NOTES matching notes are fetched first (GIN) and tested as a
    -- set; more notes than that (a common word), each ticket's are looked up by messages_ticket_idx,
    -- as a scalar subquery with a limit (as an exists, the planner would hash every matching note first).
    -- An email address's requester: that requester's newest tickets in the view, merged with the rest.
    -- $12: the tickets of the matching notes, when they are few.
    begin
      perform set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true);
      pins := 'bitmap';
      stmt := format('select array(select m.ticket_id from public.messages m where m.workspace_id = $2 and m.kind = ''note'''
        || ' and to_tsvector(''english''::regconfig, m.body) @@ $6 limit %s)', search_notes + 1);
      execute stmt into note_tickets
        using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets;
      perform set_config('enable_indexscan', 'on', true), set_config('enable_seqscan', 'on', true);
      pins := '';
      match := '(t.search @@ $6 or ' || case when cardinality(note_tickets) <= search_notes then 't.id = any ($12)'
        else 'coalesce((select true from public.messages m where m.ticket_id = t.id and m.kind = ''note'''
          || ' and to_tsvector(''english''::regconfig, m.body) @@ $6 limit 1), false)' end || ')';
      stmt := format(
        'select array(select t.id from (select t.id, t.last_message_at, t.search from public.tickets t where %2$s'
        || ' order by t.last_message_at %1$s, t.id %1$s limit %3$s) t where %4$s order by t.last_message_at %1$s, t.id %1$s limit $9)',
        dir, base, search_window, match);
      execute stmt into page_ids
        using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets;
      if cardinality(page_ids) <= p_limit then
        -- Step 2 through the GIN indexes only (bitmap scans): never a walk of the view testing each row.
        perform set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true);
        pins := 'bitmap';
        stmt := format('select array(select t.id from public.tickets t where %s and t.search @@ $6 limit %s)', base, search_cap + 1);
        execute stmt into candidates
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets;
        if cardinality(candidates) <= search_cap and cardinality(note_tickets) <= search_notes then
          candidates := candidates || note_tickets;
        elsif cardinality(candidates) <= search_cap then
          stmt := format('select $11 || array(select m.ticket_id from public.messages m where m.workspace_id = $2 and m.kind = ''note'''
            || ' and to_tsvector(''english''::regconfig, m.body) @@ $6 limit %s)', search_cap + 1);
          execute stmt into candidates
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets;
        end if;
        perform set_config('enable_indexscan', 'on', true), set_config('enable_seqscan', 'on', true);
        pins := '';
        if cardinality(candidates) <= search_cap then
          stmt := format(
            'select array(select t.id from public.tickets t where t.id = any ($11) and %2$s order by t.last_message_at %1$s, t.id %1$s limit $9)',
            dir, base);
        else
          -- Step 3: the view's own index, in order (no sort of every match, no full scan).
          perform set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true);
          pins := 'ordered';
          stmt := format(
            'select array(select t.id from public.tickets t where %2$s and %3$s order by t.last_message_at %1$s, t.id %1$s limit $9)',
            dir, base, match);
        end if;
        execute stmt into page_ids
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets;
        perform set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'on', true), set_config('enable_sort', 'on', true);
        pins := '';
      end if;
      if requester is not null then
        -- The requester's newest tickets in the view (tickets_requester_idx), merged with the matches.
        stmt := format(
          'select array(select u.id from ((select t.id, t.last_message_at from public.tickets t where t.id = any ($11))'
          || ' union (select t.id, t.last_message_at from public.tickets t where t.requester_id = $10 and %2$s'
          || ' order by t.last_message_at %1$s, t.id %1$s limit $9)) u order by u.last_message_at %1$s, u.id %1$s limit $9)', dir, base);
        candidates := page_ids;
        execute stmt into page_ids
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets;
      end if;
    exception when query_canceled then
      -- The statement timeout (57014) struck in the search: an empty page that says so
      -- (search_timeout), and the plan of the statement it stopped, without running it, for the log.
      -- The plan settings of the step are rolled back with it.
      search_timed_out := true;
      page_ids := '{}';
      search_plan := concat_ws(E'\n', stmt, private.inbox_search_plan(stmt, pins,
        me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets));
    end;
  elsif p_view = 'breaching' then
    -- Soonest due first, one page (ticket_sla_due_idx): the view has no further pages.
    execute format(
      'select array(select t.id from public.ticket_sla s join public.tickets t on t.id = s.ticket_id'
      || ' where s.workspace_id = $2 and s.due_at is not null and %s order by s.due_at, t.id limit $9)', base)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, null::timestamptz, null::uuid, p_limit + 1;
  else
    execute format(
      'select array(select t.id from public.tickets t where %2$s order by t.last_message_at %1$s, t.id %1$s limit $9)', dir, base)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, coalesce(p_after_at, p_before_at), coalesce(p_after_id, p_before_id), p_limit + 1;
  end if;
  page_ids := coalesce(page_ids, '{}');
  -- One row past the page says whether there is another page in that direction.
  has_more := cardinality(page_ids) > p_limit and p_view <> 'breaching';
  page_ids := page_ids[1:p_limit];
  if newer then
    page_ids := array(select x from unnest(page_ids) with ordinality u(x, i) order by i desc);
  end if;

  select jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', my_role,
    'ticket_number', ticket_number,
    -- Automatic assignment (90_promises.sql): the workspace's mode and whether I am available.
    'assignment', coalesce((select c.mode from public.assignment_settings c where c.workspace_id = ws.id), 'off'),
    'available', coalesce((select a.available from public.member_availability a where a.workspace_id = ws.id and a.user_id = me), true),
    -- The statement timeout struck in the search (search_timeout): the plan of the statement, for the log.
    'search_timeout', case when search_timed_out then coalesce(search_plan, '') end,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role, 'name', coalesce(p.display_name, 'Unknown'))
                                          order by coalesce(p.display_name, 'Unknown'), m.user_id), '[]')
                  from public.memberships m left join public.profiles p on p.user_id = m.user_id
                 where m.workspace_id = ws.id),
    'counts', (select jsonb_build_object(
                 'unassigned', coalesce(sum(c.n) filter (where c.assignee_id is null and private.is_open(c.status)), 0),
                 'mine', coalesce(sum(c.n) filter (where c.assignee_id = me and private.is_backlog(c.status)), 0),
                 'open', coalesce(sum(c.n) filter (where private.is_open(c.status)), 0),
                 'pending', coalesce(sum(c.n) filter (where c.status = 'pending'), 0),
                 'solved', coalesce(sum(c.n) filter (where c.status = 'solved'), 0),
                 'all', coalesce(sum(c.n), 0))
                 from private.ticket_tallies c where c.workspace_id = ws.id),
    -- Without a search the view's total, filters included, is exact from the tallies too.
    'total', case when q is null and p_view <> 'breaching' then (
               select coalesce(sum(c.n), 0) from private.ticket_tallies c
                where c.workspace_id = ws.id
                  and case p_view
                        when 'unassigned' then c.assignee_id is null and private.is_open(c.status)
                        when 'mine' then c.assignee_id = me and private.is_backlog(c.status)
                        when 'open' then private.is_open(c.status)
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
                   'last_message_at', t.last_message_at, 'due_at', s.due_at, 'warn_at', s.warn_at) order by u.i), '[]')
                  from unnest(page_ids) with ordinality u(id, i)
                  join public.tickets t on t.id = u.id
                  left join public.ticket_sla s on s.ticket_id = t.id
                  left join public.profiles rp on rp.user_id = t.requester_id
                  left join public.profiles ap on ap.user_id = t.assignee_id),
    -- Cursors: "older" continues after the last row, "newer" goes back before the first.
    'older', case when cardinality(page_ids) > 0 and (has_more or newer) then
               (select jsonb_build_object('at', t.last_message_at, 'id', t.id) from public.tickets t where t.id = page_ids[cardinality(page_ids)]) end,
    'newer', case when cardinality(page_ids) > 0 and (older or (newer and has_more)) then
               (select jsonb_build_object('at', t.last_message_at, 'id', t.id) from public.tickets t where t.id = page_ids[1]) end
  ) into result;
  return result;
end $function$
;

CREATE OR REPLACE FUNCTION public.ticket_page(p_slug text, p_number integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', my_role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role) order by m.user_id), '[]')
                  from public.memberships m where m.workspace_id = ws.id),
    'ticket', jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                                 'requester_id', t.requester_id, 'assignee_id', t.assignee_id, 'created_at', t.created_at,
                                 'first_response_at', t.first_response_at, 'solved_at', t.solved_at),
    -- The promise running, if any (90_promises.sql): the header's due-time badge.
    'sla', (select jsonb_build_object('target', s.target, 'due_at', s.due_at, 'warn_at', s.warn_at)
              from public.ticket_sla s where s.ticket_id = t.id and s.due_at is not null),
    'messages', (select coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'kind', m.kind, 'body', m.body, 'created_at', m.created_at,
                                                              'author_id', m.author_id,
                                                              'attachments', (select coalesce(jsonb_agg(jsonb_build_object(
                                                                  'id', a.id, 'file_name', a.file_name, 'size', a.size, 'mime_type', a.mime_type)
                                                                  order by a.created_at, a.file_name), '[]')
                                                                from public.attachments a where a.message_id = m.id))
                                                   order by m.created_at, m.id), '[]')
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
end $function$
;


  create policy "members read their workspace's assignment"
  on "public"."assignment_settings"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



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



  create policy "members read who is available"
  on "public"."member_availability"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read their workspace's outcomes"
  on "public"."sla_outcomes"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read their workspace's targets"
  on "public"."sla_targets"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read their tickets' promises"
  on "public"."ticket_sla"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));


CREATE TRIGGER holidays_sla AFTER INSERT OR DELETE ON public.holidays FOR EACH ROW EXECUTE FUNCTION private.sla_holidays_changed();

CREATE TRIGGER messages_sla AFTER INSERT ON public.messages FOR EACH ROW EXECUTE FUNCTION private.sla_message_posted();

CREATE TRIGGER tickets_reroute AFTER UPDATE OF status ON public.tickets FOR EACH ROW WHEN (((old.status = ANY (ARRAY['pending'::ticket_status, 'solved'::ticket_status])) AND (new.status = 'open'::ticket_status))) EXECUTE FUNCTION private.assign_on_arrival();

CREATE TRIGGER tickets_route AFTER INSERT ON public.tickets FOR EACH ROW WHEN ((new.assignee_id IS NULL)) EXECUTE FUNCTION private.assign_on_arrival();

CREATE TRIGGER tickets_sla AFTER INSERT OR UPDATE OF status, priority, first_response_at ON public.tickets FOR EACH ROW EXECUTE FUNCTION private.sla_ticket_changed();

alter publication supabase_realtime add table public.ticket_sla;
grant insert (day) on table public.holidays to authenticated;
grant insert (name) on table public.holidays to authenticated;
grant insert (workspace_id) on table public.holidays to authenticated;
revoke delete on table public.assignment_settings from anon;
revoke delete on table public.assignment_settings from authenticated;
revoke delete on table public.business_hours from anon;
revoke delete on table public.business_hours from authenticated;
revoke delete on table public.holidays from anon;
revoke delete on table public.member_availability from anon;
revoke delete on table public.member_availability from authenticated;
revoke delete on table public.sla_outcomes from anon;
revoke delete on table public.sla_outcomes from authenticated;
revoke delete on table public.sla_targets from anon;
revoke delete on table public.sla_targets from authenticated;
revoke delete on table public.ticket_sla from anon;
revoke delete on table public.ticket_sla from authenticated;
revoke execute on function private.assign_on_arrival() from public;
revoke execute on function private.auto_assign(p_ticket_id uuid) from public;
revoke execute on function private.auto_assign_waiting(p_workspace_id uuid) from public;
revoke execute on function private.business_minutes_add(p_workspace_id uuid, p_at timestamp with time zone, p_minutes numeric) from public;
revoke execute on function private.business_minutes_between(p_workspace_id uuid, p_from timestamp with time zone, p_to timestamp with time zone) from public;
revoke execute on function private.business_periods(p_workspace_id uuid, p_from timestamp with time zone, p_to timestamp with time zone) from public;
revoke execute on function private.by_tend(p_ticket_id uuid) from public;
revoke execute on function private.sla_add(p_workspace_id uuid, p_business boolean, p_from timestamp with time zone, p_minutes numeric) from public;
revoke execute on function private.sla_due_of(t tickets, g sla_targets, s ticket_sla, p_target sla_target, p_share numeric) from public;
revoke execute on function private.sla_holidays_changed() from public;
revoke execute on function private.sla_message_posted() from public;
revoke execute on function private.sla_refresh(p_ticket_id uuid, p_met sla_target, p_met_at timestamp with time zone) from public;
revoke execute on function private.sla_refresh_workspace(p_workspace_id uuid) from public;
revoke execute on function private.sla_ticket_changed() from public;
revoke execute on function public.assignment_members(p_workspace_id uuid) from anon;
revoke execute on function public.assignment_members(p_workspace_id uuid) from public;
revoke execute on function public.next_opening(p_workspace_id uuid, p_at timestamp with time zone) from anon;
revoke execute on function public.next_opening(p_workspace_id uuid, p_at timestamp with time zone) from public;
revoke execute on function public.record_sla_breaches() from anon;
revoke execute on function public.record_sla_breaches() from authenticated;
revoke execute on function public.record_sla_breaches() from public;
revoke execute on function public.save_assignment_settings(p_workspace_id uuid, p_mode assignment_mode, p_max_open integer) from anon;
revoke execute on function public.save_assignment_settings(p_workspace_id uuid, p_mode assignment_mode, p_max_open integer) from public;
revoke execute on function public.save_business_hours(p_workspace_id uuid, p_periods jsonb) from anon;
revoke execute on function public.save_business_hours(p_workspace_id uuid, p_periods jsonb) from public;
revoke execute on function public.save_sla_targets(p_workspace_id uuid, p_targets jsonb) from anon;
revoke execute on function public.save_sla_targets(p_workspace_id uuid, p_targets jsonb) from public;
revoke execute on function public.set_availability(p_workspace_id uuid, p_available boolean) from anon;
revoke execute on function public.set_availability(p_workspace_id uuid, p_available boolean) from public;
revoke execute on function public.sla_report(p_slug text, p_from date, p_to date, p_days integer) from anon;
revoke execute on function public.sla_report(p_slug text, p_from date, p_to date, p_days integer) from public;
revoke insert on table public.assignment_settings from anon;
revoke insert on table public.assignment_settings from authenticated;
revoke insert on table public.business_hours from anon;
revoke insert on table public.business_hours from authenticated;
revoke insert on table public.holidays from anon;
revoke insert on table public.holidays from authenticated;
revoke insert on table public.member_availability from anon;
revoke insert on table public.member_availability from authenticated;
revoke insert on table public.sla_outcomes from anon;
revoke insert on table public.sla_outcomes from authenticated;
revoke insert on table public.sla_targets from anon;
revoke insert on table public.sla_targets from authenticated;
revoke insert on table public.ticket_sla from anon;
revoke insert on table public.ticket_sla from authenticated;
revoke maintain on table public.assignment_settings from anon;
revoke maintain on table public.business_hours from anon;
revoke maintain on table public.holidays from anon;
revoke maintain on table public.member_availability from anon;
revoke maintain on table public.sla_outcomes from anon;
revoke maintain on table public.sla_targets from anon;
revoke maintain on table public.ticket_sla from anon;
revoke references on table public.assignment_settings from anon;
revoke references on table public.business_hours from anon;
revoke references on table public.holidays from anon;
revoke references on table public.member_availability from anon;
revoke references on table public.sla_outcomes from anon;
revoke references on table public.sla_targets from anon;
revoke references on table public.ticket_sla from anon;
revoke select on table public.assignment_settings from anon;
revoke select on table public.business_hours from anon;
revoke select on table public.holidays from anon;
revoke select on table public.member_availability from anon;
revoke select on table public.sla_outcomes from anon;
revoke select on table public.sla_targets from anon;
revoke select on table public.ticket_sla from anon;
revoke trigger on table public.assignment_settings from anon;
revoke trigger on table public.business_hours from anon;
revoke trigger on table public.holidays from anon;
revoke trigger on table public.member_availability from anon;
revoke trigger on table public.sla_outcomes from anon;
revoke trigger on table public.sla_targets from anon;
revoke trigger on table public.ticket_sla from anon;
revoke truncate on table public.assignment_settings from anon;
revoke truncate on table public.business_hours from anon;
revoke truncate on table public.holidays from anon;
revoke truncate on table public.member_availability from anon;
revoke truncate on table public.sla_outcomes from anon;
revoke truncate on table public.sla_targets from anon;
revoke truncate on table public.ticket_sla from anon;
revoke update on table public.assignment_settings from anon;
revoke update on table public.assignment_settings from authenticated;
revoke update on table public.business_hours from anon;
revoke update on table public.business_hours from authenticated;
revoke update on table public.holidays from anon;
revoke update on table public.holidays from authenticated;
revoke update on table public.member_availability from anon;
revoke update on table public.member_availability from authenticated;
revoke update on table public.sla_outcomes from anon;
revoke update on table public.sla_outcomes from authenticated;
revoke update on table public.sla_targets from anon;
revoke update on table public.sla_targets from authenticated;
revoke update on table public.ticket_sla from anon;
revoke update on table public.ticket_sla from authenticated;

grant insert (day) on table public.holidays to authenticated;
grant insert (name) on table public.holidays to authenticated;
grant insert (workspace_id) on table public.holidays to authenticated;

-- The breach sweep, every minute (supabase/schemas/90_promises.sql); db diff doesn't see schedules.
select cron.schedule('sla-breaches', '* * * * *', 'select public.record_sla_breaches()');
