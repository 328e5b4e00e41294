drop function if exists "private"."inbox_search_plan"(p_stmt text, p_pins text, p1 uuid, p2 uuid, p3 ticket_status, p4 ticket_priority, p5 uuid, p6 tsquery, p7 timestamp with time zone, p8 uuid, p9 integer, p10 uuid, p11 uuid[], p12 uuid[], p13 uuid[]);

drop function if exists "public"."inbox"(p_slug text, p_view text, p_query text, p_status text, p_priority text, p_assignee text, p_after_at timestamp with time zone, p_after_id uuid, p_before_at timestamp with time zone, p_before_id uuid, p_limit integer, p_tags text[]);


  create table "public"."saved_views" (
    "id" uuid not null default gen_random_uuid(),
    "workspace_id" uuid not null,
    "owner_id" uuid not null default auth.uid(),
    "name" text not null,
    "shared" boolean not null default false,
    "filters" jsonb not null default '{}'::jsonb,
    "position" integer not null default 0,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."saved_views" enable row level security;

CREATE UNIQUE INDEX saved_views_own_name_key ON public.saved_views USING btree (workspace_id, owner_id, lower(name)) WHERE (NOT shared);

CREATE UNIQUE INDEX saved_views_pkey ON public.saved_views USING btree (id);

CREATE UNIQUE INDEX saved_views_shared_name_key ON public.saved_views USING btree (workspace_id, lower(name)) WHERE shared;

CREATE INDEX saved_views_workspace_idx ON public.saved_views USING btree (workspace_id, owner_id);

alter table "public"."saved_views" add constraint "saved_views_pkey" PRIMARY KEY using index "saved_views_pkey";

alter table "public"."saved_views" add constraint "saved_views_name_check" CHECK (((char_length(name) >= 1) AND (char_length(name) <= 60))) not valid;

alter table "public"."saved_views" validate constraint "saved_views_name_check";

alter table "public"."saved_views" add constraint "saved_views_name_trimmed" CHECK ((name = btrim(name))) not valid;

alter table "public"."saved_views" validate constraint "saved_views_name_trimmed";

alter table "public"."saved_views" add constraint "saved_views_owner_fkey" FOREIGN KEY (workspace_id, owner_id) REFERENCES memberships(workspace_id, user_id) ON DELETE CASCADE not valid;

alter table "public"."saved_views" validate constraint "saved_views_owner_fkey";

alter table "public"."saved_views" add constraint "saved_views_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."saved_views" validate constraint "saved_views_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.check_saved_view()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.saved_view_filters_ok(new.filters) then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'filters';
  end if;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION private.counted_views()
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select array['unassigned', 'mine', 'open', 'pending', 'snoozed', 'solved', 'all', 'mentions']
$function$
;

CREATE OR REPLACE FUNCTION private.inbox_field_filters(p_workspace_id uuid, p_fields jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  item record;
  -- The field (58_ticket_fields.sql, defined after this file: plain types here).
  f_id uuid;
  f_kind text;
  f_options text[];
  f_label text;
  out jsonb := '[]';
  v text;
  lo text;
  hi text;
begin
  -- A GET through PostgREST hands the argument over as a JSON string of the object.
  if jsonb_typeof(p_fields) = 'string' then
    begin
      p_fields := (p_fields #>> '{}')::jsonb;
    exception when invalid_text_representation then
      raise exception using errcode = 'P0001', message = 'bad_request', detail = 'fields';
    end;
  end if;
  if p_fields is null or p_fields = '{}'::jsonb then
    return null;
  end if;
  if jsonb_typeof(p_fields) <> 'object' or (select count(*) from jsonb_object_keys(p_fields)) > 5 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'fields';
  end if;
  for item in select key, value from jsonb_each(p_fields) order by key loop
    f_id := null;
    if item.key ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      select x.id, x.kind::text, x.options, x.label into f_id, f_kind, f_options, f_label
        from public.ticket_fields x where x.id = item.key::uuid and x.workspace_id = p_workspace_id;
    end if;
    if f_id is null then
      out := out || jsonb_build_object('none', true);
      continue;
    end if;
    if jsonb_typeof(item.value) = 'object' and f_kind in ('number', 'date') then
      lo := private.ticket_field_value(f_kind::public.ticket_field_kind, f_options, item.value ->> 'from');
      hi := private.ticket_field_value(f_kind::public.ticket_field_kind, f_options, item.value ->> 'to');
      if (lo is null and coalesce(btrim(item.value ->> 'from'), '') <> '')
         or (hi is null and coalesce(btrim(item.value ->> 'to'), '') <> '') then
        raise exception using errcode = 'P0001', message = 'field_value_invalid', detail = f_label;
      end if;
      if lo is not null or hi is not null then
        out := out || jsonb_strip_nulls(jsonb_build_object('id', f_id, 'kind', f_kind, 'from', lo, 'to', hi));
      end if;
      continue;
    end if;
    if jsonb_typeof(item.value) <> 'string' then
      raise exception using errcode = 'P0001', message = 'bad_request', detail = 'fields';
    end if;
    if f_kind = 'checkbox' and item.value #>> '{}' = 'false' then
      out := out || jsonb_build_object('id', f_id, 'unset', true);
      continue;
    end if;
    v := private.ticket_field_value(f_kind::public.ticket_field_kind, f_options, item.value #>> '{}');
    if v is null then
      if btrim(item.value #>> '{}') = '' then continue; end if;
      raise exception using errcode = 'P0001', message = 'field_value_invalid', detail = f_label;
    end if;
    out := out || case when f_kind = 'text' then jsonb_build_object('id', f_id, 'kind', f_kind, 'eq', lower(v))
                       when f_kind in ('number', 'date') then jsonb_build_object('id', f_id, 'kind', f_kind, 'from', v, 'to', v)
                       else jsonb_build_object('id', f_id, 'kind', f_kind, 'eq', v) end;
  end loop;
  return nullif(out, '[]'::jsonb);
end $function$
;

CREATE OR REPLACE FUNCTION private.inbox_field_sql(i integer, f jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case
    when f ? 'none' then ' and false'
    when f ? 'unset' then format(' and not exists (select 1 from public.ticket_field_values v where v.ticket_id = t.id'
      || ' and v.field_id = ($14->%s->>''id'')::uuid)', i)
    else format(' and t.id in (select v.ticket_id from public.ticket_field_values v where v.field_id = ($14->%s->>''id'')::uuid', i)
      || case when f ? 'eq' then format(' and %s = ($14->%s->>''eq'')', case when f ->> 'kind' = 'text' then 'lower(v.value)' else 'v.value' end, i)
              else '' end
      || case when f ? 'from' then format(' and %s >= ($14->%s->>''from'')%s', x.val, i, x.cast_to) else '' end
      || case when f ? 'to' then format(' and %s <= ($14->%s->>''to'')%s', x.val, i, x.cast_to) else '' end
      || ')'
  end
  -- A number compares as one (the value cast only on this field's rows); a date as its YYYY-MM-DD text.
  from (select case when f ->> 'kind' = 'number'
                    then format('(case when v.field_id = ($14->%s->>''id'')::uuid then v.value end)::numeric', i)
                    else 'v.value' end as val,
               case when f ->> 'kind' = 'number' then '::numeric' else '' end as cast_to) x
$function$
;

CREATE OR REPLACE FUNCTION private.inbox_query(p_query text)
 RETURNS tsquery
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  q text := btrim(coalesce(p_query, ''));
  last text := substring(q from '(?:^|\s)([[:alnum:]]{3,})$');
  head text;
  prefix tsquery;
  rest tsquery;
begin
  if q = '' then
    return null;
  end if;
  -- An odd number of quotes leaves the last word inside a phrase.
  if last is null or (length(q) - length(replace(q, '"', ''))) % 2 = 1 then
    return websearch_to_tsquery('english'::regconfig, q);
  end if;
  prefix := to_tsquery('english'::regconfig, last || ':*');
  if numnode(prefix) = 0 then
    return websearch_to_tsquery('english'::regconfig, q);
  end if;
  head := btrim(left(q, length(q) - length(last)));
  if head = '' then
    return prefix;
  end if;
  rest := websearch_to_tsquery('english'::regconfig, head);
  if numnode(rest) = 0 then
    return prefix;
  end if;
  -- "refund or ship": either.
  if lower(head) ~ '\mor$' then
    return websearch_to_tsquery('english'::regconfig, regexp_replace(head, '\s*or$', '', 'i')) || prefix;
  end if;
  return rest && prefix;
end $function$
;

CREATE OR REPLACE FUNCTION private.inbox_search_plan(p_stmt text, p_pins text, p1 uuid, p2 uuid, p3 ticket_status, p4 ticket_priority, p5 uuid, p6 tsquery, p7 timestamp with time zone, p8 uuid, p9 integer, p10 uuid, p11 uuid[], p12 uuid[], p13 uuid[], p14 jsonb)
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
  for line in execute 'explain ' || p_stmt using p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14 loop
    plan := concat_ws(E'\n', plan, line);
  end loop;
  return plan;
exception when others then
  return 'no plan: ' || sqlerrm;
end $function$
;

CREATE OR REPLACE FUNCTION private.inbox_tag_ids(p_workspace_id uuid, p_tags text[])
 RETURNS uuid[]
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ids uuid[];
begin
  if coalesce(cardinality(p_tags), 0) = 0 then
    return null;
  end if;
  ids := array(select g.id from public.tags g where g.workspace_id = p_workspace_id and g.name = any (p_tags));
  if cardinality(ids) < (select count(distinct x) from unnest(p_tags) x) then
    ids := ids || gen_random_uuid();
  end if;
  return ids;
end $function$
;

CREATE OR REPLACE FUNCTION private.inbox_where(p_view text, p_status boolean, p_priority boolean, p_assignee text, p_tags boolean, p_fields jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select 't.workspace_id = $2 and ' || private.inbox_view_filter(p_view)
    || case when p_status then ' and t.status = $3' else '' end
    || case when p_priority then ' and t.priority = $4' else '' end
    || case when p_assignee = 'none' then ' and t.assignee_id is null' when p_assignee is not null then ' and t.assignee_id = $5' else '' end
    || case when p_tags then ' and t.id in (select tt.ticket_id from public.ticket_tags tt where tt.tag_id = any ($13)'
         || ' group by tt.ticket_id having count(*) = cardinality($13))' else '' end
    || coalesce((select string_agg(private.inbox_field_sql((x.i - 1)::integer, x.f), '' order by x.i)
                   from jsonb_array_elements(p_fields) with ordinality x(f, i)), '')
$function$
;

CREATE OR REPLACE FUNCTION private.may_manage_view(p_workspace_id uuid, p_owner_id uuid, p_shared boolean)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select case when p_shared then private.is_admin(p_workspace_id)
              else p_owner_id = auth.uid() and private.is_member(p_workspace_id) end
$function$
;

CREATE OR REPLACE FUNCTION private.mentioned_at(p_ticket_id uuid, p_me uuid)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select max(mm.created_at) from public.message_mentions mm join public.messages m on m.id = mm.message_id
   where m.ticket_id = p_ticket_id and mm.user_id = p_me
$function$
;

CREATE OR REPLACE FUNCTION private.saved_view_count(p_workspace_id uuid, p_me uuid, f jsonb)
 RETURNS bigint
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  v text := coalesce(f ->> 'view', 'unassigned');
  a text := f ->> 'assignee';
  q tsquery := private.inbox_query(f ->> 'q');
  status_filter public.ticket_status;
  priority_filter public.ticket_priority;
  assignee uuid;
  tag_ids uuid[];
  fields jsonb;
  notes uuid[] := '{}';
  n bigint;
begin
  if v = 'breaching' or private.inbox_view_filter(v) is null then
    return null;
  end if;
  begin
    status_filter := (f ->> 'status')::public.ticket_status;
    priority_filter := (f ->> 'priority')::public.ticket_priority;
    assignee := case when a <> 'none' then a::uuid end;
  exception when invalid_text_representation then
    return null;
  end;
  tag_ids := private.inbox_tag_ids(p_workspace_id, array(select jsonb_array_elements_text(coalesce(f -> 'tag', '[]'))));
  begin
    fields := private.inbox_field_filters(p_workspace_id, f -> 'fields');
  exception when sqlstate 'P0001' then
    return 0;
  end;
  if q is null and tag_ids is null and fields is null and v <> 'mentions' then
    return private.tally_total(p_workspace_id, p_me, v, status_filter, priority_filter, assignee, a = 'none');
  end if;
  if q is not null and numnode(q) = 0 then
    return 0;
  end if;
  if q is not null then
    notes := array(select m.ticket_id from public.messages m
                    where m.workspace_id = p_workspace_id and m.kind = 'note' and to_tsvector('english'::regconfig, m.body) @@ q
                    limit 1001);
  end if;
  execute format('select count(*) from (select 1 from public.tickets t where %s%s limit 1001) x',
                 private.inbox_where(v, status_filter is not null, priority_filter is not null, a, tag_ids is not null, fields),
                 case when q is not null then ' and (t.search @@ $6 or t.id = any ($12))' else '' end)
    into n
    using p_me, p_workspace_id, status_filter, priority_filter, assignee, q, null::timestamptz, null::uuid, null::integer,
      null::uuid, null::uuid[], notes, tag_ids, fields;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION private.saved_view_filters_ok(f jsonb)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select jsonb_typeof(f) = 'object'
     and coalesce((select bool_and(k in ('view', 'q', 'status', 'priority', 'assignee', 'tag', 'fields', 'sort'))
                     from jsonb_object_keys(f) k), true)
     and private.inbox_view_filter(coalesce(f ->> 'view', 'unassigned')) is not null
     and coalesce(jsonb_typeof(f -> 'tag'), 'array') = 'array'
     and coalesce(jsonb_typeof(f -> 'fields'), 'object') = 'object'
     and coalesce(f ->> 'sort', 'newest') in ('newest', 'oldest')
     and octet_length(f::text) <= 4000
$function$
;

CREATE OR REPLACE FUNCTION private.saved_views_json(p_workspace_id uuid, p_me uuid, p_count boolean)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('id', v.id, 'name', v.name, 'shared', v.shared, 'filters', v.filters,
                                               'mine', v.owner_id = p_me,
                                               'count', case when p_count then private.saved_view_count(p_workspace_id, p_me, v.filters) end)
                            order by v.shared desc, v.position, lower(v.name), v.id), '[]')
    from public.saved_views v
   where v.workspace_id = p_workspace_id and (v.shared or v.owner_id = p_me)
$function$
;

CREATE OR REPLACE FUNCTION private.tally_total(p_workspace_id uuid, p_me uuid, p_view text, p_status ticket_status, p_priority ticket_priority, p_assignee uuid, p_unassigned boolean)
 RETURNS bigint
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select case when p_view not in ('mentions', 'breaching') then (
    select coalesce(sum(c.n), 0) from private.ticket_tallies c
     where c.workspace_id = p_workspace_id
       and case p_view
             when 'unassigned' then c.assignee_id is null and private.is_open(c.status) and not c.snoozed
             when 'mine' then c.assignee_id = p_me and private.is_backlog(c.status) and not c.snoozed
             when 'open' then private.is_open(c.status) and not c.snoozed
             when 'pending' then c.status = 'pending' and not c.snoozed
             when 'snoozed' then c.snoozed
             when 'solved' then c.status = 'solved'
             else true end
       and (p_status is null or c.status = p_status)
       and (p_priority is null or c.priority = p_priority)
       and (case when p_unassigned then c.assignee_id is null else p_assignee is null or c.assignee_id = p_assignee end)) end
$function$
;

CREATE OR REPLACE FUNCTION private.ticket_field_touch()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.tickets set updated_at = now() where id = coalesce(new.ticket_id, old.ticket_id);
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION public.inbox(p_slug text, p_view text DEFAULT 'unassigned'::text, p_query text DEFAULT NULL::text, p_status text DEFAULT NULL::text, p_priority text DEFAULT NULL::text, p_assignee text DEFAULT NULL::text, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid, p_before_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_before_id uuid DEFAULT NULL::uuid, p_limit integer DEFAULT 25, p_tags text[] DEFAULT NULL::text[], p_fields jsonb DEFAULT NULL::jsonb, p_sort text DEFAULT NULL::text)
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
  -- The custom-field filters (private.inbox_field_filters), $14.
  fields jsonb;
  -- "oldest": oldest activity first (keyset pages the other way round); else newest first.
  oldest boolean := coalesce(p_sort = 'oldest', false);
  cursor_sql text;
  -- The Mentions view without a search: newest mention of me first, its cursor on that time.
  by_mention boolean;
  -- A search's matches per view, counted up to count_cap (docs/product.md §2, "Search").
  search_counts jsonb;
  count_cap constant integer := 1000;
  page_ids uuid[];
  has_more boolean;
  result jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  my_role := member.role;
  -- Up to 1 000 a call: the CSV export streams its pages through here (25 on screen).
  if view_sql is null or p_limit not between 1 and 1000 or coalesce(p_sort, 'newest') not in ('newest', 'oldest') then
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

  tag_ids := private.inbox_tag_ids(ws.id, p_tags);
  fields := private.inbox_field_filters(ws.id, p_fields);
  -- "Breaching soon" is one page, soonest due first: no cursors.
  if p_view = 'breaching' then
    newer := false;
    older := false;
  end if;
  -- Those two have their own order (soonest due, newest mention).
  if p_view in ('breaching', 'mentions') then
    oldest := false;
  end if;

  -- $1 me, $2 workspace, $3 status, $4 priority, $5 assignee, $6 query, $7/$8 cursor, $9 page size + 1,
  -- $10 the requester an email address names, $11 search candidates, $12 tickets of matching notes,
  -- $13 the tags every ticket carries, $14 the custom-field filters
  -- The next page ("older") continues in the list's order, the previous one ("newer") against it.
  cursor_sql := case when not (older or newer) then ''
                     when older <> oldest then ' and (%1$s, %2$s) < ($7, $8)'
                     else ' and (%1$s, %2$s) > ($7, $8)' end;
  q := private.inbox_query(p_query);
  by_mention := p_view = 'mentions' and q is null;
  base := private.inbox_where(p_view, p_status is not null, p_priority is not null, p_assignee, tag_ids is not null, fields)
    || case when by_mention then '' else format(cursor_sql, 't.last_message_at', 't.id') end;
  dir := case when newer = oldest then 'desc' else 'asc' end;
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
    search_counts := (select jsonb_object_agg(v, 0) from unnest(private.counted_views()) v) || '{"capped": false}';
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
        using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
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
        using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
      if cardinality(page_ids) <= p_limit then
        -- Step 2 through the GIN indexes only (bitmap scans): never a walk of the view testing each row.
        perform set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true);
        pins := 'bitmap';
        stmt := format('select array(select t.id from public.tickets t where %s and t.search @@ $6 limit %s)', base, search_cap + 1);
        execute stmt into candidates
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
        if cardinality(candidates) <= search_cap and cardinality(note_tickets) <= search_notes then
          candidates := candidates || note_tickets;
        elsif cardinality(candidates) <= search_cap then
          stmt := format('select $11 || array(select m.ticket_id from public.messages m where m.workspace_id = $2 and m.kind = ''note'''
            || ' and to_tsvector(''english''::regconfig, m.body) @@ $6 limit %s)', search_cap + 1);
          execute stmt into candidates
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
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
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
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
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
      end if;
      -- The matches in every view (the tabs' counts while searching), with the filters but whatever the
      -- view: the first count_cap + 1 matches through the indexes (bitmap scans, as in step 2), so a common
      -- word costs what a rare one does; past the cap the counts are "at least" (capped).
      perform set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true);
      pins := 'bitmap';
      stmt := format('select jsonb_build_object(%s, ''capped'', count(*) > %s) from (select t.* from public.tickets t where %s'
        || ' and (t.search @@ $6 or t.id = any ($12)%s) limit %s) t',
        (select string_agg(format('%L, count(*) filter (where %s)', v, private.inbox_view_filter(v)), ', ')
           from unnest(private.counted_views()) v),
        count_cap,
        private.inbox_where('all', p_status is not null, p_priority is not null, p_assignee, tag_ids is not null, fields),
        case when requester is not null then ' or t.requester_id = $10' else '' end,
        count_cap + 1);
      execute stmt into search_counts
        using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates,
          note_tickets[1:search_notes], tag_ids, fields;
      perform set_config('enable_indexscan', 'on', true), set_config('enable_seqscan', 'on', true);
      pins := '';
      if cardinality(note_tickets) > search_notes then
        search_counts := search_counts || '{"capped": true}';
      end if;
    exception when query_canceled then
      -- The statement timeout (57014) struck in the search: an empty page that says so
      -- (search_timeout), and the plan of the statement it stopped, without running it, for the log.
      -- The plan settings of the step are rolled back with it.
      search_timed_out := true;
      page_ids := '{}';
      search_plan := concat_ws(E'\n', stmt, private.inbox_search_plan(stmt, pins,
        me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields));
    end;
  elsif p_view = 'breaching' then
    -- Soonest due first, one page (ticket_sla_due_idx): the view has no further pages.
    execute format(
      'select array(select t.id from public.ticket_sla s join public.tickets t on t.id = s.ticket_id'
      || ' where s.workspace_id = $2 and s.due_at is not null and %s order by s.due_at, t.id limit $9)', base)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, null::timestamptz, null::uuid, p_limit + 1,
        requester, candidates, note_tickets, tag_ids, fields;
  elsif by_mention then
    -- Newest mention of me first (message_mentions_user_idx): each ticket at the time of its newest one.
    execute format(
      'select array(select x.id from (select m.ticket_id as id, max(mm.created_at) as at from public.message_mentions mm'
      || ' join public.messages m on m.id = mm.message_id where mm.workspace_id = $2 and mm.user_id = $1 group by m.ticket_id) x'
      || ' join public.tickets t on t.id = x.id where %2$s%3$s order by x.at %1$s, x.id %1$s limit $9)', dir, base, format(cursor_sql, 'x.at', 'x.id'))
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1,
        requester, candidates, note_tickets, tag_ids, fields;
  else
    execute format(
      'select array(select t.id from public.tickets t where %2$s order by t.last_message_at %1$s, t.id %1$s limit $9)', dir, base)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, coalesce(p_after_at, p_before_at), coalesce(p_after_id, p_before_id), p_limit + 1,
        requester, candidates, note_tickets, tag_ids, fields;
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
                 'unassigned', coalesce(sum(c.n) filter (where c.assignee_id is null and private.is_open(c.status) and not c.snoozed), 0),
                 'mine', coalesce(sum(c.n) filter (where c.assignee_id = me and private.is_backlog(c.status) and not c.snoozed), 0),
                 'open', coalesce(sum(c.n) filter (where private.is_open(c.status) and not c.snoozed), 0),
                 'pending', coalesce(sum(c.n) filter (where c.status = 'pending' and not c.snoozed), 0),
                 'snoozed', coalesce(sum(c.n) filter (where c.snoozed), 0),
                 'solved', coalesce(sum(c.n) filter (where c.status = 'solved'), 0),
                 'all', coalesce(sum(c.n), 0))
                 from private.ticket_tallies c where c.workspace_id = ws.id)
              -- The tickets whose notes name me (message_mentions_user_idx: my mentions only). Not after a
              -- search timed out: what held it up (a lock on messages) would hold this up too.
              || jsonb_build_object('mentions', case when not search_timed_out then
                                                  (select count(distinct m.ticket_id) from public.message_mentions mm
                                                     join public.messages m on m.id = mm.message_id
                                                    where mm.workspace_id = ws.id and mm.user_id = me) end),
    -- Without a search, tags or fields the view's total, filters included, is exact from the tallies too.
    'total', case when q is null and tag_ids is null and fields is null then
               private.tally_total(ws.id, me, p_view, status_filter, priority_filter, assignee, p_assignee = 'none') end,
    -- A search's matches per view (docs/product.md §2: "Results in all views").
    'search_counts', search_counts,
    -- The saved views I see (mine and the team's, 89_saved_views.sql), with their counts.
    'saved_views', private.saved_views_json(ws.id, me, not search_timed_out),
    -- The workspace's custom fields, for the filters.
    'fields', (select coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'label', f.label, 'kind', f.kind, 'options', f.options)
                                         order by f.position, f.created_at, f.id), '[]')
                 from public.ticket_fields f where f.workspace_id = ws.id),
    'tickets', (select coalesce(jsonb_agg(jsonb_build_object(
                   'id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                   'requester_id', t.requester_id, 'requester', coalesce(rp.display_name, 'Unknown'),
                   'assignee_id', t.assignee_id, 'assignee', case when t.assignee_id is not null then coalesce(ap.display_name, 'Unknown') end,
                   'last_message_at', t.last_message_at, 'snoozed_until', t.snoozed_until,
                   -- The first line of the latest message (notes too: only members read this), as a preview.
                   'preview', (select left(regexp_replace(split_part(btrim(m.body), E'\n', 1), '^[#>*\s-]+|\s+$', '', 'g'), 120)
                                 from public.messages m where m.ticket_id = t.id order by m.created_at desc, m.id desc limit 1),
                   'tags', private.ticket_tags_json(t.id), 'due_at', s.due_at, 'warn_at', s.warn_at) order by u.i), '[]')
                  from unnest(page_ids) with ordinality u(id, i)
                  join public.tickets t on t.id = u.id
                  left join public.ticket_sla s on s.ticket_id = t.id
                  left join public.profiles rp on rp.user_id = t.requester_id
                  left join public.profiles ap on ap.user_id = t.assignee_id),
    -- Cursors: "older" continues after the last row, "newer" goes back before the first.
    -- In the Mentions view the time is the ticket's newest mention of me.
    'older', case when cardinality(page_ids) > 0 and (has_more or newer) then
               (select jsonb_build_object('at', case when by_mention then private.mentioned_at(t.id, me) else t.last_message_at end, 'id', t.id)
                  from public.tickets t where t.id = page_ids[cardinality(page_ids)]) end,
    'newer', case when cardinality(page_ids) > 0 and (older or (newer and has_more)) then
               (select jsonb_build_object('at', case when by_mention then private.mentioned_at(t.id, me) else t.last_message_at end, 'id', t.id)
                  from public.tickets t where t.id = page_ids[1]) end
  ) into result;
  return result;
