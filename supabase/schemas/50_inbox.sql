-- What agents read: search, the inbox in one call (with tallies for its counts), the ticket page in
-- one call and the requester card.
--
-- inbox, ticket_page and requester_card are security definer because they cross row-level security
-- (for speed, or to read auth.users). Their explicit check is the members' policy itself: the caller
-- must be a member of the workspace, and every query is confined to that workspace, which is exactly
-- what "requesters and members read tickets" lets a member read.

-- ---------------------------------------------------------------------------------------------
-- Search. Under RLS, Postgres uses a qual as an index condition only if it is leakproof, and @@ is not:
-- a text search through the table never uses the GIN index. private.search_ticket_ids looks the matches
-- up with the GIN indexes (no RLS inside, so it checks membership itself), and search_tickets returns
-- those tickets through RLS by primary key. Use it like the table, with PostgREST filters on top:
--   rpc('search_tickets', { p_workspace_id, p_query }).eq('status', 'open').order('last_message_at')
-- p_query is websearch syntax (quoted phrases, "or", -exclusions).

-- For members: subject, public replies and notes; for anyone else, their own requests by subject and
-- public replies.
create function private.search_ticket_ids(p_workspace_id uuid, p_query text) returns uuid[]
language plpgsql stable security definer set search_path = '' as $$
declare
  q tsquery := websearch_to_tsquery('english'::regconfig, coalesce(p_query, ''));
begin
  if private.is_member(p_workspace_id) then
    return array(
      select s.id from public.tickets s where s.workspace_id = p_workspace_id and s.search @@ q
      union
      select m.ticket_id from public.messages m
       where m.workspace_id = p_workspace_id and m.kind = 'note' and to_tsvector('english'::regconfig, m.body) @@ q);
  end if;
  return array(
    select s.id from public.tickets s
     where s.workspace_id = p_workspace_id and s.requester_id = (select auth.uid()) and s.search @@ q);
end $$;
revoke all on function private.search_ticket_ids(uuid, text) from public;
grant execute on function private.search_ticket_ids(uuid, text) to authenticated, service_role;

-- plpgsql, so the matches are looked up once, not once per ticket row.
create function public.search_tickets(p_workspace_id uuid, p_query text)
returns setof public.tickets
language plpgsql stable security invoker set search_path = '' as $$
declare
  matches uuid[] := private.search_ticket_ids(p_workspace_id, p_query);
begin
  return query select t.* from public.tickets t where t.id = any (matches) and t.workspace_id = p_workspace_id;
end $$;
revoke execute on function public.search_tickets(uuid, text) from public, anon;
grant execute on function public.search_tickets(uuid, text) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Counts without counting: per workspace, how many tickets there are for each (status, priority,
-- assignee, snoozed or not) — at most 5 × 4 × (members + 1) × 2 rows — kept by statement triggers on tickets. Every view
-- count, and the total of any status/priority/assignee filter, is a sum over those few rows. Tickets in
-- Spam or Trash (54_spam_trash_split.sql) are counted in none.
create table private.ticket_tallies (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  status public.ticket_status not null,
  priority public.ticket_priority not null,
  assignee_id uuid,
  snoozed boolean not null default false,
  -- No check (n >= 0): Postgres checks the proposed row of an upsert before it sees the conflict, and a
  -- move out of a tally proposes a negative one.
  n bigint not null
);
create unique index ticket_tallies_key on private.ticket_tallies (workspace_id, status, priority, assignee_id, snoozed) nulls not distinct;

