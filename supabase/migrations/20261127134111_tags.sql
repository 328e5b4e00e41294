alter table "public"."ticket_events" drop constraint "ticket_events_type_check";

drop function if exists "private"."inbox_search_plan"(p_stmt text, p_pins text, p1 uuid, p2 uuid, p3 ticket_status, p4 ticket_priority, p5 uuid, p6 tsquery, p7 timestamp with time zone, p8 uuid, p9 integer, p10 uuid, p11 uuid[], p12 uuid[]);

drop function if exists "public"."inbox"(p_slug text, p_view text, p_query text, p_status text, p_priority text, p_assignee text, p_after_at timestamp with time zone, p_after_id uuid, p_before_at timestamp with time zone, p_before_id uuid, p_limit integer);


  create table "public"."tags" (
    "id" uuid not null default gen_random_uuid(),
    "workspace_id" uuid not null,
    "name" text not null,
    "colour" text not null default 'grey'::text,
    "created_by" uuid default auth.uid(),
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."tags" enable row level security;


  create table "public"."ticket_tags" (
    "ticket_id" uuid not null,
    "tag_id" uuid not null,
    "workspace_id" uuid not null,
    "created_by" uuid default auth.uid(),
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."ticket_tags" enable row level security;

alter table "public"."workspaces" add column "agents_create_tags" boolean not null default true;

CREATE UNIQUE INDEX tags_name_key ON public.tags USING btree (workspace_id, name);

CREATE UNIQUE INDEX tags_pkey ON public.tags USING btree (id);

CREATE UNIQUE INDEX ticket_tags_pkey ON public.ticket_tags USING btree (ticket_id, tag_id);

CREATE INDEX ticket_tags_tag_idx ON public.ticket_tags USING btree (tag_id, ticket_id);

CREATE INDEX ticket_tags_workspace_idx ON public.ticket_tags USING btree (workspace_id);

alter table "public"."tags" add constraint "tags_pkey" PRIMARY KEY using index "tags_pkey";

alter table "public"."ticket_tags" add constraint "ticket_tags_pkey" PRIMARY KEY using index "ticket_tags_pkey";

alter table "public"."tags" add constraint "tags_colour_check" CHECK ((colour = ANY (ARRAY['grey'::text, 'red'::text, 'orange'::text, 'yellow'::text, 'green'::text, 'teal'::text, 'blue'::text, 'purple'::text, 'pink'::text]))) not valid;

alter table "public"."tags" validate constraint "tags_colour_check";

alter table "public"."tags" add constraint "tags_created_by_fkey" FOREIGN KEY (created_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."tags" validate constraint "tags_created_by_fkey";

alter table "public"."tags" add constraint "tags_name_check" CHECK ((name ~ '^[a-z0-9][a-z0-9_-]{0,39}$'::text)) not valid;

alter table "public"."tags" validate constraint "tags_name_check";

alter table "public"."tags" add constraint "tags_name_key" UNIQUE using index "tags_name_key";

alter table "public"."tags" add constraint "tags_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."tags" validate constraint "tags_workspace_id_fkey";

alter table "public"."ticket_tags" add constraint "ticket_tags_created_by_fkey" FOREIGN KEY (created_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."ticket_tags" validate constraint "ticket_tags_created_by_fkey";

alter table "public"."ticket_tags" add constraint "ticket_tags_tag_id_fkey" FOREIGN KEY (tag_id) REFERENCES tags(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_tags" validate constraint "ticket_tags_tag_id_fkey";

alter table "public"."ticket_tags" add constraint "ticket_tags_ticket_id_fkey" FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_tags" validate constraint "ticket_tags_ticket_id_fkey";

alter table "public"."ticket_tags" add constraint "ticket_tags_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_tags" validate constraint "ticket_tags_workspace_id_fkey";

alter table "public"."ticket_events" add constraint "ticket_events_type_check" CHECK ((type = ANY (ARRAY['created'::text, 'status'::text, 'assignee'::text, 'priority'::text, 'tag_added'::text, 'tag_removed'::text]))) not valid;

alter table "public"."ticket_events" validate constraint "ticket_events_type_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.inbox_search_plan(p_stmt text, p_pins text, p1 uuid, p2 uuid, p3 ticket_status, p4 ticket_priority, p5 uuid, p6 tsquery, p7 timestamp with time zone, p8 uuid, p9 integer, p10 uuid, p11 uuid[], p12 uuid[], p13 uuid[])
 RETURNS text
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  plan text;
  line text;
begin
  perform set_config('lock_timeout', '2s', true);
  -- The plan settings the statement ran with (rolled back with it).
  if p_pins = 'bitmap' then
    perform set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true);
  elsif p_pins = 'ordered' then
    perform set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true);
  end if;
  for line in execute 'explain ' || p_stmt using p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13 loop
    plan := concat_ws(E'\n', plan, line);
  end loop;
  return plan;
exception when others then
  return 'no plan: ' || sqlerrm;
end $function$
;

CREATE OR REPLACE FUNCTION private.may_create_tags(p_workspace_id uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select private.is_admin(p_workspace_id)
      or (private.is_agent(p_workspace_id)
          and (select w.agents_create_tags from public.workspaces w where w.id = p_workspace_id))
$function$
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
  if tag_name is null or current_setting('tend.tag_admin', true) = 'on'
     or not exists (select 1 from public.tickets t where t.id = r.ticket_id) then
    return null;
  end if;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  values (r.ticket_id, r.workspace_id, auth.uid(), case when tg_op = 'INSERT' then 'tag_added' else 'tag_removed' end, tag_name);
  update public.tickets set updated_at = now() where id = r.ticket_id;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_tag_workspace()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  select t.workspace_id into new.workspace_id from public.tickets t where t.id = new.ticket_id;
  if not exists (select 1 from public.tags g where g.id = new.tag_id and g.workspace_id = new.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'tag of another workspace';
  end if;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_tags_json(p_ticket_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('id', g.id, 'name', g.name, 'colour', g.colour) order by g.name), '[]')
    from public.ticket_tags tt join public.tags g on g.id = tt.tag_id
   where tt.ticket_id = p_ticket_id
$function$
;

CREATE OR REPLACE FUNCTION public.add_ticket_tag(p_ticket_id uuid, p_name text)
 RETURNS uuid
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  tag uuid;
  tag_name text := lower(btrim(coalesce(p_name, '')));
begin
  select t.workspace_id into ws from public.tickets t where t.id = p_ticket_id;
  if ws is null or not private.is_member(ws) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  if tag_name !~ '^[a-z0-9][a-z0-9_-]{0,39}$' then
    raise exception using errcode = 'P0001', message = 'tag_invalid';
  end if;
  select g.id into tag from public.tags g where g.workspace_id = ws and g.name = tag_name;
  if tag is null then
    if not private.may_create_tags(ws) then
      raise exception using errcode = 'P0001', message = 'tag_create_forbidden', detail = tag_name;
    end if;
    -- Two agents creating the same tag at once: the second finds the first's.
    insert into public.tags (workspace_id, name) values (ws, tag_name) on conflict (workspace_id, name) do nothing
    returning id into tag;
    if tag is null then
      select g.id into tag from public.tags g where g.workspace_id = ws and g.name = tag_name;
    end if;
  end if;
  insert into public.ticket_tags (ticket_id, tag_id) values (p_ticket_id, tag) on conflict do nothing;
  return tag;
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
                 'unassigned', coalesce(sum(c.n) filter (where c.assignee_id is null and private.is_open(c.status)), 0),
                 'mine', coalesce(sum(c.n) filter (where c.assignee_id = me and private.is_backlog(c.status)), 0),
                 'open', coalesce(sum(c.n) filter (where private.is_open(c.status)), 0),
                 'pending', coalesce(sum(c.n) filter (where c.status = 'pending'), 0),
                 'solved', coalesce(sum(c.n) filter (where c.status = 'solved'), 0),
                 'all', coalesce(sum(c.n), 0))
                 from private.ticket_tallies c where c.workspace_id = ws.id),
    -- Without a search or tags the view's total, filters included, is exact from the tallies too.
    'total', case when q is null and tag_ids is null then (
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
                   'last_message_at', t.last_message_at, 'tags', private.ticket_tags_json(t.id)) order by u.i), '[]')
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

