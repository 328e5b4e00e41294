-- (By hand: the columns' collate "C", which db diff leaves out of a new table; "procedure" in the revoke of one.)

create table "private"."search_pair_words" (
    "word" text collate "C" not null
      );



  create table "private"."search_words_apart" (
    "a" text collate "C" not null,
    "b" text collate "C" not null
      );


CREATE UNIQUE INDEX search_pair_words_pkey ON private.search_pair_words USING btree (word);

CREATE UNIQUE INDEX search_words_apart_pkey ON private.search_words_apart USING btree (a, b);

alter table "private"."search_pair_words" add constraint "search_pair_words_pkey" PRIMARY KEY using index "search_pair_words_pkey";

alter table "private"."search_words_apart" add constraint "search_words_apart_pkey" PRIMARY KEY using index "search_words_apart_pkey";

alter table "private"."search_words_apart" add constraint "search_words_apart_check" CHECK ((a <> b)) not valid;

alter table "private"."search_words_apart" validate constraint "search_words_apart_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.inbox_words_apart(p_query tsquery)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  -- Each word, unescaped, and its group's number.
  words text[] := '{}';
  groups integer[] := '{}';
  token text[];
  n integer := 1;
  met boolean;
begin
  if regexp_replace(p_query::text, '''(?:[^'']|'''')*''', 'w', 'g') !~ '^w( & (w|\( w( \| w)* \)))+$' then
    return false;
  end if;
  for token in select regexp_matches(p_query::text, '''((?:[^'']|'''')*)''|(&)', 'g') loop
    if token[2] is not null then
      n := n + 1;
    else
      words := words || regexp_replace(token[1], '\\(.)|''('')', '\1\2', 'g');
      groups := groups || n;
    end if;
  end loop;
  -- Two groups each word of one of which is apart from each word of the other: an index probe a pair.
  for i in 1..n - 1 loop
    for j in i + 1..n loop
      met := false;
      for x in 1..cardinality(words) loop
        continue when groups[x] <> i;
        for y in 1..cardinality(words) loop
          continue when groups[y] <> j;
          met := not exists (select from private.search_words_apart p where p.a = words[x] collate "C" and p.b = words[y] collate "C");
          exit when met;
        end loop;
        exit when met;
      end loop;
      if not met then
        return true;
      end if;
    end loop;
  end loop;
  return false;
end $function$
;

CREATE OR REPLACE PROCEDURE private.keep_common_search_pairs(INOUT added integer DEFAULT 0)
 LANGUAGE plpgsql
AS $procedure$
declare
  word text;
begin
  added := 0;
  for word in
    select e.w from pg_catalog.pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) e(w, f)
     where s.schemaname = 'public' and s.tablename = 'tickets' and s.attname = 'search' and e.f >= 0.01
     order by e.f desc limit 200 loop
    added := added + private.keep_search_pairs(array[word]);
    commit;
  end loop;
end $procedure$
;

CREATE OR REPLACE FUNCTION private.keep_search_pairs(p_words text[])
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  added text[];
  new_word text collate "C";
