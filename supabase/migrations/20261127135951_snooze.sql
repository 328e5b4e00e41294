alter table "public"."ticket_events" drop constraint "ticket_events_type_check";

drop index if exists "private"."ticket_tallies_key";

alter table "private"."ticket_tallies" add column "snoozed" boolean not null default false;

alter table "public"."tickets" add column "snoozed_until" timestamp with time zone;

CREATE INDEX tickets_snoozed_due_idx ON public.tickets USING btree (snoozed_until) WHERE (snoozed_until IS NOT NULL);

CREATE UNIQUE INDEX ticket_tallies_key ON private.ticket_tallies USING btree (workspace_id, status, priority, assignee_id, snoozed) NULLS NOT DISTINCT;

alter table "public"."tickets" add constraint "tickets_snoozed_unsolved" CHECK (((snoozed_until IS NULL) OR private.is_backlog(status))) not valid;

alter table "public"."tickets" validate constraint "tickets_snoozed_unsolved";

alter table "public"."ticket_events" add constraint "ticket_events_type_check" CHECK ((type = ANY (ARRAY['created'::text, 'status'::text, 'assignee'::text, 'priority'::text, 'tag_added'::text, 'tag_removed'::text, 'snoozed'::text, 'unsnoozed'::text]))) not valid;

alter table "public"."ticket_events" validate constraint "ticket_events_type_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.snooze_preset(p_preset text, p_time_zone text, p_now timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case p_preset
    when 'later' then p_now + interval '3 hours'
    when 'tomorrow' then ((p_now at time zone p_time_zone)::date + 1 + time '09:00') at time zone p_time_zone
    -- The next Monday (a week on, on a Monday).
    when 'monday' then ((p_now at time zone p_time_zone)::date
                        + (7 - (extract(isodow from p_now at time zone p_time_zone)::int - 1)) + time '09:00') at time zone p_time_zone
  end
$function$
;

CREATE OR REPLACE FUNCTION private.wake_snoozed_tickets()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  n integer;
begin
  perform private.check_transition('pending', 'open', 'system', 'edit');
  update public.tickets set snoozed_until = null, status = case when status = 'pending' then 'open' else status end
   where id in (select t.id from public.tickets t where t.snoozed_until <= now() for no key update skip locked);
  get diagnostics n = row_count;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION public.snooze_ticket(p_ticket_id uuid, p_preset text DEFAULT NULL::text, p_at timestamp without time zone DEFAULT NULL::timestamp without time zone)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  tz text;
  until timestamptz;
