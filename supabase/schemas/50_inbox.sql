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
-- Spam or Trash (54_spam_trash_split.sql), and a new ticket until it has its number (create_ticket's, late
-- in its transaction: private.ticket_counted), are counted in none.
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
      from new_tickets d where private.ticket_counted(d.number, d.spam_at, d.trashed_at) group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, status, priority, assignee_id, snoozed) do update set n = t.n + excluded.n;
  elsif tg_op = 'UPDATE' then
    -- Differences are summed per key first: a statement that moves tickets back and forth nets out.
    insert into private.ticket_tallies as t (workspace_id, status, priority, assignee_id, snoozed, n)
    select d.workspace_id, d.status, d.priority, d.assignee_id, d.snoozed, sum(d.delta)
      from (select n.workspace_id, n.status, n.priority, n.assignee_id, n.snoozed_until is not null as snoozed, 1 as delta
              from new_tickets n where private.ticket_counted(n.number, n.spam_at, n.trashed_at)
            union all
            select o.workspace_id, o.status, o.priority, o.assignee_id, o.snoozed_until is not null, -1
              from old_tickets o where private.ticket_counted(o.number, o.spam_at, o.trashed_at)) d
     group by 1, 2, 3, 4, 5 having sum(d.delta) <> 0 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, status, priority, assignee_id, snoozed) do update set n = t.n + excluded.n;
  else
    -- Deleting tickets (a workspace going, with its tallies already gone by cascade): only what is left.
    update private.ticket_tallies t set n = t.n - d.n
      from (select o.workspace_id, o.status, o.priority, o.assignee_id, o.snoozed_until is not null as snoozed, count(*) as n
              from old_tickets o where private.ticket_counted(o.number, o.spam_at, o.trashed_at) group by 1, 2, 3, 4, 5) d
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
-- The words in use: every lexeme that tickets.search or a note (messages_note_search_idx's to_tsvector) has
-- held, in any workspace, kept by statement triggers. A search's last word is also a prefix (private.inbox_query:
-- 'number':*), and GIN collects a prefix's matches into a bitmap of every ticket with such a word before it ANDs
-- the other words: 83 000 tickets for "number" at 1 M, ~45 ms a look-up, where the exact words skip along their
-- posting lists (docs/decisions/100-prefix-as-its-words.md). From here the inbox asks for the few words a prefix
-- begins instead (private.inbox_prefix_words). Only ever added to: a word no ticket holds any more (a reply
-- deleted, a workspace gone) matches nothing and changes no answer; a word missing would, so every write of
-- search text adds its new words. No unique key: two writers adding the same new word don't wait for each other
-- (a rare duplicate is harmless).
create table private.search_words (
  word text not null
);
-- In byte order ("C"): the words a prefix begins are next to one another.
create index search_words_word_idx on private.search_words (word collate "C");

-- The new words of the rows a statement wrote (their search text, or a note's body): those not in
-- private.search_words yet. For an update, only the words a row didn't hold before.
create function private.add_search_words() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_table_name = 'messages' then
    insert into private.search_words (word)
    select x.w from (select distinct unnest(tsvector_to_array(to_tsvector('english'::regconfig, m.body))) as w
                       from new_rows m where m.kind = 'note') x
     where not exists (select from private.search_words s where s.word collate "C" = x.w);
  elsif tg_op = 'INSERT' then
    insert into private.search_words (word)
    select x.w from (select distinct unnest(tsvector_to_array(n.search)) as w from new_rows n) x
     where not exists (select from private.search_words s where s.word collate "C" = x.w);
  else
    insert into private.search_words (word)
    select x.w from (select distinct unnest(tsvector_to_array(ts_delete(n.search, tsvector_to_array(o.search)))) as w
                       from new_rows n join old_rows o on o.id = n.id where n.search is distinct from o.search) x
     where not exists (select from private.search_words s where s.word collate "C" = x.w);
  end if;
  return null;
end $$;
revoke all on function private.add_search_words() from public;
create trigger tickets_search_words_insert after insert on public.tickets
  referencing new table as new_rows for each statement execute function private.add_search_words();
create trigger tickets_search_words_update after update on public.tickets
  referencing old table as old_rows new table as new_rows for each statement execute function private.add_search_words();
create trigger messages_search_words after insert on public.messages
  referencing new table as new_rows for each statement execute function private.add_search_words();

-- Two words of tickets.search that no ticket holds together (docs/decisions/122-words-apart.md). A search of two
-- common words that never meet ("tracking number": 'track' and 'number', 83 000 tickets each at 1 M) learns that no
-- ticket matches only by merging both words' GIN posting lists whole, ~16 ms at 1 M whatever the plan; with the pair
-- here it knows at once (private.inbox_words_apart). Kept for the words private.search_pair_words names (the words
-- the statistics call common, private.keep_common_search_pairs); a pair of them absent here may meet or not.
-- The invariant, for every row (a, b) here: no ticket's search, as any snapshot sees it, holds both a and b; (b, a) is
-- here too. A write that makes two kept words meet deletes their rows in the same transaction
-- (private.meet_search_words); a word is kept, and its pairs found, with every such write held off
-- (private.keep_search_pairs).
create table private.search_pair_words (
  word text collate "C" primary key
);
create table private.search_words_apart (
  a text collate "C" not null,
  b text collate "C" not null,
  -- Both ways round: a word's rows are the pairs it is in (one index range).
  primary key (a, b),
  check (a <> b)
);

-- Writers of search text take this lock shared, the keeping of new words exclusively: a word's pairs are read from
-- committed tickets only, so a ticket written meanwhile waits for them and then clears what it meets.
create function private.search_pairs_lock() returns bigint
language sql immutable set search_path = '' as $$ select hashtextextended('search words apart', 0) $$;

-- Each ticket a statement wrote: the pairs here its words hold, deleted (both ways round). A pair a write makes meet has
-- a word the write added (for an update, one the row didn't hold before: a reply adds a few), so only those words'
-- rows are read (an index probe a word, p.a = any), each other word looked up among the ticket's.
create function private.meet_search_words() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke all on function private.meet_search_words() from public;
create trigger tickets_search_pairs_insert after insert on public.tickets
  referencing new table as new_rows for each statement execute function private.meet_search_words();
create trigger tickets_search_pairs_update after update on public.tickets
  referencing old table as old_rows new table as new_rows for each statement execute function private.meet_search_words();

-- Keeps the pairs of p_words (those not kept yet) with every kept word: each new word's tickets read once (ts_stat of
-- its matches: the words they hold), and every kept word none of them holds is apart from it. Writers of search text
-- wait meanwhile (at 1 M ~0.1–1 s a word). Answers how many words it added.
create function private.keep_search_pairs(p_words text[]) returns integer
language plpgsql security definer set search_path = '' as $$
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
end $$;

-- The words the statistics call common in tickets.search (pg_stats.most_common_elems, in at least 1 % of the sampled
-- tickets: a GIN AND of two of them reads two long posting lists), the 200 most common, kept one word a transaction,
-- so writers of search text wait for one word's tickets at most (at 1 M ~1 s), not for all of them (156 words: ~165 s
-- under load). Nightly (pg_cron, 80_email.sql), and by the benches after their seed: `call`, as a procedure that
-- commits can only be (no security definer, no settings of its own: every name qualified). Answers how many words it
-- added.
create procedure private.keep_common_search_pairs(inout added integer default 0)
language plpgsql as $$
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
end $$;
revoke all on function private.search_pairs_lock(), private.keep_search_pairs(text[]) from public;
revoke all on procedure private.keep_common_search_pairs(integer) from public;