begin
  perform pg_advisory_xact_lock(private.search_pairs_lock());
  with n as (
    insert into private.search_pair_words (word)
    select distinct w from unnest(p_words) w where w <> '' on conflict do nothing returning search_pair_words.word
  ) select coalesce(array_agg(n.word), '{}') into added from n;
  foreach new_word in array added loop
    insert into private.search_words_apart (a, b)
    select x.a, x.b from private.search_pair_words k, lateral (values (new_word, k.word), (k.word, new_word)) x(a, b)
     where k.word <> new_word
       and k.word not in (select s.word collate "C" from pg_catalog.ts_stat(format('select search from public.tickets where search @@ %L::tsquery',
             '''' || replace(replace(new_word, '\', '\\'), '''', '''''') || '''')) s)
    on conflict do nothing;
  end loop;
  return cardinality(added);
end $function$
;

CREATE OR REPLACE FUNCTION private.meet_search_words()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  words text[];
  added text[];
  met record;
begin
  perform pg_advisory_xact_lock_shared(private.search_pairs_lock());
  if not exists (select from private.search_words_apart) then
    return null;
  end if;
  if tg_op = 'INSERT' then
    for words in select tsvector_to_array(n.search) from new_rows n loop
      for met in select p.a, p.b from private.search_words_apart p where p.a = any (words collate "C") and p.b = any (words collate "C") loop
        delete from private.search_words_apart p where (p.a = met.a and p.b = met.b) or (p.a = met.b and p.b = met.a);
      end loop;
    end loop;
  else
    for words, added in
      select tsvector_to_array(n.search), tsvector_to_array(ts_delete(n.search, tsvector_to_array(o.search)))
        from new_rows n join old_rows o on o.id = n.id where n.search is distinct from o.search loop
      for met in select p.a, p.b from private.search_words_apart p where p.a = any (added collate "C") and p.b = any (words collate "C") loop
        delete from private.search_words_apart p where (p.a = met.a and p.b = met.b) or (p.a = met.b and p.b = met.a);
      end loop;
    end loop;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.search_pairs_lock()
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select hashtextextended('search words apart', 0) $function$
;

CREATE OR REPLACE FUNCTION public.inbox(p_slug text, p_view text DEFAULT 'unassigned'::text, p_query text DEFAULT NULL::text, p_status text DEFAULT NULL::text, p_priority text DEFAULT NULL::text, p_assignee text DEFAULT NULL::text, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid, p_before_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_before_id uuid DEFAULT NULL::uuid, p_limit integer DEFAULT 25, p_tags text[] DEFAULT NULL::text[], p_fields jsonb DEFAULT NULL::jsonb, p_sort text DEFAULT NULL::text)
 RETURNS json
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET plan_cache_mode TO 'force_generic_plan'
 SET max_parallel_workers_per_gather TO '0'
 SET work_mem TO '16MB'
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
  rare_words boolean;
  -- No ticket's search holds two of the words together (private.inbox_words_apart): only notes and a requester match.
  words_apart boolean := false;
  -- None of the view's newest tickets (a count window of them) match the words: step 1's window skipped (below).
  newest_none boolean := false;
  -- Step 1 walked on for the counts too (All's first page, below): what private.inbox_words_newest would walk.
  newest_walked boolean := false;
  walk_counts boolean;
  note_tickets uuid[] := '{}';
  pins text := '';
  match text;
  stmt text;
  candidates uuid[] := '{}';
  cursor_at timestamptz := coalesce(p_after_at, p_before_at);
  cursor_id uuid := coalesce(p_after_id, p_before_id);
  search_timed_out boolean := false;
  search_plan text;
  -- Read apart from the page's one select, and only when there is something to read: a statement that
  -- names messages waits for a lock on them even where it would read no row (a search stopped by such a
  -- lock must still answer).
  previews jsonb := '{}';
  mentioned bigint;
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
  -- A search's matches per view, counted up to count_cap: while searching the tabs say where the matches
  -- are, "100+" past it (docs/product.md#views-saved-views-mentions-and-search-the-inbox, "Search across views";
  -- docs/decisions/092-search-count-cap.md). Its walks, and the notes it counts, scale with it.
  search_counts jsonb;
  count_cap constant integer := 100;
  count_where text;
  count_match text;
  count_views text;
  -- A tag on at most this many tickets is rare: the page starts from its tickets (5 000 for 25 rows; a
  -- page of one reaches both ways at small scale, tests/integration/db-tags.test.ts).
  rare_tag integer := least(200 * p_limit, 20000);
  -- Rare words with common tags: each match's tags probed (below).
  probe_tags boolean;
  -- The rare tag the page starts from (its place in tag_ids).
  rare_at integer;
  page_ids uuid[];
  has_more boolean;
  result json;
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
  fields := private.inbox_tags_none(tag_ids, fields);
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
  base := private.inbox_where(p_view, p_status is not null, p_priority is not null, p_assignee, cardinality(tag_ids), fields)
    || case when by_mention then '' else format(cursor_sql, 't.last_message_at', 't.id') end;
  dir := case when newer = oldest then 'desc' else 'asc' end;
  if p_query ~ '^\s*[^\s@]+@[^\s@]+\s*$' then
    select u.id into requester from auth.users u where u.email = lower(btrim(p_query)) and not u.is_sso_user;
  end if;
  if p_query ~ '^\s*#?\d{1,9}\s*$' then
    select t.number into ticket_number from public.tickets t
     where t.workspace_id = ws.id and t.number = (regexp_replace(p_query, '[^0-9]', '', 'g'))::integer;
  end if;
  -- A search with several tags: the rare one (private.inbox_rare_tag), step 1's walk and the test below.
  if q is not null and cardinality(tag_ids) > 1 then
    rare_at := private.inbox_rare_tag(tag_ids, rare_tag);
  end if;
  if q is not null and ((numnode(q) = 0 and requester is null) or (rare_at is not null and not private.inbox_tags_meet(tag_ids, rare_at))
                         or coalesce(fields @> '[{"none": true}]', false)) then
    -- Only stop words ("the") or punctuation: nothing can match, and an empty query would make the
    -- GIN path below read every ticket. Or tags that none of the rare tag's tickets carry together
    -- (private.inbox_tags_meet): nothing can match, which the steps below learn only by reading every match. Or a tag
    -- on no ticket, or a field that isn't one (private.inbox_tags_none, inbox_field_sql): the same, where the counts
    -- still read the notes' matches ("tag:nosuch warehouse": 67 000 notes' bitmap, 10 × a view's CPU at 1 M).
    page_ids := '{}';
    search_counts := private.inbox_no_counts();
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
    -- Notes the statistics say are many (private.inbox_query_stats' notes_common) are not read first: the GIN index's
    -- bitmap holds every matching note (docs/decisions/095-common-note-words.md). Each ticket's are probed,
    -- and note_tickets stays null until a step that needs the set reads it (notes_stmt, the first n + 1).
    declare
      -- The matches' counts through the indexes (count_stmt), when they were counted there.
      count_stmt text;
      indexed jsonb;
      -- Step 2's every match of the words among these tickets, when it read them all (at most search_cap).
      word_matches uuid[];
      -- Whether the count through the indexes takes them (below).
      from_matches boolean := false;
      notes_stmt text := 'select array(select m.ticket_id from public.messages m where m.workspace_id = $2 and m.kind = ''note'''
        || ' and to_tsvector(''english''::regconfig, m.body) @@ $6 limit %s)';
      -- What the statistics say of the words (rare_words, notes_common: private.inbox_query_stats), read once.
      stats record := private.inbox_query_stats(q, search_notes);
      notes_common boolean := stats.notes_common;
    begin
      -- Step 1 is skipped for rare words (below): told from the search as typed (a prefix: the common words it
      -- begins), as are the notes above. Then the prefix becomes the words it begins (private.inbox_prefix_words):
      -- the same matches, without a GIN bitmap of all of them ("tracking number": 'number':*, 83 000 tickets).
      rare_words := stats.rare;
      q := private.inbox_prefix_words(q);
      -- Common words that never meet (rare words' GIN look-up is a few pages): step 2's look-ups of the words are known to
      -- find none, where the GIN index would merge both words' posting lists whole to learn it ("tracking number": ~16 ms
      -- at 1 M; docs/decisions/122-words-apart.md). Every other statement runs as before.
      words_apart := not rare_words and private.inbox_words_apart(q);
      if notes_common then
        note_tickets := null;
      else
        pins := private.inbox_pin('bitmap');
        stmt := format(notes_stmt, search_notes + 1);
        execute stmt into note_tickets
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
        pins := private.inbox_pin('');
      end if;
      match := '(t.search @@ $6 or ' || case when cardinality(note_tickets) <= search_notes then 't.id = any ($12)'
        else 'coalesce((select true from public.messages m where m.ticket_id = t.id and m.kind = ''note'''
          || ' and to_tsvector(''english''::regconfig, m.body) @@ $6 limit 1), false)' end || ')';
      -- Step 1, unless the words are rare (rare_words, above: private.inbox_query_stats) and so are the notes: then
      -- the window could not fill the page, and reading it (a heap fetch a ticket) cost more than the GIN look-up
      -- that follows.
      -- Rare words with common tags: step 2 and the count through the indexes probe each match's tags, not a hash of
      -- every tagged ticket, which the planner chose from the GIN index's estimate (5 000 of 1 M for a prefix):
      -- "billing"'s 100 000 for "espresso"'s 99 matches. (A rare tag's tickets are few: the planner may start there.)
      probe_tags := rare_words and tag_ids is not null
        and (select bool_and(private.inbox_tag_common(x, rare_tag)) from unnest(tag_ids) x);
      -- Rare words with a rare tag: the tag's rows hashed once and the words' matches looked up in it
      -- (private.inbox_tag_hashed), any other tags probed as above, where the planner started from the tag's
      -- tickets, each fetched ("tag:vip espresso": 2 001 for 99 matches; docs/decisions/097-tags-apart-and-rare-words.md).
      if rare_words and tag_ids is not null and not probe_tags then
        rare_at := coalesce(rare_at, private.inbox_rare_tag(tag_ids, rare_tag));
        if rare_at is not null then
          base := private.inbox_tag_hashed(base, rare_at);
          probe_tags := true;
        end if;
      end if;
      -- All's first page, common words, at most one tag, the notes' tickets read and no more than the counts take, no
      -- requester: step 1's walk and the counts' walk read the same tickets in the same order (the counts' first), so
      -- one walk gives both (below).
      walk_counts := coalesce(p_view = 'all' and cursor_sql = '' and dir = 'desc' and requester is null and not rare_words
        and p_limit <= count_cap and cardinality(note_tickets) <= least(search_notes, count_cap)
        and coalesce(cardinality(tag_ids), 1) = 1, false);
      count_views := (select string_agg(format('%L, count(*) filter (where %s)', v, private.inbox_view_filter(v)), ', ')
                        from unnest(private.counted_views()) v);
      if walk_counts then
        -- Step 1 walked on to the counts' first count_cap + 1 matches: the page is the first p_limit + 1 of them, the counts
        -- (past the cap) their views' shares, from one statement that reads each ticket once, where step 1 and the counts'
        -- walk read the first ones twice, each statement planned apart ("refund parcel": the newest ~220 tickets again;
        -- "tag:billing refund": ~190 of billing's tickets; docs/decisions/109-one-walk-for-page-and-counts.md). Found fewer
        -- than the page: step 2, as when step 1's window doesn't fill it. Counted no more than the cap: the counts go on
        -- as before (those walks would find the same, but for a tag's, which is read in another order).
        --  - With the tag: its first 10 windows in the page's order (step 1's walk), not in ticket_tags_tag_idx's order as
        --    private.inbox_newest_matches walks it: past the cap the shares of other matches, as
        --    docs/decisions/092-search-count-cap.md allows; under it, exact either way when the walk read the whole tag.
        --  - Without: the workspace's newest 40 count windows, as private.inbox_words_newest walks them, when its probe (one
        --    match among the newest count window) and step 1's (the view's) both find one; else the GIN indexes as before.
        stmt := format('select p.hit, w.page, w.counts from (select %1$s as hit) p, lateral (select'
          || ' (array_agg(t.id order by t.walk_at desc, t.id desc))[1:$9] as page, case when count(*) > %3$s and %2$s then'
          || ' jsonb_build_object(%4$s, ''capped'', true) end as counts from (%5$s limit %6$s) t where p.hit) w',
          case when tag_ids is null then format('exists (select from (select t.id, t.search from public.tickets t where %s'
                 || ' order by t.last_message_at desc, t.id desc limit %s) t where %s)', base, least(search_window, count_cap), match)
               else 'true' end,
          case when tag_ids is null then format('exists (select from (select t.* from public.tickets t where t.workspace_id = $2'
                 || ' order by t.last_message_at desc, t.id desc limit %s) t where %s and %s)', least(search_window, count_cap), base, match)
               else 'true' end,
          count_cap, count_views,
          case when tag_ids is null then format('select t.*, t.last_message_at as walk_at from (select t.* from public.tickets t'
                 || ' where t.workspace_id = $2 order by t.last_message_at desc, t.id desc limit %s) t where %s and %s',
                 40 * least(search_window, count_cap), base, match)
               else format('select t.*, r.last_message_at as walk_at from (select r.* from public.ticket_tags r where r.tag_id = $13[1]'
                 || ' order by r.last_message_at desc, r.ticket_id desc limit %s) r join public.tickets t on t.id = r.ticket_id'
                 || ' where %s and %s order by r.last_message_at desc, r.ticket_id desc', 10 * search_window,
                 private.inbox_where_tag(base, 1), match) end,
          count_cap + 1);
        -- In order on the indexes, as the counts' walks: never a bitmap of every match, nor a hash of a tag's rows.
        pins := private.inbox_pin('walk');
        execute stmt into newest_walked, page_ids, search_counts
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
        pins := private.inbox_pin('');
        -- None of the view's newest match: null, as step 1's window below answers then.
        page_ids := case when newest_walked then coalesce(page_ids, '{}') end;
        newest_walked := newest_walked and tag_ids is null;
      end if;
      if (not rare_words or notes_common) and not walk_counts then
        if tag_ids is not null then
          -- With tags: a tag's newest tickets in the page's order (ticket_tags_activity_idx), each fetched and tested
          -- with the words and the rest, 10 windows of them at most, not the view's newest tickets each probed for the
          -- tags: "tag:billing refund" reads 147 of billing's, where it walked 1 456 tickets probing each one's tags.
          -- The rare tag if there is one (private.inbox_rare_tag), else the first.
          stmt := private.inbox_tag_page_sql(private.inbox_where(p_view, p_status is not null, p_priority is not null, p_assignee,
            cardinality(tag_ids), fields) || ' and ' || match,
            coalesce(rare_at, 1),
            dir, cursor_sql, 10 * search_window);
        else
          -- Only when one of the view's newest count window (100 for 25 rows) matches: else the window could hardly fill the
          -- page, and the GIN indexes answer (step 2) without it ("tracking number", two common words no ticket has
          -- together: 1 000 tickets read for nothing; docs/decisions/105-search-cost-at-a-million.md). Null then (the window
          -- not read: an initplan runs only when asked for).
          stmt := format(
            'select case when exists (select from (select t.id, t.search from public.tickets t where %2$s'
            || ' order by t.last_message_at %1$s, t.id %1$s limit %5$s) t where %4$s)'
            || ' then array(select t.id from (select t.id, t.last_message_at, t.search from public.tickets t where %2$s'
            || ' order by t.last_message_at %1$s, t.id %1$s limit %3$s) t where %4$s order by t.last_message_at %1$s, t.id %1$s limit $9) end',
            dir, base, search_window, match, least(search_window, count_cap));
        end if;
        execute stmt into page_ids
          using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
      end if;
      if not rare_words or notes_common then
        if page_ids is null then
          page_ids := '{}';
          -- All's newest, with the filters: what the counts' walks of the newest tickets would read first (the page's match
          -- is theirs or more; not with a requester, whom they count too; not the oldest first).
          newest_none := p_view = 'all' and cursor_sql = '' and dir = 'desc' and requester is null;
        end if;
      end if;
      if (rare_words and not notes_common) or cardinality(page_ids) <= p_limit then
        -- Step 2 through the GIN indexes only (bitmap scans): never a walk of the view testing each row.
        pins := private.inbox_pin('bitmap');
        if not rare_words and p_view <> 'all' and cursor_sql = '' and words_apart then
          word_matches := '{}';
        elsif not rare_words and p_view <> 'all' and cursor_sql = '' then
          -- Common words in another view's first page: first every match among the tickets the counts cover (All with
          -- the filters), which the counts then take (below) instead of a second GIN look-up ("tracking number" in
          -- Open: each look-up ~11 ms at 1 M); at most search_cap of them, the view's are they in the view, sorted.
          stmt := format('select array(select t.id from public.tickets t where %s and t.search @@ $6 limit %s)',
            private.inbox_where('all', p_status is not null, p_priority is not null, p_assignee, cardinality(tag_ids), fields), search_cap + 1);
          execute stmt into word_matches
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
          word_matches := case when cardinality(word_matches) <= search_cap then word_matches end;
        end if;
        -- In the page's order: without notes to add they are the page (all of them in the view already).
        stmt := format('select array(select t.id from (select t.id, t.last_message_at from public.tickets t where %2$s'
          || case when word_matches is null then ' and t.search @@ $6' else ' and t.id = any ($11)' end
          || ' limit %3$s) t order by t.last_message_at %1$s, t.id %1$s)', dir, base, search_cap + 1);
        if probe_tags then
          pins := private.inbox_pin('bitmap, probe');
        end if;
        candidates := case when words_apart then '{}' else word_matches end;
        if not words_apart then
          execute stmt into candidates
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
        end if;
        -- Every match among the tickets the counts cover: All's first page's (base is then the counts' where), or the above.
        if p_view = 'all' and cursor_sql = '' then
          word_matches := case when cardinality(candidates) <= search_cap then candidates end;
        end if;
        pins := private.inbox_pin('bitmap');
        if note_tickets is null and cardinality(candidates) <= search_cap then
          stmt := format(notes_stmt, search_notes + 1);
          execute stmt into note_tickets
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
        end if;
        if cardinality(candidates) <= search_cap and cardinality(note_tickets) <= search_notes then
          candidates := candidates || note_tickets;
        elsif cardinality(candidates) <= search_cap then
          stmt := format('select $11 || (%s)', format(notes_stmt, search_cap + 1));
          execute stmt into candidates
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
        end if;
        pins := private.inbox_pin('');
        if cardinality(candidates) <= search_cap and cardinality(note_tickets) = 0 then
          -- Sorted, and every one in the view: the page is their first rows (no second look-up by id).
          page_ids := candidates[1:p_limit + 1];
        else
          if cardinality(candidates) <= search_cap then
            stmt := format(
              'select array(select t.id from public.tickets t where t.id = any ($11) and %2$s order by t.last_message_at %1$s, t.id %1$s limit $9)',
              dir, base);
          else
            -- Step 3: the view's own index, in order (no sort of every match, no full scan).
            pins := private.inbox_pin('ordered');
            stmt := format(
              'select array(select t.id from public.tickets t where %2$s and %3$s order by t.last_message_at %1$s, t.id %1$s limit $9)',
              dir, base, match);
          end if;
          execute stmt into page_ids
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
          pins := private.inbox_pin('');
        end if;
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
      -- view: the first count_cap + 1 matches, so past the cap the counts are "at least" (capped). A tag's
      -- tickets or a common word among the newest tickets when they decide (private.inbox_newest_matches);
      -- else through the indexes (bitmap scans, as in step 2), so a rare word costs a few index pages.
      -- Rare words (step 1's private.inbox_query_stats) are counted through the indexes first: under the cap
      -- that count is exact, and the walks could only have come to it too (a walk that decides finds more
      -- than count_cap, or all of a tag); past the cap the walks decide as for any word. No probe of the
      -- newest tickets (count_cap heap rows) for a word that is in few of them. The notes counted: the tickets
      -- of the first count_cap matching notes (fewer for a smaller page's notes set); more notes than that make
      -- the counts lower bounds (capped). Notes not read yet (many, private.inbox_query_stats): first a walk
      -- of the newest tickets without them (pass 1), which decides only past the cap, on count_cap + 1 true
      -- matches (lower bounds, as every count past it); undecided, the notes are read and counted as before.
      -- Not with tags (a tag walked whole counts exactly) nor rare words (the indexes first).
      count_where := private.inbox_where('all', p_status is not null, p_priority is not null, p_assignee, cardinality(tag_ids), fields);
      if rare_words and probe_tags and rare_at is not null then
        count_where := private.inbox_tag_hashed(count_where, rare_at);
      end if;
      count_match := '(t.search @@ $6 or t.id = any ($12)' || case when requester is not null then ' or t.requester_id = $10' else '' end || ')';
      count_stmt := format('select jsonb_build_object(%s, ''capped'', count(*) > %s) from (select t.* from public.tickets t where %s'
        || ' and %s limit %s) t', count_views, count_cap, count_where, count_match, count_cap + 1);
      if word_matches is not null and not rare_words then
        -- A first page, common words: step 2 read every ticket the words match among the very tickets counted. The count
        -- through the indexes takes them from it ($11), not from a second bitmap of the GIN index ("tracking number": two common
        -- words no ticket has together, each word's posting list read whole, ~50 ms at 1 M); the same rows in the same
        -- (physical) order. Not for rare words: their bitmap is small, and planning with their ids as values cost more.
        count_stmt := replace(count_stmt, '(t.search @@ $6 or', '(t.id = any ($11) or');
        candidates := word_matches;
        from_matches := true;
        if cardinality(word_matches) = 0 and cardinality(note_tickets) = 0 and requester is null then
          -- Step 2 read every match: none, nor a note's. Every view's count is 0, without a statement.
          search_counts := private.inbox_no_counts();
        end if;
      end if;
      for pass in 1..3 loop
        if pass = 2 and search_counts is null and tag_ids is null and not rare_words and not newest_none and not newest_walked then
          -- Common words: the newest 4 000 tickets (private.inbox_words_newest), before the notes and the indexes. With
          -- the notes not read, each ticket's are probed (the page's match); else the first count_cap notes' tickets.
          stmt := format('private.inbox_words_newest: %s and %s', count_where, count_match);
          search_counts := private.inbox_words_newest(least(search_window, count_cap),
            format('jsonb_build_object(%s, ''capped'', count(*) > %s)', count_views, count_cap), count_where,
            case when note_tickets is null then '(' || match || case when requester is not null then ' or t.requester_id = $10' else '' end || ')'
                 else count_match end,
            me, ws.id, status_filter, priority_filter, assignee, q, requester, note_tickets[1:least(search_notes, count_cap)], tag_ids, fields,
            count_cap);
        end if;
        if pass = 2 and search_counts is null and note_tickets is null then
          -- Undecided without the notes (or not walked): the notes counted, and one more to tell if there are more.
          pins := private.inbox_pin('bitmap');
          stmt := format(notes_stmt, least(search_notes, count_cap) + 1);
          execute stmt into note_tickets
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates, note_tickets, tag_ids, fields;
          pins := private.inbox_pin('');
        end if;
        if (pass = 2 and search_counts is null and (rare_words or (from_matches and tag_ids is not null)))
           or (pass = 3 and search_counts is null and indexed is null) then
          -- Through the indexes: a rare word's first count, or what the walks left undecided. Also first with tags when it
          -- takes step 2's matches: under the cap it is exact, and a walk could only have come to it too (of the tag
          -- whole, or past the cap); past it the walks decide as before ("tag:vip tracking number": no walk of vip's
          -- tickets for the counts after step 1 and 2 read them).
          pins := private.inbox_pin('bitmap');
          if probe_tags then
            pins := private.inbox_pin('bitmap, probe');
          end if;
          stmt := count_stmt;
          execute stmt into indexed
            using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1, requester, candidates,
              note_tickets[1:least(search_notes, count_cap)], tag_ids, fields;
          pins := private.inbox_pin('');
        end if;
        if ((pass = 1 and note_tickets is null and tag_ids is null and not rare_words)
            or (pass = 2 and search_counts is null and (indexed is null or (indexed ->> 'capped')::boolean)))
           -- (Its walk of the newest tickets would find none of step 1's probe.)
           and not newest_none then
          -- (For the log, should the timeout strike in there: what it walked.)
          stmt := format('private.inbox_newest_matches: %s and %s', count_where, count_match);
          search_counts := private.inbox_newest_matches(least(search_window, count_cap),
            format('jsonb_build_object(%s, ''capped'', count(*) > %s)', count_views, count_cap),
            count_where, count_match, me, ws.id, status_filter, priority_filter, assignee, q, requester,
            coalesce(note_tickets[1:least(search_notes, count_cap)], '{}'), tag_ids, fields, count_cap,
            -- Common words: the tag's tickets as far as step 1 walks them (10 000 for 25 rows), not 1 000, before the GIN
            -- indexes' count, whose bitmap holds every match of each word ("tag:billing refund parcel": 'refund' and
            -- 'parcel', 330 000 tickets each, ~90 ms at 1 M, where ~7 800 of billing's tickets hold 101 matches).
            case when not rare_words then 10 * search_window end);
        end if;
      end loop;
      search_counts := coalesce(search_counts, indexed);
      if cardinality(note_tickets) > least(search_notes, count_cap) then
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
    -- Soonest due first, one page (ticket_sla_due_idx, in its order): the view has no further pages.
    execute format(
      'select array(select t.id from public.ticket_sla s join public.tickets t on t.id = s.ticket_id'
      || ' where s.workspace_id = $2 and s.due_at is not null and %s order by s.due_at, s.ticket_id limit $9)', base)
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, null::timestamptz, null::uuid, p_limit + 1,
        requester, candidates, note_tickets, tag_ids, fields;
  elsif by_mention then
    -- Newest mention of me first (message_mentions_user_idx): each ticket at the time of its newest one.
    execute format(
      'select array(select x.id from (select mm.ticket_id as id, max(mm.created_at) as at from public.message_mentions mm'
      || ' where mm.workspace_id = $2 and mm.user_id = $1 group by mm.ticket_id) x'
      || ' join public.tickets t on t.id = x.id where %2$s%3$s order by x.at %1$s, x.id %1$s limit $9)', dir, base, format(cursor_sql, 'x.at', 'x.id'))
      into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, cursor_at, cursor_id, p_limit + 1,
        requester, candidates, note_tickets, tag_ids, fields;
  else
    -- A rare tag (at most rare_tag tickets: private.inbox_rare_tag) is the page's start: its tickets in the
    -- page's order (private.inbox_tag_page_sql). Walking the view in order and probing each ticket's tags is
    -- right for a common tag, but for "vip" (one ticket in 500) read 23 000 open tickets at 1 M
    -- (docs/decisions/078-inbox-dressing-cost.md). Not a tag the statistics already know is common
    -- (private.inbox_tag_common): counting its first rare_tag + 1 tickets cost more than its page
    -- (docs/decisions/087-inbox-call-overhead.md).
    -- Or, without fields (which the tallies don't count), a tag on fewer tickets than the view has: its
    -- tickets too are fewer to read for the page (private.inbox_rare_tag).
    if tag_ids is not null then
      rare_at := private.inbox_rare_tag(tag_ids, rare_tag,
        case when fields is null and p_view not in ('spam', 'trash') then
          private.tally_total(ws.id, me, p_view, status_filter, priority_filter, assignee, p_assignee = 'none') end);
    end if;
    if rare_at is not null then
      -- Pinned to the walk along the tag, a ticket by primary key each, in order: no sort.
      perform private.inbox_pin('walk');
      stmt := private.inbox_tag_page_sql(private.inbox_where(p_view, p_status is not null, p_priority is not null, p_assignee,
        cardinality(tag_ids), fields), rare_at, dir, cursor_sql);
    else
      stmt := format('select array(select t.id from public.tickets t where %2$s order by t.last_message_at %1$s, t.id %1$s limit $9)',
        dir, base);
    end if;
    execute stmt into page_ids
      using me, ws.id, status_filter, priority_filter, assignee, q, coalesce(p_after_at, p_before_at), coalesce(p_after_id, p_before_id), p_limit + 1,
        requester, candidates, note_tickets, tag_ids, fields;
    if rare_at is not null then
      perform private.inbox_pin('');
    end if;
  end if;
  page_ids := coalesce(page_ids, '{}');
  -- One row past the page says whether there is another page in that direction.
  has_more := cardinality(page_ids) > p_limit and p_view <> 'breaching';
  page_ids := page_ids[1:p_limit];
  if newer then
    page_ids := array(select x from unnest(page_ids) with ordinality u(x, i) order by i desc);
  end if;
  -- Each row's preview: the first line of its latest message (notes too: only members read this).
  if cardinality(page_ids) > 0 then
    select coalesce(jsonb_object_agg(x.id, (
             select left(regexp_replace(split_part(btrim(m.body), E'\n', 1), '^[#>*\s-]+|\s+$', '', 'g'), 120)
               from public.messages m where m.ticket_id = x.id order by m.created_at desc, m.id desc limit 1)), '{}')
      into previews from unnest(page_ids) x(id);
  end if;
  -- The tickets whose notes name me (message_mentions_user_idx: my mentions and their tickets). Not after a
  -- search timed out: what held it up (a lock on messages) would hold this up too. Those in Spam or Trash are
  -- left out as a set read from their small partial indexes (tickets_spam_idx, tickets_trash_idx), hashed
  -- once: no note nor ticket row fetched per mention (docs/decisions/106-inbox-call-cost-outside-the-page.md).
  if not search_timed_out then
    select count(distinct mm.ticket_id) into mentioned
      from public.message_mentions mm
     where mm.workspace_id = ws.id and mm.user_id = me
       and mm.ticket_id not in (select x.id from public.tickets x where x.workspace_id = ws.id and x.spam_at is not null and x.trashed_at is null
                               union all
                               select x.id from public.tickets x where x.workspace_id = ws.id and x.trashed_at is not null);
  end if;

  select json_build_object(
    'workspace', json_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    -- The viewer's bell and time zone setting (86_user_settings.sql), so the page needs no call of its own for them.
    'viewer', public.viewer_state(),
    'role', my_role,
    'ticket_number', ticket_number,
    -- Automatic assignment (90_promises.sql): the workspace's mode and whether I am available.
    'assignment', coalesce((select c.mode from public.assignment_settings c where c.workspace_id = ws.id), 'off'),
    'available', coalesce((select a.available from public.member_availability a where a.workspace_id = ws.id and a.user_id = me), true),
    -- The statement timeout struck in the search (search_timeout): the plan of the statement, for the log.
    'search_timeout', case when search_timed_out then coalesce(search_plan, '') end,
    'members', (select coalesce(json_agg(json_build_object('user_id', m.user_id, 'role', m.role, 'name', coalesce(p.display_name, 'Unknown'))
                                          order by coalesce(p.display_name, 'Unknown'), m.user_id), '[]')
                  from public.memberships m left join public.profiles p on p.user_id = m.user_id
                 where m.workspace_id = ws.id),
    'counts', (select json_build_object(
                 'unassigned', coalesce(sum(c.n) filter (where c.assignee_id is null and private.is_open(c.status) and not c.snoozed), 0),
                 'mine', coalesce(sum(c.n) filter (where c.assignee_id = me and private.is_backlog(c.status) and not c.snoozed), 0),
                 'open', coalesce(sum(c.n) filter (where private.is_open(c.status) and not c.snoozed), 0),
                 'pending', coalesce(sum(c.n) filter (where c.status = 'pending' and not c.snoozed), 0),
                 'snoozed', coalesce(sum(c.n) filter (where c.snoozed), 0),
                 'solved', coalesce(sum(c.n) filter (where c.status = 'solved'), 0),
                 'all', coalesce(sum(c.n), 0),
                 -- Not in the tallies: counted on their own small indexes (tickets_spam_idx, tickets_trash_idx).
                 'spam', (select count(*) from public.tickets t where t.workspace_id = ws.id and t.spam_at is not null and t.trashed_at is null),
                 'trash', (select count(*) from public.tickets t where t.workspace_id = ws.id and t.trashed_at is not null),
                 'mentions', mentioned)
                 from private.ticket_tallies c where c.workspace_id = ws.id),
    -- Without a search, tags or fields the view's total, filters included, is exact from the tallies too
    -- (Spam and Trash: counted, they are not in the tallies).
    'total', case when p_view in ('spam', 'trash') then case when q is null and tag_ids is null and fields is null and p_status is null
                                                               and p_priority is null and p_assignee is null then (
               select count(*) from public.tickets t where t.workspace_id = ws.id
                  and case when p_view = 'spam' then t.spam_at is not null and t.trashed_at is null else t.trashed_at is not null end) end
             when q is null and tag_ids is null and fields is null then
               private.tally_total(ws.id, me, p_view, status_filter, priority_filter, assignee, p_assignee = 'none') end,
    -- A search's matches per view
    -- (docs/product.md#views-saved-views-mentions-and-search-the-inbox: "Results in all views").
    'search_counts', search_counts,
    -- The saved views I see (mine and the team's, 89_saved_views.sql), with their counts.
    'saved_views', private.saved_views_json(ws.id, me, not search_timed_out),
    -- The workspace's custom fields, for the filters.
    'fields', (select coalesce(json_agg(json_build_object('id', f.id, 'label', f.label, 'kind', f.kind, 'options', f.options)
                                         order by f.position, f.created_at, f.id), '[]')
                 from public.ticket_fields f where f.workspace_id = ws.id),
    'tickets', (select coalesce(json_agg(json_build_object(
                   'id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                   'requester_id', t.requester_id, 'requester', coalesce(rp.display_name, 'Unknown'),
                   'assignee_id', t.assignee_id, 'assignee', case when t.assignee_id is not null then coalesce(ap.display_name, 'Unknown') end,
                   'last_message_at', t.last_message_at, 'snoozed_until', t.snoozed_until,
                   -- The first line of the latest message (notes too: only members read this), as a preview.
                   'preview', previews ->> t.id::text,
                   'tags', coalesce(tg.tags, '[]'), 'due_at', s.due_at, 'warn_at', s.warn_at,
                   -- The requester's latest answer to a satisfaction survey (92_satisfaction.sql), if any: the
                   -- row's "rated Bad". Members read their workspace's surveys (its policy), as the caller is.
                   'rating', (select c.rating from public.csat_surveys c
                               where c.ticket_id = t.id and c.workspace_id = ws.id and c.rating is not null
                               order by c.created_at desc limit 1)) order by u.i), '[]')
                  from unnest(page_ids) with ordinality u(id, i)
                  join public.tickets t on t.id = u.id
                  left join public.ticket_sla s on s.ticket_id = t.id
                  -- Inlined (52_triage.sql): the page's tags in one index scan, not a function call a row.
                  left join private.ticket_tags_rows(page_ids) tg on tg.ticket_id = t.id
                  left join public.profiles rp on rp.user_id = t.requester_id
                  left join public.profiles ap on ap.user_id = t.assignee_id),
    -- Cursors: "older" continues after the last row, "newer" goes back before the first.
    -- In the Mentions view the time is the ticket's newest mention of me.
    'older', case when cardinality(page_ids) > 0 and (has_more or newer) then
               (select json_build_object('at', case when by_mention then private.mentioned_at(t.id, me) else t.last_message_at end, 'id', t.id)
                  from public.tickets t where t.id = page_ids[cardinality(page_ids)]) end,
    'newer', case when cardinality(page_ids) > 0 and (older or (newer and has_more)) then
               (select json_build_object('at', case when by_mention then private.mentioned_at(t.id, me) else t.last_message_at end, 'id', t.id)
                  from public.tickets t where t.id = page_ids[1]) end
  ) into result;
  return result;
end $function$
;

CREATE TRIGGER tickets_search_pairs_insert AFTER INSERT ON public.tickets REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION private.meet_search_words();

CREATE TRIGGER tickets_search_pairs_update AFTER UPDATE ON public.tickets REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION private.meet_search_words();

revoke execute on function private.inbox_words_apart(p_query tsquery) from public;
revoke execute on procedure private.keep_common_search_pairs(INOUT added integer) from public;
revoke execute on function private.keep_search_pairs(p_words text[]) from public;
revoke execute on function private.meet_search_words() from public;
revoke execute on function private.search_pairs_lock() from public;

revoke execute on function private.inbox_words_apart(p_query tsquery) from public;
revoke execute on procedure private.keep_common_search_pairs(INOUT added integer) from public;
revoke execute on function private.keep_search_pairs(p_words text[]) from public;
revoke execute on function private.meet_search_words() from public;
revoke execute on function private.search_pairs_lock() from public;

-- Words that became common in tickets' search text get their pairs kept, nightly (80_email.sql).
select cron.schedule('keep-search-pairs', '40 3 * * *', 'call private.keep_common_search_pairs()');
