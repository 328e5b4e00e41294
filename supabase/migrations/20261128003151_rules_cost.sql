drop function if exists "private"."sla_add"(p_workspace_id uuid, p_business boolean, p_from timestamp with time zone, p_minutes numeric);

drop function if exists "private"."sla_due_of"(t tickets, g sla_targets, s ticket_sla, p_target sla_target, p_share numeric);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.business_minutes_add_each(p_workspace_id uuid, p_at timestamp with time zone, p_minutes numeric[])
 RETURNS timestamp with time zone[]
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  instants timestamptz[] := '{}';
  k integer := 1;
  n integer := coalesce(array_length(p_minutes, 1), 0);
  passed numeric := 0;
  window_start timestamptz := p_at;
  window_end timestamptz;
  p record;
  len numeric;
begin
  while k <= n and p_minutes[k] <= 0 loop
    instants := instants || p_at;
    k := k + 1;
  end loop;
  for i in 1..46 loop
    exit when k > n;
    window_end := window_start + make_interval(secs => 8 * 86400);
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
  end loop;
  return instants || array_fill(null::timestamptz, array[n - k + 1]);
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_add(p_workspace_id uuid, p_business boolean, p_from timestamp with time zone, p_minutes numeric[])
 RETURNS timestamp with time zone[]
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p_business then
    return private.business_minutes_add_each(p_workspace_id, p_from, p_minutes);
  end if;
  return array(select p_from + make_interval(secs => (m.n * 60)::double precision)
                 from unnest(p_minutes) with ordinality m(n, i) order by m.i);
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_due_of(t tickets, g sla_targets, s ticket_sla, p_target sla_target, p_shares numeric[] DEFAULT '{1}'::numeric[])
 RETURNS timestamp with time zone[]
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.business_minutes_add(p_workspace_id uuid, p_at timestamp with time zone, p_minutes numeric)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (private.business_minutes_add_each(p_workspace_id, p_at, array[p_minutes]))[1];
end $function$
;