begin
  select * into t from public.tickets where id = p_ticket_id for no key update;
  if t.id is null or not private.is_member(t.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  if p_preset is distinct from 'wake' then
    select w.time_zone into tz from public.workspaces w where w.id = t.workspace_id;
    until := coalesce(private.snooze_preset(p_preset, tz, now()), case when p_preset is null then p_at at time zone tz end);
    if until is null or until <= now() or until > now() + interval '1 year' then
      raise exception using errcode = 'P0001', message = 'snooze_invalid';
    end if;
    if not private.is_backlog(t.status) then
      raise exception using errcode = 'P0001', message = 'ticket_not_snoozable', detail = t.status::text;
    end if;
  end if;
  update public.tickets set snoozed_until = until where id = t.id;
  return until;
end $function$
;

CREATE OR REPLACE FUNCTION private.inbox_view_filter(p_view text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case p_view
    when 'unassigned' then 't.assignee_id is null and private.is_open(t.status) and t.snoozed_until is null'
    when 'mine' then 't.assignee_id = $1 and private.is_backlog(t.status) and t.snoozed_until is null'
    when 'open' then 'private.is_open(t.status) and t.snoozed_until is null'
    when 'pending' then 't.status = ''pending'' and t.snoozed_until is null'
    when 'snoozed' then 't.snoozed_until is not null'
    when 'solved' then 't.status = ''solved'''
    when 'all' then 'true'
  end
$function$
;

CREATE OR REPLACE FUNCTION private.message_bookkeeping()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  member boolean;
begin
  if new.kind = 'note' then
    return null;
  end if;
  select * into t from public.tickets where id = new.ticket_id;
  member := exists (select 1 from public.memberships where workspace_id = t.workspace_id and user_id = new.author_id);
  update public.tickets
     set last_message_at = greatest(last_message_at, new.created_at),
         first_response_at = case when new.author_id <> t.requester_id and member
                                  then coalesce(first_response_at, new.created_at) else first_response_at end,
         search = search || to_tsvector('english', new.body),
         snoozed_until = case when new.author_id = t.requester_id then null else snoozed_until end
   where id = new.ticket_id;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.tally_tickets()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' then
    insert into private.ticket_tallies as t (workspace_id, status, priority, assignee_id, snoozed, n)
    select d.workspace_id, d.status, d.priority, d.assignee_id, d.snoozed_until is not null, count(*)
      from new_tickets d group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, status, priority, assignee_id, snoozed) do update set n = t.n + excluded.n;
  elsif tg_op = 'UPDATE' then
    -- Differences are summed per key first: a statement that moves tickets back and forth nets out.
    insert into private.ticket_tallies as t (workspace_id, status, priority, assignee_id, snoozed, n)
    select d.workspace_id, d.status, d.priority, d.assignee_id, d.snoozed, sum(d.delta)
      from (select n.workspace_id, n.status, n.priority, n.assignee_id, n.snoozed_until is not null as snoozed, 1 as delta
              from new_tickets n
            union all
            select o.workspace_id, o.status, o.priority, o.assignee_id, o.snoozed_until is not null, -1 from old_tickets o) d
     group by 1, 2, 3, 4, 5 having sum(d.delta) <> 0 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, status, priority, assignee_id, snoozed) do update set n = t.n + excluded.n;
  else
    -- Deleting tickets (a workspace going, with its tallies already gone by cascade): only what is left.
    update private.ticket_tallies t set n = t.n - d.n
      from (select o.workspace_id, o.status, o.priority, o.assignee_id, o.snoozed_until is not null as snoozed, count(*) as n
              from old_tickets o group by 1, 2, 3, 4, 5) d
     where t.workspace_id = d.workspace_id and t.status = d.status and t.priority = d.priority
       and t.assignee_id is not distinct from d.assignee_id and t.snoozed = d.snoozed;
  end if;
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
begin
  if tg_op = 'INSERT' then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to") values (new.id, new.workspace_id, actor, 'created', new.status);
    return null;
  end if;
  if new.status is distinct from old.status then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to") values (new.id, new.workspace_id, actor, 'status', old.status, new.status);
  end if;
  if new.assignee_id is distinct from old.assignee_id then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
    values (new.id, new.workspace_id, actor, 'assignee', old.assignee_id::text, new.assignee_id::text);
  end if;
  if new.priority is distinct from old.priority then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to") values (new.id, new.workspace_id, actor, 'priority', old.priority, new.priority);
  end if;
  -- Snoozed until a time (`to`), or woken (by hand, by the requester's reply, by the job: no actor).
  if new.snoozed_until is distinct from old.snoozed_until then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
    values (new.id, new.workspace_id, actor, case when new.snoozed_until is null then 'unsnoozed' else 'snoozed' end,
            old.snoozed_until::text, new.snoozed_until::text);
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_transition()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION public.claim_next_ticket(p_workspace_id uuid)
 RETURNS SETOF tickets
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'agents only';
  end if;
  -- Oldest unassigned open request; rows another agent is claiming right now are skipped.
  select * into t from public.tickets
   where workspace_id = p_workspace_id and assignee_id is null and private.is_open(status) and snoozed_until is null
   order by created_at, number
   limit 1
   for no key update skip locked;
  if t.id is null then
    return;
  end if;
  -- Assigning a new ticket opens it (the transition trigger).
  return query update public.tickets set assignee_id = (select auth.uid()) where id = t.id returning *;
end $function$
;

CREATE OR REPLACE FUNCTION public.inbox(p_slug text, p_view text DEFAULT 'unassigned'::text, p_query text DEFAULT NULL::text, p_status text DEFAULT NULL::text, p_priority text DEFAULT NULL::text, p_assignee text DEFAULT NULL::text, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid, p_before_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_before_id uuid DEFAULT NULL::uuid, p_limit integer DEFAULT 25, p_tags text[] DEFAULT NULL::text[])
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
  -- The tags a ticket must all carry (?tag=, tag: in the search), by id.
  tag_ids uuid[];
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

  if cardinality(p_tags) > 0 then
    tag_ids := array(select g.id from public.tags g where g.workspace_id = ws.id and g.name = any (p_tags));
    -- A tag that isn't one: nothing carries it (a tag's id no ticket has stands for it).
    if cardinality(tag_ids) < (select count(distinct x) from unnest(p_tags) x) then
      tag_ids := tag_ids || gen_random_uuid();
    end if;
  end if;

  -- $1 me, $2 workspace, $3 status, $4 priority, $5 assignee, $6 query, $7/$8 cursor, $9 page size + 1,
  -- $10 the requester an email address names, $11 search candidates, $12 tickets of matching notes,
  -- $13 the tags every ticket carries
  base := 't.workspace_id = $2 and ' || view_sql
    || case when p_status is not null then ' and t.status = $3' else '' end
    || case when p_priority is not null then ' and t.priority = $4' else '' end
    || case when p_assignee = 'none' then ' and t.assignee_id is null' when assignee is not null then ' and t.assignee_id = $5' else '' end
    || case when tag_ids is not null then ' and t.id in (select tt.ticket_id from public.ticket_tags tt where tt.tag_id = any ($13)'
         || ' group by tt.ticket_id having count(*) = cardinality($13))' else '' end
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
        using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids;
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
        using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids;
      if cardinality(page_ids) <= p_limit then
        -- Step 2 through the GIN indexes only (bitmap scans): never a walk of the view testing each row.
        perform set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true);
        pins := 'bitmap';
        stmt := format('select array(select t.id from public.tickets t where %s and t.search @@ $6 limit %s)', base, search_cap + 1);
        execute stmt into candidates
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids;
        if cardinality(candidates) <= search_cap and cardinality(note_tickets) <= search_notes then
          candidates := candidates || note_tickets;
        elsif cardinality(candidates) <= search_cap then
          stmt := format('select $11 || array(select m.ticket_id from public.messages m where m.workspace_id = $2 and m.kind = ''note'''
            || ' and to_tsvector(''english''::regconfig, m.body) @@ $6 limit %s)', search_cap + 1);
          execute stmt into candidates
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids;
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
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids;
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
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids;
      end if;
    exception when query_canceled then
      -- The statement timeout (57014) struck in the search: an empty page that says so
      -- (search_timeout), and the plan of the statement it stopped, without running it, for the log.
      -- The plan settings of the step are rolled back with it.
      search_timed_out := true;
      page_ids := '{}';
      search_plan := concat_ws(E'\n', stmt, private.inbox_search_plan(stmt, pins,
        me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids));
    end;
  else
    execute format(
      'select array(select t.id from public.tickets t where %2$s order by t.last_message_at %1$s, t.id %1$s limit $9)', dir, base)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, coalesce(p_after_at, p_before_at), coalesce(p_after_id, p_before_id), p_limit + 1,
        requester, candidates, note_tickets, tag_ids;
  end if;
  page_ids := coalesce(page_ids, '{}');
  -- One row past the page says whether there is another page in that direction.
  has_more := cardinality(page_ids) > p_limit;
  page_ids := page_ids[1:p_limit];
  if newer then
    page_ids := array(select x from unnest(page_ids) with ordinality u(x, i) order by i desc);
  end if;

  select jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
    'role', my_role,
    'ticket_number', ticket_number,
    -- The statement timeout struck in the search (search_timeout): the plan of the statement, for the log.
    'search_timeout', case when search_timed_out then coalesce(search_plan, '') end,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role, 'name', coalesce(p.display_name, 'Unknown'))
                                          order by coalesce(p.display_name, 'Unknown'), m.user_id), '[]')
                  from public.memberships m left join public.profiles p on p.user_id = m.user_id
                 where m.workspace_id = ws.id),
    'counts', (select jsonb_build_object(
                 'unassigned', coalesce(sum(c.n) filter (where c.assignee_id is null and private.is_open(c.status) and not c.snoozed), 0),
                 'mine', coalesce(sum(c.n) filter (where c.assignee_id = me and private.is_backlog(c.status) and not c.snoozed), 0),
                 'open', coalesce(sum(c.n) filter (where private.is_open(c.status) and not c.snoozed), 0),
                 'pending', coalesce(sum(c.n) filter (where c.status = 'pending' and not c.snoozed), 0),
                 'snoozed', coalesce(sum(c.n) filter (where c.snoozed), 0),
                 'solved', coalesce(sum(c.n) filter (where c.status = 'solved'), 0),
                 'all', coalesce(sum(c.n), 0))
                 from private.ticket_tallies c where c.workspace_id = ws.id),
    -- Without a search or tags the view's total, filters included, is exact from the tallies too.
    'total', case when q is null and tag_ids is null then (
               select coalesce(sum(c.n), 0) from private.ticket_tallies c
                where c.workspace_id = ws.id
                  and case p_view
                        when 'unassigned' then c.assignee_id is null and private.is_open(c.status) and not c.snoozed
                        when 'mine' then c.assignee_id = me and private.is_backlog(c.status) and not c.snoozed
                        when 'open' then private.is_open(c.status) and not c.snoozed
                        when 'pending' then c.status = 'pending' and not c.snoozed
                        when 'snoozed' then c.snoozed
                        when 'solved' then c.status = 'solved'
                        else true end
                  and (status_filter is null or c.status = status_filter)
                  and (priority_filter is null or c.priority = priority_filter)
                  and (p_assignee is null or (p_assignee = 'none' and c.assignee_id is null) or c.assignee_id = assignee)) end,
    'tickets', (select coalesce(jsonb_agg(jsonb_build_object(
                   'id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                   'requester_id', t.requester_id, 'requester', coalesce(rp.display_name, 'Unknown'),
                   'assignee_id', t.assignee_id, 'assignee', case when t.assignee_id is not null then coalesce(ap.display_name, 'Unknown') end,
                   'last_message_at', t.last_message_at, 'snoozed_until', t.snoozed_until,
                   'tags', private.ticket_tags_json(t.id)) order by u.i), '[]')
                  from unnest(page_ids) with ordinality u(id, i)
                  join public.tickets t on t.id = u.id
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
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
    -- The snooze's date and time are the workspace's (52_triage.sql).
    'time_zone', ws.time_zone,
    'role', my_role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role) order by m.user_id), '[]')
                  from public.memberships m where m.workspace_id = ws.id),
    'ticket', jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                                 'requester_id', t.requester_id, 'assignee_id', t.assignee_id, 'created_at', t.created_at,
                                 'first_response_at', t.first_response_at, 'solved_at', t.solved_at,
                                 'snoozed_until', t.snoozed_until, 'tags', private.ticket_tags_json(t.id)),
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

revoke execute on function private.snooze_preset(p_preset text, p_time_zone text, p_now timestamp with time zone) from public;
revoke execute on function private.wake_snoozed_tickets() from public;
revoke execute on function public.snooze_ticket(p_ticket_id uuid, p_preset text, p_at timestamp without time zone) from anon;
revoke execute on function public.snooze_ticket(p_ticket_id uuid, p_preset text, p_at timestamp without time zone) from public;

-- Added by hand (db diff doesn't see scheduled jobs): snoozed tickets wake when due (80_email.sql).
select cron.schedule('wake-snoozed', '* * * * *', 'select private.wake_snoozed_tickets()');