-- One statement, one upsert of the summed differences. Rows are taken in key order, so two statements
-- that touch the same tallies queue instead of deadlocking.
create function private.tally_tickets() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into private.ticket_tallies as t (workspace_id, status, priority, assignee_id, snoozed, n)
    select d.workspace_id, d.status, d.priority, d.assignee_id, d.snoozed_until is not null, count(*)
      from new_tickets d where d.spam_at is null and d.trashed_at is null group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, status, priority, assignee_id, snoozed) do update set n = t.n + excluded.n;
  elsif tg_op = 'UPDATE' then
    -- Differences are summed per key first: a statement that moves tickets back and forth nets out.
    insert into private.ticket_tallies as t (workspace_id, status, priority, assignee_id, snoozed, n)
    select d.workspace_id, d.status, d.priority, d.assignee_id, d.snoozed, sum(d.delta)
      from (select n.workspace_id, n.status, n.priority, n.assignee_id, n.snoozed_until is not null as snoozed, 1 as delta
              from new_tickets n where n.spam_at is null and n.trashed_at is null
            union all
            select o.workspace_id, o.status, o.priority, o.assignee_id, o.snoozed_until is not null, -1
              from old_tickets o where o.spam_at is null and o.trashed_at is null) d
     group by 1, 2, 3, 4, 5 having sum(d.delta) <> 0 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, status, priority, assignee_id, snoozed) do update set n = t.n + excluded.n;
  else
    -- Deleting tickets (a workspace going, with its tallies already gone by cascade): only what is left.
    update private.ticket_tallies t set n = t.n - d.n
      from (select o.workspace_id, o.status, o.priority, o.assignee_id, o.snoozed_until is not null as snoozed, count(*) as n
              from old_tickets o where o.spam_at is null and o.trashed_at is null group by 1, 2, 3, 4, 5) d
     where t.workspace_id = d.workspace_id and t.status = d.status and t.priority = d.priority
       and t.assignee_id is not distinct from d.assignee_id and t.snoozed = d.snoozed;
  end if;
  return null;
end $$;
create trigger tickets_tally_insert after insert on public.tickets
  referencing new table as new_tickets for each statement execute function private.tally_tickets();
-- (Postgres allows no column list with transition tables: updates that move no tally add nothing.)
create trigger tickets_tally_update after update on public.tickets
  referencing old table as old_tickets new table as new_tickets for each statement execute function private.tally_tickets();
create trigger tickets_tally_delete after delete on public.tickets
  referencing old table as old_tickets for each statement execute function private.tally_tickets();

-- TRUNCATE fires no row or transition triggers: it empties the tallies too.
create function private.clear_ticket_tallies() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from private.ticket_tallies;
  return null;
end $$;
create trigger tickets_tally_truncate after truncate on public.tickets
  for each statement execute function private.clear_ticket_tallies();

revoke all on function private.tally_tickets(), private.clear_ticket_tallies() from public;

-- ---------------------------------------------------------------------------------------------
-- The inbox views as SQL (constants only; values are always bound parameters). $1 is the caller.
-- Snoozed tickets (52_triage.sql) leave the views of work to do until they wake. Tickets in Spam or
-- Trash (54_spam_trash_split.sql) are in those views only.
create function private.inbox_view_filter(p_view text) returns text
language sql immutable set search_path = '' as $$
  select case p_view
    when 'spam' then 't.spam_at is not null and t.trashed_at is null'
    when 'trash' then 't.trashed_at is not null'
    else '(' || case p_view
    when 'unassigned' then 't.assignee_id is null and private.is_open(t.status) and t.snoozed_until is null'
    when 'mine' then 't.assignee_id = $1 and private.is_backlog(t.status) and t.snoozed_until is null'
    when 'open' then 'private.is_open(t.status) and t.snoozed_until is null'
    when 'pending' then 't.status = ''pending'' and t.snoozed_until is null'
    when 'snoozed' then 't.snoozed_until is not null'
    when 'solved' then 't.status = ''solved'''
    when 'all' then 'true'
    -- Tickets with a promise running (90_promises.sql); listed soonest due first.
    when 'breaching' then 'exists (select 1 from public.ticket_sla s where s.ticket_id = t.id and s.due_at is not null)'
  end || ') and t.spam_at is null and t.trashed_at is null' end
$$;

-- The workspace of p_slug and the caller's role in it, for the pages that only members see. Not a
-- member, or no such workspace: the same not_found (never reveal that a workspace exists).
create function private.membership(p_slug text, out workspace public.workspaces, out role public.member_role)
language plpgsql stable security definer set search_path = '' as $$
begin
  select w.* into workspace from public.workspaces w where w.slug = p_slug;
  select m.role into role from public.memberships m where m.workspace_id = (workspace).id and m.user_id = auth.uid();
  if auth.uid() is null or (workspace).id is null or role is null then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
end $$;

revoke all on function private.inbox_view_filter(text), private.membership(text) from public;