-- Whether no ticket's search can match p_query (private.inbox_prefix_words'): an AND of words, or of groups of words
-- any of which ('track' & ( 'number' | 'numbered' )), two of whose groups are apart word by word. Any other query
-- (a phrase, a negation, a prefix): false. Only the search's steps rest on it, never the answer: its notes and its
-- requester are searched as before.
create function private.inbox_words_apart(p_query tsquery) returns boolean
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke all on function private.inbox_words_apart(tsquery) from public;

-- ---------------------------------------------------------------------------------------------
-- The inbox views as SQL (constants only; values are always bound parameters). $1 is the caller.
-- Snoozed tickets (52_triage.sql) leave the views of work to do until they wake. Tickets in Spam or
-- Trash (54_spam_trash_split.sql) are in those views only. This and private.inbox_where are plpgsql: as SQL
-- functions with a setting they were parsed and planned at every call (docs/decisions/087-inbox-call-overhead.md).
create function private.inbox_view_filter(p_view text) returns text
language plpgsql immutable set search_path = '' as $$
begin
  return case p_view
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
    -- Tickets whose internal notes name me (87_mentions.sql); listed newest mention first.
    when 'mentions' then 't.id in (select mm.ticket_id from public.message_mentions mm where mm.workspace_id = $2 and mm.user_id = $1)'
  end || ') and t.spam_at is null and t.trashed_at is null' end;
end $$;

-- The views a search counts its matches in (every one but "Breaching soon"), in the tabs' order.
create function private.counted_views() returns text[]
language sql immutable set search_path = '' as $$
  select array['unassigned', 'mine', 'open', 'pending', 'snoozed', 'solved', 'all', 'mentions']
$$;

-- A search's counts when nothing matches: 0 in every counted view.
create function private.inbox_no_counts() returns jsonb
language sql immutable set search_path = '' as $$
  select jsonb_object_agg(v, 0) || '{"capped": false}' from unnest(private.counted_views()) v
$$;

-- A view's tickets without counting them: a sum over the tallies, filters included (null for the views
-- the tallies can't say: mentions, breaching). plpgsql keeps its plan for the connection (as a SQL function
-- it was planned at every call: docs/decisions/087-inbox-call-overhead.md).
create function private.tally_total(p_workspace_id uuid, p_me uuid, p_view text, p_status public.ticket_status,
  p_priority public.ticket_priority, p_assignee uuid, p_unassigned boolean) returns bigint
language plpgsql stable set search_path = '' as $$
begin
  return (select case when p_view not in ('mentions', 'breaching') then (
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
       and (case when p_unassigned then c.assignee_id is null else p_assignee is null or c.assignee_id = p_assignee end)) end);
end $$;

-- The tags a ticket must all carry, by id, from their names (null for none). A name that is no tag
-- adds an id no ticket has, so nothing matches.
create function private.inbox_tag_ids(p_workspace_id uuid, p_tags text[]) returns uuid[]
language plpgsql stable set search_path = '' as $$
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
end $$;