end $function$
;

CREATE OR REPLACE FUNCTION public.move_inbox_view(p_id uuid, p_up boolean)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v public.saved_views;
  ids uuid[];
  i integer;
  j integer;
begin
  select * into v from public.saved_views where id = p_id;
  if v.id is null or not private.may_manage_view(v.workspace_id, v.owner_id, v.shared) then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  ids := array(select x.id from public.saved_views x
                where x.workspace_id = v.workspace_id and x.shared = v.shared and (v.shared or x.owner_id = v.owner_id)
                order by x.position, lower(x.name), x.id for update);
  i := array_position(ids, v.id);
  j := case when p_up then i - 1 else i + 1 end;
  if j between 1 and cardinality(ids) then
    ids[i] := ids[j];
    ids[j] := v.id;
  end if;
  update public.saved_views x set position = u.n - 1
    from unnest(ids) with ordinality u(id, n) where x.id = u.id and x.position <> u.n - 1;
end $function$
;

CREATE OR REPLACE FUNCTION public.rename_inbox_view(p_id uuid, p_name text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  view_name text := btrim(coalesce(p_name, ''));
begin
  if char_length(view_name) not between 1 and 60 then
    raise exception using errcode = 'P0001', message = 'view_name_invalid';
  end if;
  update public.saved_views set name = view_name where id = p_id;
  if not found then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
exception when unique_violation then
  raise exception using errcode = 'P0001', message = 'view_name_taken';
end $function$
;

CREATE OR REPLACE FUNCTION public.save_inbox_view(p_workspace_id uuid, p_name text, p_shared boolean, p_filters jsonb)
 RETURNS uuid
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  view_name text := btrim(coalesce(p_name, ''));
  is_shared boolean := coalesce(p_shared, false);
  saved uuid;
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  if char_length(view_name) not between 1 and 60 then
    raise exception using errcode = 'P0001', message = 'view_name_invalid';
  end if;
  if is_shared and not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'view_share_forbidden';
  end if;
  if p_filters is null or not private.saved_view_filters_ok(p_filters) then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'filters';
  end if;
  if (select count(*) from public.saved_views v
       where v.workspace_id = p_workspace_id and v.shared = is_shared and (is_shared or v.owner_id = auth.uid())) >= 30 then
    raise exception using errcode = 'P0001', message = 'view_limit';
  end if;
  insert into public.saved_views (workspace_id, name, shared, filters, position)
  values (p_workspace_id, view_name, is_shared, p_filters,
          coalesce((select max(v.position) + 1 from public.saved_views v
                     where v.workspace_id = p_workspace_id and v.shared = is_shared and (is_shared or v.owner_id = auth.uid())), 0))
  returning id into saved;
  return saved;
exception when unique_violation then
  raise exception using errcode = 'P0001', message = 'view_name_taken';
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
    -- Tickets with a promise running (90_promises.sql); listed soonest due first.
    when 'breaching' then 'exists (select 1 from public.ticket_sla s where s.ticket_id = t.id and s.due_at is not null)'
    -- Tickets whose internal notes name me (87_mentions.sql); listed newest mention first.
    when 'mentions' then 't.id in (select m.ticket_id from public.message_mentions mm join public.messages m on m.id = mm.message_id'
      || ' where mm.workspace_id = $2 and mm.user_id = $1)'
  end
$function$
;


  create policy "members change their own views, admins the team's"
  on "public"."saved_views"
  as permissive
  for update
  to authenticated
using (private.may_manage_view(workspace_id, owner_id, shared))
with check (private.may_manage_view(workspace_id, owner_id, shared));



  create policy "members delete their own views, admins the team's"
  on "public"."saved_views"
  as permissive
  for delete
  to authenticated
using (private.may_manage_view(workspace_id, owner_id, shared));



  create policy "members read the team's views and their own"
  on "public"."saved_views"
  as permissive
  for select
  to authenticated
using (((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)) AND (shared OR (owner_id = ( SELECT auth.uid() AS uid)))));



  create policy "members save their own views, admins the team's"
  on "public"."saved_views"
  as permissive
  for insert
  to authenticated