-- The plan of one of public.inbox's search statements (EXPLAIN, not run), for the log when the statement
-- timeout stopped it. Volatile: Postgres allows EXPLAIN only there, not in the stable inbox. Called by
-- the inbox (its owner) only; a lock the statement waited for is waited for again for at most 2 s.
create function private.inbox_search_plan(
  p_stmt text, p_pins text, p1 uuid, p2 uuid, p3 public.ticket_status, p4 public.ticket_priority, p5 uuid, p6 tsquery,
  p7 timestamptz, p8 uuid, p9 integer, p10 uuid, p11 uuid[], p12 uuid[], p13 uuid[]
) returns text
language plpgsql volatile set search_path = '' as $$
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
end $$;
revoke all on function private.inbox_search_plan(text, text, uuid, uuid, public.ticket_status, public.ticket_priority, uuid, tsquery,
  timestamptz, uuid, integer, uuid, uuid[], uuid[], uuid[]) from public;

-- The inbox in one call: the workspace, my role, the members, the view counts, one page of tickets
-- (newest activity first, keyset-paged) with requester and assignee names, and the cursors for the
-- pages around it.
create function public.inbox(
  p_slug text,
  p_view text default 'unassigned',
  p_query text default null,
  p_status text default null,
  p_priority text default null,
  p_assignee text default null,
  p_after_at timestamptz default null,
  p_after_id uuid default null,
  p_before_at timestamptz default null,
  p_before_id uuid default null,
  p_limit integer default 25,
  p_tags text[] default null
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
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
  -- "Breaching soon" is one page, soonest due first: no cursors.
  if p_view = 'breaching' then
    newer := false;
    older := false;
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
  elsif p_view = 'breaching' then
    -- Soonest due first, one page (ticket_sla_due_idx): the view has no further pages.
    execute format(
      'select array(select t.id from public.ticket_sla s join public.tickets t on t.id = s.ticket_id'
      || ' where s.workspace_id = $2 and s.due_at is not null and %s order by s.due_at, t.id limit $9)', base)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, null::timestamptz, null::uuid, p_limit + 1,
        requester, candidates, note_tickets, tag_ids;
  else
    execute format(
      'select array(select t.id from public.tickets t where %2$s order by t.last_message_at %1$s, t.id %1$s limit $9)', dir, base)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, coalesce(p_after_at, p_before_at), coalesce(p_after_id, p_before_id), p_limit + 1,
        requester, candidates, note_tickets, tag_ids;
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
              -- Not in the tallies: counted on their own small indexes (tickets_spam_idx, tickets_trash_idx).
              || jsonb_build_object(
                 'spam', (select count(*) from public.tickets t where t.workspace_id = ws.id and t.spam_at is not null and t.trashed_at is null),
                 'trash', (select count(*) from public.tickets t where t.workspace_id = ws.id and t.trashed_at is not null)),
    -- Without a search or tags the view's total, filters included, is exact from the tallies too.
    'total', case when p_view in ('spam', 'trash') then case when q is null and tag_ids is null and p_status is null
                                                               and p_priority is null and p_assignee is null then (
               select count(*) from public.tickets t where t.workspace_id = ws.id
                  and case when p_view = 'spam' then t.spam_at is not null and t.trashed_at is null else t.trashed_at is not null end) end
             when q is null and tag_ids is null and p_view <> 'breaching' then (
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
                   'tags', private.ticket_tags_json(t.id), 'due_at', s.due_at, 'warn_at', s.warn_at) order by u.i), '[]')
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
end $$;
revoke all on function public.inbox(text, text, text, text, text, text, timestamptz, uuid, timestamptz, uuid, integer, text[]) from public, anon;
grant execute on function public.inbox(text, text, text, text, text, text, timestamptz, uuid, timestamptz, uuid, integer, text[]) to authenticated, service_role;