-- The field filters (private.inbox_field_filters) with a constant false added when one of the tags is on no ticket
-- (or is no tag: private.inbox_tag_ids): such a filter matches nothing, and said so the plans skip every read, as
-- for a field that isn't one (private.inbox_field_sql). Else a search's walks and counts went through the whole
-- workspace looking for a match (past the statement timeout at 1 M).
create function private.inbox_tags_none(p_tag_ids uuid[], p_fields jsonb) returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  -- plpgsql: ticket_tags is made after this file (52_triage.sql).
  if exists (select 1 from unnest(p_tag_ids) x where not exists (select 1 from public.ticket_tags r where r.tag_id = x)) then
    return coalesce(p_fields, '[]'::jsonb) || '[{"none": true}]'::jsonb;
  end if;
  return p_fields;
end $$;

-- The custom-field filters (docs/product.md#customers-companies-and-ticket-fields) as the inbox applies them, from what
-- the page sends: {"<field id>": "value"} for equality (text any case, a dropdown's choice, a checkbox "true" or
-- "false" for unticked) and {"<field id>": {"from": …, "to": …}} for a number or date range (either
-- end may be left out). Each value is read as its field stores it (private.ticket_field_value); a field
-- that isn't one of the workspace's matches nothing; a value that can't be the field's is
-- field_value_invalid (with its label), a shape that isn't one bad_request.
-- Answer: [{"id", "kind", "eq"} | {"id", "unset": true} | {"id", "kind", "from", "to"} | {"none": true}], in
-- the fields' id order.
create function private.inbox_field_filters(p_workspace_id uuid, p_fields jsonb) returns jsonb
language plpgsql stable set search_path = '' as $$
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
end $$;

-- One custom-field filter (the i-th of $14, private.inbox_field_filters) as SQL on t: constants only.
create function private.inbox_field_sql(i integer, f jsonb) returns text
language sql immutable set search_path = '' as $$
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
$$;

-- The semi-join private.inbox_where writes for the i-th tag a ticket must carry ($13[i]).
create function private.inbox_tag_semijoin(i integer) returns text
language plpgsql immutable set search_path = '' as $$
begin
  return format('t.id in (select tt.ticket_id from public.ticket_tags tt where tt.tag_id = $13[%s])', i);
end $$;

-- p_where (private.inbox_where's) with the i-th tag's semi-join taken out, or put as p_as: a walk of that tag's own
-- tickets needs no test of it (private.inbox_newest_matches, private.inbox_tag_page_sql); a hash reads it another
-- way (private.inbox_tag_hashed).
create function private.inbox_where_tag(p_where text, i integer, p_as text default null) returns text
language plpgsql immutable set search_path = '' as $$
begin
  return replace(p_where, ' and ' || private.inbox_tag_semijoin(i), coalesce(' and ' || p_as, ''));
end $$;
revoke all on function private.inbox_tag_semijoin(integer), private.inbox_where_tag(text, integer, text) from public;

-- The conditions of a view with its filters on t, as SQL over bound parameters (constants only): $1 me,
-- $2 workspace, $3 status, $4 priority, $5 assignee, $13 the tags every ticket carries (p_tags of them),
-- $14 the field filters (private.inbox_field_filters). Null for a view that isn't one. public.inbox's page
-- and the counts of saved views both start here.
-- Each tag is a semi-join of its own (up to 5, the app's most; more are checked together as well), so the
-- planner can walk the view in order and probe each ticket's tags (a common tag), or start from the tag's
-- tickets (a rare one); counting every tagged row of the tags first cost 100 000 rows a page at 1 M.
create function private.inbox_where(p_view text, p_status boolean, p_priority boolean, p_assignee text, p_tags integer,
  p_fields jsonb) returns text
language plpgsql immutable set search_path = '' as $$
begin
  return 't.workspace_id = $2 and ' || private.inbox_view_filter(p_view)
    || case when p_status then ' and t.status = $3' else '' end
    || case when p_priority then ' and t.priority = $4' else '' end
    || case when p_assignee = 'none' then ' and t.assignee_id is null' when p_assignee is not null then ' and t.assignee_id = $5' else '' end
    || coalesce((select string_agg(' and ' || private.inbox_tag_semijoin(i), '' order by i)
                   from generate_series(1, least(coalesce(p_tags, 0), 5)) i), '')
    || case when p_tags > 5 then ' and t.id in (select tt.ticket_id from public.ticket_tags tt where tt.tag_id = any ($13)'
         || ' group by tt.ticket_id having count(*) = cardinality($13))' else '' end
    || coalesce((select string_agg(private.inbox_field_sql((x.i - 1)::integer, x.f), '' order by x.i)
                   from jsonb_array_elements(p_fields) with ordinality x(f, i)), '');
end $$;

-- What the inbox searches for: the words as websearch_to_tsquery reads them, the last one also as a
-- prefix when it has 3 or more letters or digits and isn't excluded or quoted ("ref" finds "refund").
create function private.inbox_query(p_query text) returns tsquery
language plpgsql immutable set search_path = '' as $$
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
end $$;

-- A search (private.inbox_query's) with its last word's prefix ('number':*) written as the words in use it
-- begins (private.search_words: 'number' | 'numbered'), when they are at most 8: the same matches, but GIN reads
-- those words' posting lists and skips along them with the other words', where a prefix's matches are collected
-- into a bitmap first (docs/decisions/100-prefix-as-its-words.md). No such word, or more: the search as it was.
-- The prefix is the query's last operand (inbox_query puts it last); its text is unescaped ('' and \) to be looked
-- up, and each word escaped again.
create function private.inbox_prefix_words(p_query tsquery) returns tsquery
language plpgsql stable security definer set search_path = '' as $$
declare
  prefix text[] := regexp_match(p_query::text, '''((?:[^''\\]|''''|\\.)*)'':\*$');
  stem text collate "C";
  word text collate "C";
  words text[] := '{}';
begin
  if prefix is null then
    return p_query;
  end if;
  stem := regexp_replace(prefix[1], '\\(.)|''('')', '\1\2', 'g');
  -- In the index's order from the prefix on, until a word that doesn't begin with it (or a 9th).
  for word in select s.word from private.search_words s where s.word collate "C" >= stem order by s.word collate "C" loop
    exit when not starts_with(word, stem) or cardinality(words) = 9;
    if word is distinct from words[cardinality(words)] then
      words := words || word;
    end if;
  end loop;
  if cardinality(words) not between 1 and 8 then
    return p_query;
  end if;
  return (left(p_query::text, -length(prefix[1]) - 4) || '( '
    || (select string_agg('''' || replace(replace(w, '\', '\\'), '''', '''''') || '''', ' | ') from unnest(words) w) || ' )')::tsquery;
end $$;
revoke all on function private.inbox_prefix_words(tsquery) from public;

-- What the statistics ANALYZE keeps say of a search's words (pg_stats.most_common_elems: every word in more than ~0.2 %
-- of the sampled rows, up to the 1 000 most common), read in one statement for both answers
-- (docs/decisions/113-search-pins-and-word-stats.md):
--  - rare: none of its words (for a prefix, no word it begins) is among the most common words of tickets.search. The
--    inbox then skips step 1's window, which such a word can't fill, and starts from the GIN index
--    (docs/decisions/076-seed-and-search-at-a-million.md). Unknown (no statistics yet): false, the window first as for
--    any word.
--  - notes_common: more than p_notes internal notes match it: the share of notes that ANALYZE found with its least
--    common word (messages_note_search_idx's most_common_elems; for a prefix, the words it begins, added up) times the
--    notes indexed. A word they don't list, or no statistics yet: false. The inbox then doesn't read the notes' GIN
--    index first (a bitmap of every matching note: 67 000 for "warehouse" at 1 M, most of that search's cost) but
--    probes the notes of the tickets it walks (docs/decisions/095-common-note-words.md). Null when p_notes is.
-- Only plans rest on them, never the answer. In plpgsql, whose statements keep their plans for the connection: as SQL
-- (security definer, so never inlined) the pg_stats view was planned again at every search.
create function private.inbox_query_stats(p_query tsquery, p_notes integer default null, out rare boolean, out notes_common boolean)
language plpgsql stable security definer set search_path = '' as $$
declare
  -- The search's words, unescaped, and whether each is a prefix.
  words text[];
  prefixes boolean[];
  st record;
begin
  select array_agg(replace(x.w[1], '''''', '''') order by x.i), array_agg(x.w[2] is not null order by x.i) into words, prefixes
    from regexp_matches(p_query::text, '''((?:[^'']|'''')*)''(:\*)?', 'g') with ordinality x(w, i);
  rare := false;
  notes_common := case when p_notes is not null then false end;
  for st in select s.tablename, s.most_common_elems::text::text[] as elems, s.most_common_elem_freqs as freqs
              from pg_catalog.pg_stats s
             where s.schemaname = 'public' and s.most_common_elems is not null
               and ((s.tablename = 'tickets' and s.attname = 'search') or (s.tablename = 'messages_note_search_idx' and p_notes is not null)) loop
    if st.tablename = 'tickets' then
      rare := not exists (select from unnest(st.elems) e, generate_subscripts(words, 1) i
                           where case when prefixes[i] then starts_with(e, words[i]) else e = words[i] end);
    else
      notes_common := coalesce((
        select min(least(f.share, 1)) * (select c.reltuples from pg_catalog.pg_class c where c.oid = 'public.messages_note_search_idx'::regclass)
          from generate_subscripts(words, 1) i,
               lateral (select coalesce(sum(st.freqs[j]), 0) as share from generate_subscripts(st.elems, 1) j
                         where case when prefixes[i] then starts_with(st.elems[j], words[i]) else st.elems[j] = words[i] end) f) > p_notes, false);
    end if;
  end loop;
end $$;

revoke all on function private.counted_views(), private.inbox_no_counts(), private.tally_total(uuid, uuid, text, public.ticket_status, public.ticket_priority, uuid, boolean),
  private.inbox_tag_ids(uuid, text[]), private.inbox_tags_none(uuid[], jsonb), private.inbox_field_filters(uuid, jsonb), private.inbox_field_sql(integer, jsonb),
  private.inbox_where(text, boolean, boolean, text, integer, jsonb), private.inbox_query(text), private.inbox_query_stats(tsquery, integer) from public;

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

-- The plan settings a search statement is pinned with (docs/decisions/113-search-pins-and-word-stats.md), by name,
-- the rest on; '' all on again. Transaction-local, as the caller's own set_config would be (a function's SET clause
-- restores only the settings it names). Returns p_pins, which the inbox keeps for private.inbox_search_plan.
--  - bitmap: through the GIN indexes only (no index or seq scan); "bitmap, probe": and no hash or merge join either
--    (each match's tags probed, not every tagged ticket hashed);
--  - ordered: in order on an index (no seq scan, bitmap or sort); walk: and no hash or merge join either.
create function private.inbox_pin(p_pins text) returns text
language plpgsql volatile set search_path = '' as $$
declare
  bitmap boolean := p_pins in ('bitmap', 'bitmap, probe');
  ordered boolean := p_pins in ('ordered', 'walk');
  probe boolean := p_pins in ('bitmap, probe', 'walk');
begin
  perform set_config('enable_indexscan', case when bitmap then 'off' else 'on' end, true),
    set_config('enable_seqscan', case when bitmap or ordered then 'off' else 'on' end, true),
    set_config('enable_bitmapscan', case when ordered then 'off' else 'on' end, true),
    set_config('enable_sort', case when ordered then 'off' else 'on' end, true),
    set_config('enable_hashjoin', case when probe then 'off' else 'on' end, true),
    set_config('enable_mergejoin', case when probe then 'off' else 'on' end, true);
  return p_pins;
end $$;
revoke all on function private.inbox_pin(text) from public;

-- The plan of one of public.inbox's search statements (EXPLAIN, not run), for the log when the statement
-- timeout stopped it. Volatile: Postgres allows EXPLAIN only there, not in the stable inbox. Called by
-- the inbox (its owner) only; a lock the statement waited for is waited for again for at most 2 s.
create function private.inbox_search_plan(
  p_stmt text, p_pins text, p1 uuid, p2 uuid, p3 public.ticket_status, p4 public.ticket_priority, p5 uuid, p6 tsquery,
  p7 timestamptz, p8 uuid, p9 integer, p10 uuid, p11 uuid[], p12 uuid[], p13 uuid[], p14 jsonb
) returns text
language plpgsql volatile set search_path = '' as $$
declare
  plan text;
  line text;
begin
  perform set_config('lock_timeout', '2s', true);
  -- The plan settings the statement ran with (rolled back with it).
  perform private.inbox_pin(p_pins);
  for line in execute 'explain ' || p_stmt using p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14 loop
    plan := concat_ws(E'\n', plan, line);
  end loop;
  return plan;
exception when others then
  return 'no plan: ' || sqlerrm;
end $$;
revoke all on function private.inbox_search_plan(text, text, uuid, uuid, public.ticket_status, public.ticket_priority, uuid, tsquery,
  timestamptz, uuid, integer, uuid, uuid[], uuid[], uuid[], jsonb) from public;

-- A search's first p_cap + 1 matches (p_match, on t) among the tickets of p_where (private.inbox_where; the
-- parameters as public.inbox binds them), as p_select (an aggregate over t) says them, when a bounded walk
-- decides the count: past p_cap ("100+" while searching, "1,000+" for a saved view), or exactly. The GIN
-- index's bitmap of a common word holds every match ("refund" and its prefix, a quarter of 1 M tickets: 150 ms
-- to build, docs/decisions/078-inbox-dressing-cost.md), so two walks come first, each of at most 10 × p_window
-- tickets (p_window: the cap, or the search's window when a smaller page makes it smaller):
--  - with tags, the rarest tag's tickets (ticket_tags_tag_idx), each tested: every one of them when the tag
--    has no more, so the count is exact; else it decides only past p_cap. "tag:billing refund" (a tenth of
--    the tickets and a quarter of them) reaches 1 001 within ~4 000 of billing's tickets, 101 within ~400,
--    where the word's bitmap held 270 000 at 1 M (docs/decisions/081-inbox-call-cost.md);
--  - a word in one in eight of the workspace's newest p_window tickets or more: its matches among the newest
--    10 × p_window, in order on tickets_inbox_idx (it reaches p_cap + 1 there).
-- Null when neither decides (the caller counts through the indexes, where a rare word costs a few pages).
-- Public.inbox's counts while searching and the saved views' counts start here.
create function private.inbox_newest_matches(p_window integer, p_select text, p_where text, p_match text, p1 uuid, p2 uuid,
  p3 public.ticket_status, p4 public.ticket_priority, p5 uuid, p6 tsquery, p10 uuid, p12 uuid[], p13 uuid[], p14 jsonb,
  p_cap integer default 1000, p_tag_walk integer default null)
returns jsonb
language plpgsql stable set search_path = '' as $$
declare
  walk integer := 10 * p_window;
  -- The tag's tickets walked: p_tag_walk when given (a search of common words, which public.inbox has told:
  -- docs/decisions/100-prefix-as-its-words.md).
  tag_walk integer := coalesce(p_tag_walk, walk);
  rarest uuid;
  tagged integer;
  n integer;
  found jsonb;
begin
  -- In order on an index (as step 3 of the search): never a bitmap of every match, nor a hash of a tag's rows.
  perform private.inbox_pin('walk');
  if p13 is not null then
    if cardinality(p13) = 1 and (p_tag_walk is not null or not (private.inbox_query_stats(p6)).rare) then
      -- One tag and common words: it is walked, its tickets not counted first (read twice, a common tag's first
      -- 10 × p_window): only a walk that finds too few to decide needs to know whether it read them all (below).
      rarest := p13[1];
    else
      -- Each tag's tickets counted up to the walk and one more (index only): the rarest is walked.
      select x.id, x.n into rarest, tagged
        from unnest(p13) x0(id),
             lateral (select x0.id, count(*)::integer as n from (select 1 from public.ticket_tags tt where tt.tag_id = x0.id limit tag_walk + 1) y) x
       order by x.n limit 1;
    end if;
    -- A rare word: its bitmap is small, cheaper than a walk that may find too few.
    if tagged is null or tagged <= tag_walk or not (private.inbox_query_stats(p6)).rare then
      -- The walked tag's own condition (private.inbox_where's) holds for every ticket walked: not probed again.
      execute format('select %s, count(*) from (select t.* from (select tt.ticket_id from public.ticket_tags tt where tt.tag_id = $15 limit %s) x'
        || ' join public.tickets t on t.id = x.ticket_id where %s and %s limit %s) t', p_select, tag_walk,
        private.inbox_where_tag(p_where, array_position(p13, rarest)), p_match, p_cap + 1)
        into found, n using p1, p2, p3, p4, p5, p6, null::timestamptz, null::uuid, null::integer, p10, null::uuid[], p12, p13, p14, rarest;
      if n <= p_cap and tagged is null then
        tagged := (select count(*) from (select 1 from public.ticket_tags tt where tt.tag_id = rarest limit tag_walk + 1) y);
      end if;
      if n <= p_cap and tagged > tag_walk then
        found := null;
      end if;
    end if;
  end if;
  if found is null then
    execute format('select count(*) from (select 1 from (select t.* from public.tickets t where t.workspace_id = $2'
      || ' order by t.last_message_at desc, t.id desc limit %s) t where %s and %s limit %s) x', p_window, p_where, p_match, p_window / 8)
      into n using p1, p2, p3, p4, p5, p6, null::timestamptz, null::uuid, null::integer, p10, null::uuid[], p12, p13, p14;
    if n >= p_window / 8 then
      execute format('select %s, count(*) from (select t.* from (select t.* from public.tickets t where t.workspace_id = $2'
        || ' order by t.last_message_at desc, t.id desc limit %s) t where %s and %s limit %s) t', p_select, walk, p_where, p_match, p_cap + 1)
        into found, n using p1, p2, p3, p4, p5, p6, null::timestamptz, null::uuid, null::integer, p10, null::uuid[], p12, p13, p14;
      -- Short of p_cap + 1 among the newest: undecided (more may match further back).
      if n <= p_cap then
        found := null;
      end if;
    end if;
  end if;
  perform private.inbox_pin('');
  return found;
end $$;
revoke all on function private.inbox_newest_matches(integer, text, text, text, uuid, uuid, public.ticket_status, public.ticket_priority, uuid,
  tsquery, uuid, uuid[], uuid[], jsonb, integer, integer) from public;

-- A search's counts from a longer walk of the newest tickets, for common words that are less common together
-- ("refund parcel": each word in a quarter of the tickets, both in one in 15). private.inbox_newest_matches
-- walks only when one in eight of the newest p_window match, so such words were counted through the GIN
-- indexes, whose bitmaps hold every ticket with either word (~100 ms of CPU a call at 1 M). This walks the
-- newest 40 × p_window tickets (4 000 for the search's 100) when any of the newest p_window match, testing
-- p_match, until p_cap + 1 match: it decides only past the cap (the views' shares of the first p_cap + 1
-- matches, newest first, as inbox_newest_matches' walk; docs/decisions/092-search-count-cap.md), else null.
-- Same parameters and statement shape as inbox_newest_matches (docs/decisions/099-several-common-words.md).
create function private.inbox_words_newest(p_window integer, p_select text, p_where text, p_match text, p1 uuid, p2 uuid,
  p3 public.ticket_status, p4 public.ticket_priority, p5 uuid, p6 tsquery, p10 uuid, p12 uuid[], p13 uuid[], p14 jsonb,
  p_cap integer)
returns jsonb
language plpgsql stable set search_path = '' as $$
declare
  newest text := 'select t.* from public.tickets t where t.workspace_id = $2 order by t.last_message_at desc, t.id desc limit %s';
  n integer;
  found jsonb;
begin
  -- In order on tickets_inbox_idx: never a bitmap of every match.
  perform private.inbox_pin('ordered');
  execute format('select count(*) from (select 1 from (' || newest || ') t where %s and %s limit 1) x', p_window, p_where, p_match)
    into n using p1, p2, p3, p4, p5, p6, null::timestamptz, null::uuid, null::integer, p10, null::uuid[], p12, p13, p14;
  if n > 0 then
    execute format('select %s, count(*) from (select t.* from (' || newest || ') t where %s and %s limit %s) t',
      p_select, 40 * p_window, p_where, p_match, p_cap + 1)
      into found, n using p1, p2, p3, p4, p5, p6, null::timestamptz, null::uuid, null::integer, p10, null::uuid[], p12, p13, p14;
    if n <= p_cap then
      found := null;
    end if;
  end if;
  perform private.inbox_pin('');
  return found;
end $$;
revoke all on function private.inbox_words_newest(integer, text, text, text, uuid, uuid, public.ticket_status, public.ticket_priority, uuid,
  tsquery, uuid, uuid[], uuid[], jsonb, integer) from public;

-- The tickets a tag is on as the statistics have them (pg_stats' most common values of ticket_tags.tag_id, their
-- share of its rows): null for a tag they don't list, or no statistics yet. Only plans rest on it.
create function private.inbox_tag_tickets(p_tag_id uuid) returns real
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
    select s.most_common_freqs[array_position(s.most_common_vals::text::uuid[], p_tag_id)] * c.reltuples
      from pg_catalog.pg_stats s, pg_catalog.pg_class c
     where s.schemaname = 'public' and s.tablename = 'ticket_tags' and s.attname = 'tag_id'
       and c.oid = 'public.ticket_tags'::regclass);
end $$;
revoke all on function private.inbox_tag_tickets(uuid) from public;

-- Whether the statistics say a tag is on more than p_tickets tickets (private.inbox_tag_tickets). Only the page's
-- plan rests on it: for such a tag the inbox walks the view in order and probes each ticket's tags, the plan for a
-- common tag, without first reading its first p_tickets + 1 tickets to learn that it isn't rare. A tag they don't
-- list, or no statistics yet: false.
create function private.inbox_tag_common(p_tag_id uuid, p_tickets integer) returns boolean
language plpgsql stable set search_path = '' as $$
begin
  return coalesce(private.inbox_tag_tickets(p_tag_id) > p_tickets, false);
end $$;
revoke all on function private.inbox_tag_common(uuid, integer) from public;


-- The rare tag a page without a search starts from: the place in p_tag_ids of the tag on the fewest tickets,
-- if that is at most p_rare (null if none is, or every tag is one the statistics call common:
-- private.inbox_tag_tickets). Each tag's tickets are counted up to p_rare + 1 from ticket_tags_tag_idx (index
-- only), planned with the tag: a generic plan would read the whole table for any tag. A tag the statistics put
-- at half of p_rare or fewer is taken at their word: counting "vip"'s 2 001 rows cost ~0.8 ms of CPU, a sixth of
-- its page at 1 M (docs/decisions/105-search-cost-at-a-million.md); the page is the same whichever way it is read.
-- With p_view_tickets (the view's tickets, from the tallies), failing a rare tag: the tag the statistics put on
-- the fewest tickets, when that is fewer than the view has. Walking the view in order reads ~1 / (the tag's share)
-- tickets a row and probes each one's tags; walking the tag reads ~1 / (the view's share) of its rows and fetches
-- each ticket: the same few buffers either way, so the smaller of the two is read ("billing", on a tenth of 1 M
-- tickets, in All: 110 buffers for its first page against 918). With no match at all either walk reads its
-- whole set, the tag's then the smaller one.
create function private.inbox_rare_tag(p_tag_ids uuid[], p_rare integer, p_view_tickets bigint default null) returns integer
language plpgsql stable set search_path = '' as $$
declare
  listed real;
  n integer;
  fewest integer;
  rare_at integer;
  fewest_listed real;
  fewest_listed_at integer;
begin
  for i in 1 .. coalesce(cardinality(p_tag_ids), 0) loop
    listed := private.inbox_tag_tickets(p_tag_ids[i]);
    if listed > p_rare then
      if fewest_listed is null or listed < fewest_listed then
        fewest_listed := listed;
        fewest_listed_at := i;
      end if;
      continue;
    end if;
    if listed <= p_rare / 2 then
      n := ceil(listed);
    else
      execute 'select count(*) from (select from public.ticket_tags tt where tt.tag_id = $1 limit $2) x'
        into n using p_tag_ids[i], p_rare + 1;
    end if;
    if rare_at is null or n < fewest then
      fewest := n;
      rare_at := i;
    end if;
    exit when n = 0;
  end loop;
  return case when fewest <= p_rare then rare_at when fewest_listed < p_view_tickets then fewest_listed_at end;
end $$;

-- A rare tag's page (private.inbox_rare_tag, the tag $13[p_rare_at]): its tickets in the inbox's order
-- from ticket_tags_activity_idx (each row's copy of its ticket's last_message_at, 52_triage.sql), each
-- ticket fetched by primary key and tested with the view and filters until the page is full. p_where is
-- private.inbox_where's, without the tag's own semi-join (every row carries it); p_cursor public.inbox's
-- cursor_sql. Fetching all of the tag's tickets to sort them cost ~8 ms a page for "vip" at 1 M (2 000
-- tickets); this fetches about a page's worth over the view's share of them
-- (docs/decisions/093-rare-tag-page-in-order.md). plpgsql: planned once a connection.
-- With p_window, only the tag's first p_window tickets from the cursor on are read: step 1 of a search with tags
-- (the words in p_where), which the GIN indexes take over from when they don't fill the page
-- (docs/decisions/094-tag-and-words.md).
create function private.inbox_tag_page_sql(p_where text, p_rare_at integer, p_dir text, p_cursor text, p_window integer default null)
returns text
language plpgsql immutable set search_path = '' as $$
begin
  return format('select array(select t.id from %5$s r join public.tickets t on t.id = r.ticket_id'
    || ' where r.tag_id = $13[%1$s] and %2$s%3$s order by r.last_message_at %4$s, r.ticket_id %4$s limit $9)',
    p_rare_at,
    private.inbox_where_tag(p_where, p_rare_at),
    format(p_cursor, 'r.last_message_at', 'r.ticket_id'), p_dir,
    case when p_window is null then 'public.ticket_tags'
         else format('(select r.* from public.ticket_tags r where r.tag_id = $13[%1$s]%2$s order by r.last_message_at %3$s,'
           || ' r.ticket_id %3$s limit %4$s)', p_rare_at, format(p_cursor, 'r.last_message_at', 'r.ticket_id'), p_dir, p_window) end);
end $$;
revoke all on function private.inbox_rare_tag(uuid[], integer, bigint), private.inbox_tag_page_sql(text, integer, text, text, integer) from public;

-- Whether some ticket carries every one of p_tag_ids, read from the rare tag's rows (the p_rare_at-th:
-- private.inbox_rare_tag), each one's other tags probed (ticket_tags_pkey): at most that tag's tickets. A search
-- with tags no ticket has together ("tag:billing,vip refund") matches nothing, which its walks and counts could
-- only learn by reading every match of the words (docs/decisions/097-tags-apart-and-rare-words.md). Planned with
-- the tags, as private.inbox_rare_tag.
create function private.inbox_tags_meet(p_tag_ids uuid[], p_rare_at integer) returns boolean
language plpgsql stable set search_path = '' as $$
declare
  met boolean;
begin
  -- Each ticket's tags as an array (one descent of ticket_tags_pkey): as an exists for each tag, the planner hashed
  -- every row of ticket_tags once (102 005 at 1 M, ~60 ms) rather than probe vip's 2 001 tickets (~6 ms).
  execute 'select exists (select from public.ticket_tags r where r.tag_id = $1[$2]'
    || ' and array(select o.tag_id from public.ticket_tags o where o.ticket_id = r.ticket_id) @> $1)'
    into met using p_tag_ids, p_rare_at;
  return met;
end $$;

-- p_where (private.inbox_where's) with the rare tag's semi-join (the p_rare_at-th) as a hashed subplan: its rows
-- read once into a hash (at most private.inbox_rare_tag's count, index only) that each of the other matches is
-- looked up in. For rare words with a rare tag: a semi-join the planner starts from the tag's tickets, each fetched
-- by primary key ("tag:vip espresso": 2 001 of them for 99 matches); this way the words' GIN matches are the
-- tickets fetched, no more than the words alone fetch. (Under "is true" the subquery is no join to plan.)
create function private.inbox_tag_hashed(p_where text, p_rare_at integer) returns text
language plpgsql immutable set search_path = '' as $$
begin
  return private.inbox_where_tag(p_where, p_rare_at, format('(%s) is true', private.inbox_tag_semijoin(p_rare_at)));
end $$;
revoke all on function private.inbox_tags_meet(uuid[], integer), private.inbox_tag_hashed(text, integer) from public;

-- The inbox in one call: the workspace, my role, the members, the view counts, one page of tickets
-- (newest activity first, keyset-paged) with requester and assignee names, tags, due times and
-- satisfaction ratings, and the cursors for the pages around it. The answer is json, written as text: it
-- only goes out (PostgREST prints it), and jsonb built each object as a tree, converted it to its binary
-- form, copied every string again into the array and printed it at the end, a fifth of a plain view's
-- CPU (docs/decisions/106-inbox-call-cost-outside-the-page.md).
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
  p_tags text[] default null,
  p_fields jsonb default null,
  p_sort text default null
) returns json
-- Its own statements keep one generic plan per connection: left to choose, Postgres planned the page's
-- dressing (the last statement, a dozen subqueries) afresh at every call, a third of a plain view's CPU
-- (docs/decisions/078-inbox-dressing-cost.md). The dynamic statements (execute … using) are planned with
-- their values each time, as before. No parallel workers: a count that stops at 1 001 rows (a saved view's
-- tag) was given two, whose start cost more CPU than the count (docs/decisions/081-inbox-call-cost.md).
language plpgsql stable security definer set search_path = '' set plan_cache_mode = force_generic_plan
  set max_parallel_workers_per_gather = 0 set work_mem = '16MB' as $$
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
end $$;
revoke all on function public.inbox(text, text, text, text, text, text, timestamptz, uuid, timestamptz, uuid, integer, text[], jsonb, text) from public, anon;
grant execute on function public.inbox(text, text, text, text, text, text, timestamptz, uuid, timestamptz, uuid, integer, text[], jsonb, text) to authenticated, service_role;

-- The requester card on an agent's ticket page: who they are (name, and the email address that
-- profiles don't hold) and their other recent requests here. Requesters and other workspaces get
-- not_found. The card itself is private.requester_card_json, which ticket_page calls with the ticket
-- it has already read and checked. In plpgsql, whose statements keep their plans for the connection: a
-- SQL function that can't be inlined (security definer) is parsed and planned again at every call,
-- which was a third of ticket_page's own time (docs/decisions/084-ticket-page-cost.md).
create function private.requester_card_json(p_ticket_id uuid, p_workspace_id uuid, p_requester_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return jsonb_build_object(
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
                        order by o.last_message_at desc limit 5) o));
end $$;
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
-- signature, the custom fields with this ticket's values, the requester's rating, the followers): one
-- round trip per page (docs/decisions/066-page-cost.md).
-- The thread is a window (docs/product.md#long-threads, issue 27 item 12): the newest p_page messages, and
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
  -- And the requester, the assignee and the members. Gathered once: as an expression inside the names'
  -- query it was built again for every profile that query read.
  people := people || t.requester_id || t.assignee_id
            || array(select m.user_id from public.memberships m where m.workspace_id = ws.id);
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    -- The viewer's bell and time zone setting (86_user_settings.sql), so the page needs no call of its own for them.
    'viewer', public.viewer_state(),
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
                from public.profiles p where p.user_id = any (people)),
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
                where s.ticket_id = t.id and s.rating is not null order by s.created_at desc limit 1),
    -- The followers' card (54_followers.sql), as ticket_follower_list lists them.
    'followers', (select coalesce(jsonb_agg(jsonb_build_object('user_id', r.user_id, 'name', r.name, 'email', r.email)
                                            order by r.created_at, r.user_id), '[]')
                    from private.ticket_follower_rows(t.id) r)
  );
end $$;
revoke all on function public.ticket_page(text, integer, integer, timestamptz, uuid) from public, anon;
grant execute on function public.ticket_page(text, integer, integer, timestamptz, uuid) to authenticated, service_role;