CREATE OR REPLACE FUNCTION private.by_tend(p_ticket_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.ticket_events set actor_id = null
   where id = (select max(e.id) from public.ticket_events e where e.ticket_id = p_ticket_id and e.type = 'assignee');
end $function$
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
      from (select n.workspace_id, private.report_slot(n.created_at) as slot, 1 as created, 0 as solved from new_tickets n where n.spam_at is null and n.trashed_at is null
            union all
            select n.workspace_id, private.report_slot(n.solved_at), 0, 1 from new_tickets n where n.spam_at is null and n.trashed_at is null and n.solved_at is not null) d
     group by 1, 2 order by 1, 2
    on conflict (workspace_id, slot) do update set created = s.created + excluded.created, solved = s.solved + excluded.solved;
    insert into private.report_durations as r (workspace_id, kind, span, day, bucket, tickets, seconds)
    select d.workspace_id, d.kind, p.span, p.day, private.report_bucket(d.seconds), count(*), sum(d.seconds)
      from (select n.workspace_id, 'first_response' as kind, n.first_response_at as at,
                   private.report_seconds(n.created_at, n.first_response_at) as seconds
              from new_tickets n where n.spam_at is null and n.trashed_at is null and n.first_response_at is not null
            union all
            select n.workspace_id, 'resolution', n.solved_at, private.report_seconds(n.created_at, n.solved_at)
              from new_tickets n where n.spam_at is null and n.trashed_at is null and n.solved_at is not null) d
      join public.workspaces w on w.id = d.workspace_id
      cross join lateral private.report_spans((d.at at time zone w.time_zone)::date) p
     group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, kind, span, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
  elsif tg_op = 'UPDATE' then
    -- Most updates (an assignment, a priority, a status short of solved, the latest message's time) move
    -- no rollup: one look at the changed rows, not the two upserts' queries (docs/decisions/069-rules-cost.md).
    if not exists (select 1 from new_tickets n join old_tickets o using (id)
                    where (n.created_at, n.solved_at, n.first_response_at, n.spam_at is null, n.trashed_at is null)
                          is distinct from (o.created_at, o.solved_at, o.first_response_at, o.spam_at is null, o.trashed_at is null)) then
      return null;
    end if;
    -- A ticket in Spam or Trash counts nowhere (54_spam_trash_split.sql): its times are read as empty, so
    -- going there takes it out of the rollups and coming back puts it in again.
    insert into private.report_slots as s (workspace_id, slot, created, solved)
    with n as (select x.id, x.workspace_id, case when x.spam_at is null and x.trashed_at is null then x.created_at end as created_at,
                    case when x.spam_at is null and x.trashed_at is null then x.solved_at end as solved_at,
                    case when x.spam_at is null and x.trashed_at is null then x.first_response_at end as first_response_at from new_tickets x),
         o as (select x.id, x.workspace_id, case when x.spam_at is null and x.trashed_at is null then x.created_at end as created_at,
                    case when x.spam_at is null and x.trashed_at is null then x.solved_at end as solved_at,
                    case when x.spam_at is null and x.trashed_at is null then x.first_response_at end as first_response_at from old_tickets x)
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
    with n as (select x.id, x.workspace_id, case when x.spam_at is null and x.trashed_at is null then x.created_at end as created_at,
                    case when x.spam_at is null and x.trashed_at is null then x.solved_at end as solved_at,
                    case when x.spam_at is null and x.trashed_at is null then x.first_response_at end as first_response_at from new_tickets x),
         o as (select x.id, x.workspace_id, case when x.spam_at is null and x.trashed_at is null then x.created_at end as created_at,
                    case when x.spam_at is null and x.trashed_at is null then x.solved_at end as solved_at,
                    case when x.spam_at is null and x.trashed_at is null then x.first_response_at end as first_response_at from old_tickets x)
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
              from (select workspace_id, private.report_slot(created_at) as slot, 1 as created, 0 as solved from old_tickets where spam_at is null and trashed_at is null
                    union all
                    select workspace_id, private.report_slot(solved_at), 0, 1 from old_tickets where spam_at is null and trashed_at is null and solved_at is not null) o
             group by 1, 2) d
     where s.workspace_id = d.workspace_id and s.slot = d.slot;
    update private.report_durations r set tickets = r.tickets - d.tickets, seconds = r.seconds - d.seconds
      from (select o.workspace_id, o.kind, p.span, p.day, private.report_bucket(o.seconds) as bucket,
                   count(*) as tickets, sum(o.seconds) as seconds
              from (select workspace_id, 'first_response' as kind, first_response_at as at, private.report_seconds(created_at, first_response_at) as seconds
                      from old_tickets where spam_at is null and trashed_at is null and first_response_at is not null
                    union all
                    select workspace_id, 'resolution', solved_at, private.report_seconds(created_at, solved_at)
                      from old_tickets where spam_at is null and trashed_at is null and solved_at is not null) o
              join public.workspaces w on w.id = o.workspace_id
              cross join lateral private.report_spans((o.at at time zone w.time_zone)::date) p
             group by 1, 2, 3, 4, 5) d
     where r.workspace_id = d.workspace_id and r.kind = d.kind and r.span = d.span and r.day = d.day and r.bucket = d.bucket;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_fire(r rules, p_ticket_id uuid, p_event_key text, p_body text)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  mark bigint;
  a jsonb;
begin
  select * into t from public.tickets where id = p_ticket_id for no key update;
  if t.id is null or t.status = 'closed' or not private.rule_matches(r, t, p_body) then
    return false;
  end if;
  insert into public.rule_firings (rule_id, ticket_id, workspace_id, event_key) values (r.id, t.id, t.workspace_id, p_event_key)
  on conflict do nothing;
  if not found then
    return false;
  end if;
  if auth.uid() is not null then
    select coalesce(max(e.id), 0) into mark from public.ticket_events e where e.ticket_id = t.id;
  end if;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to") values (t.id, t.workspace_id, null, 'rule', r.name);
  for a in select j.v from jsonb_array_elements(r.actions) j(v) loop
    perform private.rule_act(r, t.id, a);
  end loop;
  -- (Nobody's request, the sweep's: what the actions wrote names no one already.)
  if mark is not null then
    update public.ticket_events set actor_id = null where ticket_id = t.id and id > mark and actor_id is not null;
    update public.notifications set actor_id = null
     where ticket_id = t.id and kind = 'assigned' and created_at = now() and actor_id is not distinct from auth.uid();
  end if;
  return true;
end $function$
;

CREATE OR REPLACE FUNCTION private.run_rules(p_ticket_id uuid, p_event text, p_event_key text)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  r public.rules;
  body text;
  n integer := 0;
begin
  for r in select x.* from public.rules x
            where x.workspace_id = (select t.workspace_id from public.tickets t where t.id = p_ticket_id)
              and x.event = p_event and x.enabled
            order by x.position, x.id loop
    -- The body is read once, and only for a rule whose conditions look at it.
    if body is null and r.conditions @> '[{"field": "body"}]' then
      body := private.rule_body(p_ticket_id, p_event);
    end if;
    if private.rule_fire(r, p_ticket_id, p_event_key, body) then
      n := n + 1;
    end if;
  end loop;
  return n;
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
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_ticket_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  -- Named in the update without a change (a message's bookkeeping sets first_response_at to itself): the
  -- promise is as it was (docs/decisions/069-rules-cost.md).
  if tg_op = 'UPDATE' and (new.status, new.priority, new.first_response_at, new.spam_at, new.trashed_at)
                          is not distinct from (old.status, old.priority, old.first_response_at, old.spam_at, old.trashed_at) then
    return null;
  end if;
  perform private.sla_refresh(new.id,
    case when tg_op = 'UPDATE' and old.first_response_at is null and new.first_response_at is not null then 'first_response'
         when tg_op = 'UPDATE' and new.status = 'solved' and old.status not in ('solved', 'closed') then 'resolution'
    end::public.sla_target,
    case when tg_op = 'UPDATE' and old.first_response_at is null then coalesce(new.first_response_at, now()) else now() end);
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_tag_history()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  r public.ticket_tags := case when tg_op = 'INSERT' then new else old end;
  tag_name text := (select g.name from public.tags g where g.id = r.tag_id);
begin
  if tag_name is null or not exists (select 1 from public.tickets t where t.id = r.ticket_id) then
    return null;
  end if;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  values (r.ticket_id, r.workspace_id, auth.uid(), case when tg_op = 'INSERT' then 'tag_added' else 'tag_removed' end, tag_name);
  -- Not when this transaction changed the ticket already (its updated_at is now(): a new ticket a rule
  -- tags, a second tag): that change reloads the pages at the same commit.
  update public.tickets set updated_at = now() where id = r.ticket_id and updated_at <> now();
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION public.record_sla_breaches()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION public.run_waiting_rules()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  r public.rules;
  w public.rule_waits;
  due timestamptz;
  n integer := 0;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  if auth.role() is null then
    perform set_config('request.jwt.claims', '{"role": "service_role"}', true);
  end if;
  for r in select x.* from public.rules x where x.event = 'ticket_waited' and x.enabled order by x.workspace_id, x.position, x.id loop
    -- A rule being edited right now (its waits about to be replaced) waits for the next run.
    perform 1 from public.rules x where x.id = r.id for share skip locked;
    continue when not found;
    due := private.business_minutes_before(r.workspace_id, now(), r.wait_hours * 60);
    continue when due is null;
    for w in select x.* from public.rule_waits x where x.rule_id = r.id and x.since <= due
              order by x.since limit 1000 - n loop
      -- The ticket first, as a status change takes it before its waits: no deadlock with one. Held by
      -- someone now, or its wait gone meanwhile (a status change, another run): the next run looks.
      perform 1 from public.tickets t where t.id = w.ticket_id for no key update skip locked;
      continue when not found;
      delete from public.rule_waits x where x.ticket_id = w.ticket_id and x.rule_id = w.rule_id and x.since = w.since;
      continue when not found;
      -- The stint, by its start as a number: the same in every session's time zone.
      perform private.rule_fire(r, w.ticket_id, 'waited:' || extract(epoch from w.since)::text,
                                case when r.conditions @> '[{"field": "body"}]' then private.rule_body(w.ticket_id, 'ticket_waited') end);
      n := n + 1;
    end loop;
    exit when n >= 1000;
  end loop;
  return n;
end $function$
;

revoke execute on function private.business_minutes_add_each(p_workspace_id uuid, p_at timestamp with time zone, p_minutes numeric[]) from public;
revoke execute on function private.sla_add(p_workspace_id uuid, p_business boolean, p_from timestamp with time zone, p_minutes numeric[]) from public;
revoke execute on function private.sla_due_of(t tickets, g sla_targets, s ticket_sla, p_target sla_target, p_shares numeric[]) from public;