-- The requester card on an agent's ticket page: who they are (name, and the email address that
-- profiles don't hold) and their other recent requests here. Requesters and other workspaces get
-- not_found. The card itself is private.requester_card_json, which ticket_page calls with the ticket
-- it has already read and checked.
create function private.requester_card_json(p_ticket_id uuid, p_workspace_id uuid, p_requester_id uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object(
    'user_id', p_requester_id,
    'name', coalesce((select p.display_name from public.profiles p where p.user_id = p_requester_id), 'Unknown'),
    'email', (select u.email from auth.users u where u.id = p_requester_id),
    'requests', (select count(*) from public.tickets o where o.requester_id = p_requester_id and o.workspace_id = p_workspace_id
                    and o.trashed_at is null),
    'recent', (select coalesce(jsonb_agg(jsonb_build_object('number', o.number, 'subject', o.subject, 'status', o.status, 'last_message_at', o.last_message_at)
                                         order by o.last_message_at desc), '[]')
                 from (select o.number, o.subject, o.status, o.last_message_at from public.tickets o
                        where o.requester_id = p_requester_id and o.workspace_id = p_workspace_id and o.id <> p_ticket_id
                          and o.trashed_at is null
                        order by o.last_message_at desc limit 5) o))
$$;
revoke all on function private.requester_card_json(uuid, uuid, uuid) from public;

create function public.requester_card(p_ticket_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  ws_id uuid;
  requester uuid;
begin
  select t.workspace_id, t.requester_id into ws_id, requester from public.tickets t where t.id = p_ticket_id;
  if ws_id is null or not private.is_member(ws_id) then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  return private.requester_card_json(p_ticket_id, ws_id, requester);
end $$;
revoke all on function public.requester_card(uuid) from public, anon;
grant execute on function public.requester_card(uuid) to authenticated, service_role;

-- An agent's ticket page in one call: the workspace and my role, the members, the ticket, its thread
-- (notes included), its latest 100 events, the display names of everyone shown, the requester card,
-- and what the page's header, sidebar and composer need besides (the canned replies' titles, my
-- signature, the custom fields with this ticket's values, the requester's rating): one round trip per
-- page (docs/decisions/066-page-cost.md).
-- The thread is a window (docs/product.md §2, issue 27 item 12): the newest p_page messages, and
-- with p_earlier_at/p_earlier_id (the oldest message shown so far) everything from there on plus
-- p_page before it. One more than asked is sent before the window when there is one: the app shows
-- "Show earlier messages" for it. 'mine': how many messages I wrote here (the kept draft's counter).
-- Nothing else reads the whole thread or history, so a 1 000-message ticket costs what a 30-message
-- one does (066): the thread is read backwards on messages_ticket_idx (a bitmap scan would read every
-- message and sort them; the planner can't know a ticket's length, so it is told), names are looked up
-- for the people the window and the events shown name, and the ticket's row is read without its
-- search vector (which grows with the thread).
create function public.ticket_page(p_slug text, p_number integer, p_page integer default 30,
                                   p_earlier_at timestamptz default null, p_earlier_id uuid default null) returns jsonb
language plpgsql stable security definer set search_path = '' set enable_bitmapscan = off as $$
declare
  member record;
  ws public.workspaces;
  me uuid := auth.uid();
  t record;
  thread jsonb;
  events jsonb;
  people uuid[];
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  select x.id, x.number, x.subject, x.status, x.priority, x.requester_id, x.assignee_id, x.created_at, x.first_response_at,
         x.solved_at, x.snoozed_until, x.merged_into_id, x.spam_at, x.trashed_at
    into t from public.tickets x where x.workspace_id = ws.id and x.number = p_number;
  if t.id is null then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'kind', m.kind, 'body', m.body, 'created_at', m.created_at,
                                               'author_id', m.author_id,
                                               'attachments', (select coalesce(jsonb_agg(jsonb_build_object(
                                                   'id', a.id, 'file_name', a.file_name, 'size', a.size, 'mime_type', a.mime_type)
                                                   order by a.created_at, a.file_name), '[]')
                                                 from public.attachments a where a.message_id = m.id))
                    order by m.created_at, m.id), '[]'),
         array_agg(distinct m.author_id) filter (where m.author_id is not null)
    into thread, people
    from ((select m.id, m.kind, m.body, m.created_at, m.author_id from public.messages m
            where m.ticket_id = t.id and p_earlier_at is not null
              and (m.created_at, m.id) >= (p_earlier_at, p_earlier_id))
          union all
          (select m.id, m.kind, m.body, m.created_at, m.author_id from public.messages m
            where m.ticket_id = t.id
              and (p_earlier_at is null or (m.created_at, m.id) < (p_earlier_at, p_earlier_id))
            order by m.created_at desc, m.id desc
            limit least(greatest(p_page, 1), 100) + 1)) m;
  -- The newest 100 changes; the people they name (who acted, and assignees before and after, former
  -- members included) get names.
  select coalesce(jsonb_agg(jsonb_build_object('id', e.id, 'actor_id', e.actor_id, 'type', e.type, 'from', e."from",
                                               'to', e."to", 'from_ticket', e.from_ticket, 'field', e.field,
                                               'created_at', e.created_at)
                            order by e.created_at desc, e.id desc), '[]'),
         people || array_agg(e.actor_id) filter (where e.actor_id is not null)
                || array_agg(e."from"::uuid) filter (where e.type = 'assignee' and e."from" ~ '^[0-9a-f-]{36}$')
                || array_agg(e."to"::uuid) filter (where e.type = 'assignee' and e."to" ~ '^[0-9a-f-]{36}$')
    into events, people
    from (select e.id, e.actor_id, e.type, e."from", e."to", e.from_ticket, e.field, e.created_at from public.ticket_events e
           where e.ticket_id = t.id order by e.created_at desc, e.id desc limit 100) e;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', member.role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role) order by m.user_id), '[]')
                  from public.memberships m where m.workspace_id = ws.id),
    'ticket', jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                                 'requester_id', t.requester_id, 'assignee_id', t.assignee_id, 'created_at', t.created_at,
                                 'first_response_at', t.first_response_at, 'solved_at', t.solved_at,
                                 'snoozed_until', t.snoozed_until, 'tags', private.ticket_tags_json(t.id),
                                 -- In Spam or Trash (54_spam_trash_split.sql).
                                 'spam_at', t.spam_at, 'trashed_at', t.trashed_at,
                                 -- Merged (52_triage.sql): the number of the ticket its page leads to.
                                 'merged_into', (select m.number from public.tickets m where m.id = t.merged_into_id)),
    -- The promise running, if any (90_promises.sql): the header's due-time badge.
    'sla', (select jsonb_build_object('target', s.target, 'due_at', s.due_at, 'warn_at', s.warn_at)
              from public.ticket_sla s where s.ticket_id = t.id and s.due_at is not null),
    'messages', thread,
    'mine', (select count(*) from public.messages m where m.ticket_id = t.id and m.author_id = me),
    'events', events,
    'names', (select coalesce(jsonb_object_agg(p.user_id, p.display_name), '{}')
                from public.profiles p
               where p.user_id = any (people || t.requester_id || t.assignee_id
                                      || array(select m.user_id from public.memberships m where m.workspace_id = ws.id))),
    'requester', private.requester_card_json(t.id, ws.id, t.requester_id),
    -- The composer's canned replies (45_canned_replies.sql; their titles, which the app sorts as people read)
    -- and my signature (86_signatures.sql), and the sidebar's custom fields with this ticket's values
    -- (58_ticket_fields.sql), as public.ticket_field_list answers.
    'canned', (select coalesce(jsonb_agg(jsonb_build_object('title', c.title)), '[]') from public.canned_replies c where c.workspace_id = ws.id),
    'signature', (select s.body from public.signatures s where s.user_id = me),
    'fields', (select coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'label', f.label, 'kind', f.kind, 'options', f.options,
                                                            'required_on_solve', f.required_on_solve, 'value', v.value)
                                         order by f.position, f.created_at, f.id), '[]')
                 from public.ticket_fields f
                 left join public.ticket_field_values v on v.ticket_id = t.id and v.field_id = f.id
                where f.workspace_id = ws.id),
    -- The requester's latest answer to a satisfaction survey (92_satisfaction.sql), if any.
    'rating', (select jsonb_build_object('rating', s.rating, 'comment', s.comment) from public.csat_surveys s
                where s.ticket_id = t.id and s.rating is not null order by s.created_at desc limit 1)
  );
end $$;
revoke all on function public.ticket_page(text, integer, integer, timestamptz, uuid) from public, anon;
grant execute on function public.ticket_page(text, integer, integer, timestamptz, uuid) to authenticated, service_role;
