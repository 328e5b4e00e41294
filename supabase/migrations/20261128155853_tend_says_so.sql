alter table "public"."tickets" drop constraint "tickets_assignee_id_fkey";

alter table "public"."tickets" drop constraint "tickets_requester_id_fkey";

drop function if exists "private"."by_rules"(p_ticket_id uuid, p_mark bigint);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.tend_act(p_ticket_id uuid, p_what text)
 RETURNS text
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  before text := coalesce(current_setting('private.tend_acting', true), '');
begin
  perform set_config('private.tend_acting', pg_current_xact_id()::text || ' ' || p_ticket_id || ' ' || p_what, true);
  return before;
end $function$
;

CREATE OR REPLACE FUNCTION private.tend_acting(OUT ticket_id uuid, OUT what text)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  v text[] := string_to_array(nullif(current_setting('private.tend_acting', true), ''), ' ');
begin
  if v[1] = pg_current_xact_id_if_assigned()::text then
    ticket_id := v[2]::uuid;
    what := v[3];
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION private.tend_done(p_before text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  perform set_config('private.tend_acting', p_before, true);
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
  said text;
begin
  select * into t from public.tickets where id = p_ticket_id;
  select * into cfg from public.assignment_settings where workspace_id = t.workspace_id for no key update;
  if cfg.mode is null or cfg.mode = 'off' or t.assignee_id is not null or not private.is_open(t.status)
     or t.spam_at is not null or t.trashed_at is not null then
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
    if (private.tend_acting()).ticket_id is distinct from t.id then
      said := private.tend_act(t.id, 'assignment');
    end if;
    update public.tickets set assignee_id = chosen where id = t.id;
    if said is not null then
      perform private.tend_done(said);
    end if;
    update public.assignment_settings set last_assignee_id = chosen where workspace_id = t.workspace_id;
  end if;
  return chosen;
end $function$
;

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
end $function$
;

CREATE OR REPLACE FUNCTION private.notify_assignee()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if auth.role() is not null and new.assignee_id is not null
     and (tg_op = 'INSERT' or new.assignee_id is distinct from old.assignee_id) then
    if (private.tend_acting()).ticket_id is distinct from new.id then
      perform private.notify_member(new.workspace_id, new.assignee_id, 'assigned', new.id);
    elsif new.assignee_id is distinct from auth.uid() then
      perform private.notify_member(new.workspace_id, new.assignee_id, 'assigned', new.id, null, null);
    end if;
  end if;
  return null;
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
  said text;
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
    if said is null then
      said := private.tend_act(p_ticket_id, 'rules');
    end if;
    if private.rule_fire(r, p_ticket_id, p_event_key, body) then
      n := n + 1;
    end if;
  end loop;
  if said is not null then
    perform private.tend_done(said);
  end if;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_changes_history()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_history()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_tag_history()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  actor uuid := auth.uid();
  tend record := private.tend_acting();
begin
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  -- A rule's tag is Tend's (private.tend_acting).
  select r.ticket_id, r.workspace_id, case when r.ticket_id = tend.ticket_id then null else actor end,
         case when tg_op = 'INSERT' then 'tag_added' else 'tag_removed' end, g.name
    from (select x.*, row_number() over () as i from changed_tags x) r
    join public.tags g on g.id = r.tag_id
   where exists (select 1 from public.tickets t where t.id = r.ticket_id)
   order by r.i;
  -- Not when this transaction changed the ticket already (its updated_at is now(): a new ticket a rule
  -- tags, a second tag): that change reloads the pages at the same commit. Nor the statement at all then:
  -- an update of no rows still runs the tickets' statement triggers (docs/decisions/090-create-path-cpu.md).
  if exists (select 1 from changed_tags x join public.tickets t on t.id = x.ticket_id where t.updated_at <> now()) then
    update public.tickets t set updated_at = now()
     where t.id in (select x.ticket_id from changed_tags x join public.tags g on g.id = x.tag_id) and t.updated_at <> now();
  end if;
  return null;
end $function$
;

revoke execute on function private.tend_act(p_ticket_id uuid, p_what text) from public;
revoke execute on function private.tend_acting(OUT ticket_id uuid, OUT what text) from public;
revoke execute on function private.tend_done(p_before text) from public;