CREATE OR REPLACE FUNCTION public.merge_tags(p_from uuid, p_into uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  a public.tags;
  b public.tags;
  n integer;
begin
  select * into a from public.tags where id = p_from for update;
  select * into b from public.tags where id = p_into for update;
  if a.id is null or b.id is null or a.workspace_id <> b.workspace_id or not private.is_member(a.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'tag';
  end if;
  if not private.is_admin(a.workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if a.id = b.id then
    raise exception using errcode = 'P0001', message = 'tag_merge_same';
  end if;
  perform set_config('tend.tag_admin', 'on', true);
  insert into public.ticket_tags (ticket_id, tag_id, created_by)
  select tt.ticket_id, b.id, auth.uid() from public.ticket_tags tt where tt.tag_id = a.id
  on conflict do nothing;
  get diagnostics n = row_count;
  delete from public.tags where id = a.id;
  perform set_config('tend.tag_admin', 'off', true);
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION public.workspace_tags(p_slug text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  member record;
begin
  select * into member from private.membership(p_slug);
  return (select coalesce(jsonb_agg(jsonb_build_object('id', g.id, 'name', g.name, 'colour', g.colour,
                                                       'tickets', (select count(*) from public.ticket_tags tt where tt.tag_id = g.id))
                                    order by g.name), '[]')
            from public.tags g where g.workspace_id = (member.workspace).id);
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
    'role', my_role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role) order by m.user_id), '[]')
                  from public.memberships m where m.workspace_id = ws.id),
    'ticket', jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                                 'requester_id', t.requester_id, 'assignee_id', t.assignee_id, 'created_at', t.created_at,
                                 'first_response_at', t.first_response_at, 'solved_at', t.solved_at,
                                 'tags', private.ticket_tags_json(t.id)),
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
           where tt.tag_id = g.id) x
       where g.workspace_id = ws and (x.created > 0 or x.solved > 0)), '[]'::jsonb),
    'busiest_hours', coalesce((
      select jsonb_agg(jsonb_build_object('weekday', h.weekday, 'hour', h.hour, 'created', h.created) order by h.weekday, h.hour)
        from (select extract(isodow from s.local)::int as weekday, extract(hour from s.local)::int as hour, sum(s.created) as created
                from slots s group by 1, 2 having sum(s.created) > 0) h), '[]'::jsonb)
  ) into out;
  return out;