with check (((owner_id = ( SELECT auth.uid() AS uid)) AND private.may_manage_view(workspace_id, owner_id, shared)));


CREATE TRIGGER saved_views_check BEFORE INSERT OR UPDATE OF filters ON public.saved_views FOR EACH ROW EXECUTE FUNCTION private.check_saved_view();

CREATE TRIGGER ticket_field_values_touch AFTER INSERT OR DELETE OR UPDATE ON public.ticket_field_values FOR EACH ROW EXECUTE FUNCTION private.ticket_field_touch();

alter publication supabase_realtime add table public.message_mentions;
grant execute on function private.may_manage_view(p_workspace_id uuid, p_owner_id uuid, p_shared boolean) to authenticated;
grant execute on function private.saved_view_filters_ok(f jsonb) to authenticated;
grant execute on function private.saved_view_filters_ok(f jsonb) to service_role;
grant insert ("position") on table public.saved_views to authenticated;
grant insert (filters) on table public.saved_views to authenticated;
grant insert (name) on table public.saved_views to authenticated;
grant insert (shared) on table public.saved_views to authenticated;
grant insert (workspace_id) on table public.saved_views to authenticated;
grant update ("position") on table public.saved_views to authenticated;
grant update (filters) on table public.saved_views to authenticated;
grant update (name) on table public.saved_views to authenticated;
grant update (shared) on table public.saved_views to authenticated;
revoke delete on table public.saved_views from anon;
revoke execute on function private.check_saved_view() from public;
revoke execute on function private.counted_views() from public;
revoke execute on function private.inbox_field_filters(p_workspace_id uuid, p_fields jsonb) from public;
revoke execute on function private.inbox_field_sql(i integer, f jsonb) from public;
revoke execute on function private.inbox_query(p_query text) from public;
revoke execute on function private.inbox_search_plan(p_stmt text, p_pins text, p1 uuid, p2 uuid, p3 ticket_status, p4 ticket_priority, p5 uuid, p6 tsquery, p7 timestamp with time zone, p8 uuid, p9 integer, p10 uuid, p11 uuid[], p12 uuid[], p13 uuid[], p14 jsonb) from public;
revoke execute on function private.inbox_tag_ids(p_workspace_id uuid, p_tags text[]) from public;
revoke execute on function private.inbox_where(p_view text, p_status boolean, p_priority boolean, p_assignee text, p_tags boolean, p_fields jsonb) from public;
revoke execute on function private.may_manage_view(p_workspace_id uuid, p_owner_id uuid, p_shared boolean) from public;
revoke execute on function private.mentioned_at(p_ticket_id uuid, p_me uuid) from public;
revoke execute on function private.saved_view_count(p_workspace_id uuid, p_me uuid, f jsonb) from public;
revoke execute on function private.saved_view_filters_ok(f jsonb) from public;
revoke execute on function private.saved_views_json(p_workspace_id uuid, p_me uuid, p_count boolean) from public;
revoke execute on function private.tally_total(p_workspace_id uuid, p_me uuid, p_view text, p_status ticket_status, p_priority ticket_priority, p_assignee uuid, p_unassigned boolean) from public;
revoke execute on function private.ticket_field_touch() from public;
revoke execute on function public.inbox(p_slug text, p_view text, p_query text, p_status text, p_priority text, p_assignee text, p_after_at timestamp with time zone, p_after_id uuid, p_before_at timestamp with time zone, p_before_id uuid, p_limit integer, p_tags text[], p_fields jsonb, p_sort text) from anon;
revoke execute on function public.inbox(p_slug text, p_view text, p_query text, p_status text, p_priority text, p_assignee text, p_after_at timestamp with time zone, p_after_id uuid, p_before_at timestamp with time zone, p_before_id uuid, p_limit integer, p_tags text[], p_fields jsonb, p_sort text) from public;
revoke execute on function public.move_inbox_view(p_id uuid, p_up boolean) from anon;
revoke execute on function public.move_inbox_view(p_id uuid, p_up boolean) from public;
revoke execute on function public.rename_inbox_view(p_id uuid, p_name text) from anon;
revoke execute on function public.rename_inbox_view(p_id uuid, p_name text) from public;
revoke execute on function public.save_inbox_view(p_workspace_id uuid, p_name text, p_shared boolean, p_filters jsonb) from anon;
revoke execute on function public.save_inbox_view(p_workspace_id uuid, p_name text, p_shared boolean, p_filters jsonb) from public;
revoke insert on table public.saved_views from anon;
revoke insert on table public.saved_views from authenticated;
revoke maintain on table public.saved_views from anon;
revoke references on table public.saved_views from anon;
revoke select on table public.saved_views from anon;
revoke trigger on table public.saved_views from anon;
revoke truncate on table public.saved_views from anon;
revoke truncate on table public.saved_views from authenticated;
revoke update on table public.saved_views from anon;
revoke update on table public.saved_views from authenticated;

grant insert ("position") on table public.saved_views to authenticated;
grant insert (filters) on table public.saved_views to authenticated;
grant insert (name) on table public.saved_views to authenticated;
grant insert (shared) on table public.saved_views to authenticated;
grant insert (workspace_id) on table public.saved_views to authenticated;
grant update ("position") on table public.saved_views to authenticated;
grant update (filters) on table public.saved_views to authenticated;
grant update (name) on table public.saved_views to authenticated;
grant update (shared) on table public.saved_views to authenticated;