end $function$
;


  create policy "admins delete tags"
  on "public"."tags"
  as permissive
  for delete
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins edit tags"
  on "public"."tags"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)))
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins, and agents if allowed, add tags"
  on "public"."tags"
  as permissive
  for insert
  to authenticated
with check (private.may_create_tags(workspace_id));



  create policy "members read tags"
  on "public"."tags"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read ticket tags"
  on "public"."ticket_tags"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members tag tickets"
  on "public"."ticket_tags"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members untag tickets"
  on "public"."ticket_tags"
  as permissive
  for delete
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));


CREATE TRIGGER ticket_tags_history AFTER INSERT OR DELETE ON public.ticket_tags FOR EACH ROW EXECUTE FUNCTION private.ticket_tag_history();

CREATE TRIGGER ticket_tags_workspace BEFORE INSERT ON public.ticket_tags FOR EACH ROW EXECUTE FUNCTION private.ticket_tag_workspace();

grant execute on function private.may_create_tags(p_workspace_id uuid) to authenticated;
grant execute on function private.may_create_tags(p_workspace_id uuid) to service_role;
grant insert (colour) on table public.tags to authenticated;
grant insert (name) on table public.tags to authenticated;
grant insert (tag_id) on table public.ticket_tags to authenticated;
grant insert (ticket_id) on table public.ticket_tags to authenticated;
grant insert (workspace_id) on table public.tags to authenticated;
grant select (agents_create_tags) on table public.workspaces to authenticated;
grant update (agents_create_tags) on table public.workspaces to authenticated;
grant update (colour) on table public.tags to authenticated;
grant update (name) on table public.tags to authenticated;
revoke delete on table public.tags from anon;
revoke delete on table public.ticket_tags from anon;
revoke execute on function private.inbox_search_plan(p_stmt text, p_pins text, p1 uuid, p2 uuid, p3 ticket_status, p4 ticket_priority, p5 uuid, p6 tsquery, p7 timestamp with time zone, p8 uuid, p9 integer, p10 uuid, p11 uuid[], p12 uuid[], p13 uuid[]) from public;
revoke execute on function private.may_create_tags(p_workspace_id uuid) from public;
revoke execute on function private.ticket_tag_history() from public;
revoke execute on function private.ticket_tag_workspace() from public;
revoke execute on function private.ticket_tags_json(p_ticket_id uuid) from public;
revoke execute on function public.add_ticket_tag(p_ticket_id uuid, p_name text) from anon;
revoke execute on function public.add_ticket_tag(p_ticket_id uuid, p_name text) from public;
revoke execute on function public.inbox(p_slug text, p_view text, p_query text, p_status text, p_priority text, p_assignee text, p_after_at timestamp with time zone, p_after_id uuid, p_before_at timestamp with time zone, p_before_id uuid, p_limit integer, p_tags text[]) from anon;
revoke execute on function public.inbox(p_slug text, p_view text, p_query text, p_status text, p_priority text, p_assignee text, p_after_at timestamp with time zone, p_after_id uuid, p_before_at timestamp with time zone, p_before_id uuid, p_limit integer, p_tags text[]) from public;
revoke execute on function public.merge_tags(p_from uuid, p_into uuid) from anon;
revoke execute on function public.merge_tags(p_from uuid, p_into uuid) from public;
revoke execute on function public.workspace_tags(p_slug text) from anon;
revoke execute on function public.workspace_tags(p_slug text) from public;
revoke insert on table public.tags from anon;
revoke insert on table public.tags from authenticated;
revoke insert on table public.ticket_tags from anon;
revoke insert on table public.ticket_tags from authenticated;
revoke maintain on table public.tags from anon;
revoke maintain on table public.ticket_tags from anon;
revoke references on table public.tags from anon;
revoke references on table public.ticket_tags from anon;
revoke select on table public.tags from anon;
revoke select on table public.ticket_tags from anon;
revoke trigger on table public.tags from anon;
revoke trigger on table public.ticket_tags from anon;
revoke truncate on table public.tags from anon;
revoke truncate on table public.ticket_tags from anon;
revoke update on table public.tags from anon;
revoke update on table public.tags from authenticated;
revoke update on table public.ticket_tags from anon;
revoke update on table public.ticket_tags from authenticated;

grant insert (colour) on table public.tags to authenticated;
grant insert (name) on table public.tags to authenticated;
grant insert (tag_id) on table public.ticket_tags to authenticated;
grant insert (ticket_id) on table public.ticket_tags to authenticated;
grant insert (workspace_id) on table public.tags to authenticated;
grant update (colour) on table public.tags to authenticated;
grant update (name) on table public.tags to authenticated;
