-- Saved views and the inbox's live counts (issue 27 items 2, 8 and 11;
-- docs/product.md#views-saved-views-mentions-and-search-the-inbox; docs/decisions/062-saved-views-and-dense-inbox.md).
--
-- A saved view is a name for the inbox's view, search, filters and sort: an agent's own (private: nobody
-- else reads it, admins included) or the team's (shared: every member reads it; only admins share, rename,
-- reorder or delete one). public.inbox lists the ones I see beside the built-in views, each with its
-- count; the page reloads them whenever the live inbox reloads, so the counts follow.

-- When a note last named me on a ticket: the Mentions view's order and cursor (public.inbox).
create function private.mentioned_at(p_ticket_id uuid, p_me uuid) returns timestamptz
language sql stable set search_path = '' as $$
  select max(mm.created_at) from public.message_mentions mm join public.messages m on m.id = mm.message_id
   where m.ticket_id = p_ticket_id and mm.user_id = p_me
$$;
revoke all on function private.mentioned_at(uuid, uuid) from public;

-- What a saved view keeps: public.inbox's view, search and filters as the inbox's URL names them
-- (view, q, status, priority, assignee, tag: a list, fields: {field id: value or {from, to}}, sort).
-- A search's tag: words are kept as tags. Checked for shape here; public.inbox checks the values.
-- Security definer: the inbox's view names (private) are asked for whoever saves.
create function private.saved_view_filters_ok(f jsonb) returns boolean
language sql immutable security definer set search_path = '' as $$
  select jsonb_typeof(f) = 'object'
     and coalesce((select bool_and(k in ('view', 'q', 'status', 'priority', 'assignee', 'tag', 'fields', 'sort'))
                     from jsonb_object_keys(f) k), true)
     and private.inbox_view_filter(coalesce(f ->> 'view', 'unassigned')) is not null
     and coalesce(jsonb_typeof(f -> 'tag'), 'array') = 'array'
     and coalesce(jsonb_typeof(f -> 'fields'), 'object') = 'object'
     and coalesce(f ->> 'sort', 'newest') in ('newest', 'oldest')
     and octet_length(f::text) <= 4000
$$;
revoke all on function private.saved_view_filters_ok(jsonb) from public;
grant execute on function private.saved_view_filters_ok(jsonb) to authenticated, service_role;

create table public.saved_views (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  owner_id uuid not null default auth.uid(),
  name text not null check (char_length(name) between 1 and 60),
  -- The team's (every member sees it; admins manage it), else the owner's alone.
  shared boolean not null default false,
  -- Its shape checked by saved_views_check (below).
  filters jsonb not null default '{}',
  -- The order among the team's views, and among each agent's own (then by name).
  position integer not null default 0,
  created_at timestamptz not null default now(),
  constraint saved_views_name_trimmed check (name = btrim(name)),
  -- Someone who leaves the workspace takes their views along (shared ones they made too).
  constraint saved_views_owner_fkey foreign key (workspace_id, owner_id)
    references public.memberships (workspace_id, user_id) on delete cascade
);
-- A name once among the team's views, and once among each agent's own (any case).
create unique index saved_views_shared_name_key on public.saved_views (workspace_id, lower(name)) where shared;
create unique index saved_views_own_name_key on public.saved_views (workspace_id, owner_id, lower(name)) where not shared;
-- The policies' and the inbox's look-up (a workspace's views, mine), and the membership's cascade.
create index saved_views_workspace_idx on public.saved_views (workspace_id, owner_id);

alter table public.saved_views enable row level security;
revoke all on public.saved_views from anon;
revoke insert, update, truncate on public.saved_views from authenticated;
grant insert (workspace_id, name, shared, filters, position) on public.saved_views to authenticated;
grant update (name, shared, filters, position) on public.saved_views to authenticated;

-- Filters of another shape are a bad request, whoever writes them.
create function private.check_saved_view() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not private.saved_view_filters_ok(new.filters) then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'filters';
  end if;
  return new;
end $$;
revoke all on function private.check_saved_view() from public;
create trigger saved_views_check before insert or update of filters on public.saved_views
  for each row execute function private.check_saved_view();

-- Whether the caller may change a view: their own private one, or the team's if they are its admin.
create function private.may_manage_view(p_workspace_id uuid, p_owner_id uuid, p_shared boolean) returns boolean
language sql stable security definer set search_path = '' as $$
  select case when p_shared then private.is_admin(p_workspace_id)
              else p_owner_id = auth.uid() and private.is_member(p_workspace_id) end
$$;
revoke all on function private.may_manage_view(uuid, uuid, boolean) from public;
grant execute on function private.may_manage_view(uuid, uuid, boolean) to authenticated;

create policy "members read the team's views and their own" on public.saved_views for select to authenticated
  using (workspace_id in (select private.member_workspaces()) and (shared or owner_id = (select auth.uid())));
create policy "members save their own views, admins the team's" on public.saved_views for insert to authenticated
  with check (owner_id = (select auth.uid()) and private.may_manage_view(workspace_id, owner_id, shared));
create policy "members change their own views, admins the team's" on public.saved_views for update to authenticated
  using (private.may_manage_view(workspace_id, owner_id, shared))
  with check (private.may_manage_view(workspace_id, owner_id, shared));
create policy "members delete their own views, admins the team's" on public.saved_views for delete to authenticated
  using (private.may_manage_view(workspace_id, owner_id, shared));

-- ---------------------------------------------------------------------------------------------
-- Save the inbox as it is under a name (security invoker: the policies above decide). A name of 1–60
-- characters (view_name_invalid), not one I (or the team, for a shared one) have already
-- (view_name_taken); sharing is for admins (view_share_forbidden); 30 views each (view_limit).
create function public.save_inbox_view(p_workspace_id uuid, p_name text, p_shared boolean, p_filters jsonb) returns uuid
language plpgsql security invoker set search_path = '' as $$
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
end $$;

-- Rename a view I may change (not_found for any other).
create function public.rename_inbox_view(p_id uuid, p_name text) returns void
language plpgsql security invoker set search_path = '' as $$
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
end $$;

-- Move a view I may change one place up or down among its own (the team's, or mine); at an end it stays.
create function public.move_inbox_view(p_id uuid, p_up boolean) returns void
language plpgsql security invoker set search_path = '' as $$
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
end $$;

revoke all on function public.save_inbox_view(uuid, text, boolean, jsonb), public.rename_inbox_view(uuid, text),
  public.move_inbox_view(uuid, boolean) from public, anon;
grant execute on function public.save_inbox_view(uuid, text, boolean, jsonb), public.rename_inbox_view(uuid, text),
  public.move_inbox_view(uuid, boolean) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- A saved view's tickets as its tab counts them: from the tallies when they can say (a view with status,
-- priority and assignee filters), else counted with the conditions public.inbox lists by
-- (private.inbox_where); a search counts subject, public replies and notes as the inbox matches them. n is
-- null for "Breaching soon" (not counted) and for filters that no longer make sense (a status that isn't
-- one); 0 for a field value that no longer fits its field.
-- Asked three ways: neither p_only nor p_limit, the count as the tab shows it (up to 1 001: "1,000+");
-- p_limit, how many up to p_limit and, when 1 000 or fewer, which (ids); p_only, which of these tickets
-- are in it (ids). key: what the filters named when counted (the tags' ids, the fields as read), for
-- private.saved_view_counts; null for a view the tallies count, and for Mine and Mentions views, whose
-- tickets depend on who looks (counted on every page: docs/decisions/086-saved-view-counts.md).
create function private.saved_view_match(p_workspace_id uuid, p_me uuid, f jsonb, p_only uuid[], p_limit integer,
  out key jsonb, out n bigint, out ids uuid[])
language plpgsql stable set search_path = '' as $$
declare
  v text := coalesce(f ->> 'view', 'unassigned');
  a text := f ->> 'assignee';
  q tsquery := private.inbox_query(f ->> 'q');
  tag_names text[] := array(select jsonb_array_elements_text(coalesce(f -> 'tag', '[]')));
  status_filter public.ticket_status;
  priority_filter public.ticket_priority;
  assignee uuid;
  tag_ids uuid[];
  fields jsonb;
  notes uuid[] := '{}';
  cond text;
  match text := case when q is not null then '(t.search @@ $6 or t.id = any ($12))' end;
begin
  if v = 'breaching' or private.inbox_view_filter(v) is null then
    return;
  end if;
  begin
    status_filter := (f ->> 'status')::public.ticket_status;
    priority_filter := (f ->> 'priority')::public.ticket_priority;
    assignee := case when a <> 'none' then a::uuid end;
  exception when invalid_text_representation then
    return;
  end;
  tag_ids := private.inbox_tag_ids(p_workspace_id, tag_names);
  begin
    fields := private.inbox_field_filters(p_workspace_id, f -> 'fields');
  exception when sqlstate 'P0001' then
    n := 0;
    return;
  end;
  if q is null and tag_ids is null and fields is null and v <> 'mentions' then
    n := private.tally_total(p_workspace_id, p_me, v, status_filter, priority_filter, assignee, a = 'none');
    return;
  end if;
  if q is not null and numnode(q) = 0 then
    n := 0;
    return;
  end if;
  if v not in ('mine', 'mentions') then
    key := jsonb_build_array(f, (select jsonb_agg(g.id order by g.id) from public.tags g
                                   where g.workspace_id = p_workspace_id and g.name = any (tag_names)), fields);
  end if;
  -- After the key: a tag's first or last ticket changes the answer, not which view this is.
  fields := private.inbox_tags_none(tag_ids, fields);
  cond := private.inbox_where(v, status_filter is not null, priority_filter is not null, a, cardinality(tag_ids), fields);
  if p_only is not null then
    if cardinality(p_only) > 0 then
      if q is not null then
        notes := array(select m.ticket_id from public.messages m
                        where m.ticket_id = any (p_only) and m.kind = 'note' and to_tsvector('english'::regconfig, m.body) @@ q);
      end if;
      execute format('select array(select t.id from public.tickets t where %s%s and t.id = any ($11))', cond, ' and ' || match)
        into ids
        using p_me, p_workspace_id, status_filter, priority_filter, assignee, q, null::timestamptz, null::uuid, null::integer,
          null::uuid, p_only, notes, tag_ids, fields;
    else
      ids := '{}';
    end if;
    return;
  end if;
  if q is not null then
    notes := array(select m.ticket_id from public.messages m
                    where m.workspace_id = p_workspace_id and m.kind = 'note' and to_tsvector('english'::regconfig, m.body) @@ q
                    limit 1001);
  end if;
  if q is not null and p_limit is null then
    -- A tag's tickets or a common word among the newest tickets, when they decide the count
    -- (private.inbox_newest_matches): not every match.
    n := (private.inbox_newest_matches(1000, 'jsonb_build_object(''n'', count(*))', cond, match, p_me, p_workspace_id,
            status_filter, priority_filter, assignee, q, null, notes, tag_ids, fields) ->> 'n')::bigint;
    if n is not null then
      return;
    end if;
  end if;
  -- Without a search the count starts from the filter's own index (a tag's, a field's, my mentions) and
  -- stops at the limit: left to itself the planner hashed a tag's every row, or scanned tickets until a
  -- field's 1 001st match (docs/decisions/071-inbox-at-a-million.md).
  if q is null then
    perform set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true),
      set_config('enable_seqscan', 'off', true);
  end if;
  execute format('select count(*), %s from (select t.id from public.tickets t where %s%s limit %s) x',
                 case when p_limit is null then 'null::uuid[]' else 'coalesce(array_agg(x.id), ''{}'')' end, cond, ' and ' || match,
                 coalesce(p_limit, 1001))
    into n, ids
    using p_me, p_workspace_id, status_filter, priority_filter, assignee, q, null::timestamptz, null::uuid, null::integer,
      null::uuid, null::uuid[], notes, tag_ids, fields;
  if q is null then
    perform set_config('enable_hashjoin', 'on', true), set_config('enable_mergejoin', 'on', true),
      set_config('enable_seqscan', 'on', true);
  end if;
  if n > 1000 then
    ids := null;
  end if;
end $$;
revoke all on function private.saved_view_match(uuid, uuid, jsonb, uuid[], integer) from public;

-- ---------------------------------------------------------------------------------------------
-- Counts kept between pages (docs/decisions/086-saved-view-counts.md). Counting a view's tickets on every
-- page cost ~7 ms a view at 1 M tickets; the inbox (a read-only GET) can't store what it counts, so the
-- count is stored when the view is saved and by a job every minute, with the writes it has seen (a
-- snapshot), and every page brings it up to date from the tickets written since: each write to tickets
-- (their status, assignee, priority, snooze, spam, trash, search text; a ticket created or purged), to
-- their tags (added, removed, merged) and each note logs the tickets it touched in ticket_changes
-- (one row a statement, no row shared between writers: nothing queues). A page tests those tickets
-- against the view (by primary key) and moves the stored count by what changed; a view whose filters
-- now name something else (a tag renamed or made, a field changed) or with more than 1 000 tickets
-- written since is counted as before.

-- The tickets each transaction wrote, by workspace; pruned by private.refresh_saved_view_counts once
-- every stored count has seen them.
create table private.ticket_changes (
  workspace_id uuid not null,
  xid xid8 not null default pg_current_xact_id(),
  ticket_ids uuid[] not null
);
create index ticket_changes_idx on private.ticket_changes (workspace_id, xid);

-- Each transaction logs a ticket once: a page reads the log by transaction (its xid), so a second row for tickets
-- this transaction logged already would tell it nothing, and a new ticket is written several times in its
-- transaction (inserted, tagged, its priority, its assignee, its number: docs/decisions/108-rules-cpu.md). The
-- look-up is written out in each statement (a SQL function with its search_path is neither inlined nor kept
-- planned: it cost more than the row it saved).
create function private.log_ticket_changes() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_table_name = 'tickets' then
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, c.ids from (select workspace_id, array_agg(id) as ids from changed_tickets group by 1) c
     where not exists (select 1 from private.ticket_changes x
                        where x.workspace_id = c.workspace_id and x.xid = pg_current_xact_id() and x.ticket_ids @> c.ids);
  elsif tg_table_name = 'ticket_tags' then
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, c.ids from (select workspace_id, array_agg(distinct ticket_id) as ids from changed_tickets group by 1) c
     where not exists (select 1 from private.ticket_changes x
                        where x.workspace_id = c.workspace_id and x.xid = pg_current_xact_id() and x.ticket_ids @> c.ids);
  elsif tg_table_name = 'messages' then
    -- A note leaves its ticket's row alone (30_messages.sql); a reply moves the ticket's search text.
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, c.ids
      from (select workspace_id, array_agg(distinct ticket_id) as ids from changed_tickets where kind = 'note' group by 1) c
     where not exists (select 1 from private.ticket_changes x
                        where x.workspace_id = c.workspace_id and x.xid = pg_current_xact_id() and x.ticket_ids @> c.ids);
  else
    -- A tag or a field made, renamed, changed or deleted: no ticket, but what a view's filters name may
    -- have changed (private.saved_view_match's key), so the next page compares them: any row of this
    -- transaction in the workspace says so.
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, '{}'::uuid[] from (select distinct workspace_id from changed_tickets) c
     where not exists (select 1 from private.ticket_changes x where x.workspace_id = c.workspace_id and x.xid = pg_current_xact_id());
  end if;
  return null;
end $$;
revoke all on function private.log_ticket_changes() from public;
create trigger tickets_log_insert after insert on public.tickets
  referencing new table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger tickets_log_update after update on public.tickets
  referencing new table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger tickets_log_delete after delete on public.tickets
  referencing old table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger ticket_tags_log_insert after insert on public.ticket_tags
  referencing new table as changed_tickets for each statement execute function private.log_ticket_changes();
-- A merge moves a tag's rows to another tag (52_triage.sql): an update.
create trigger ticket_tags_log_update after update on public.ticket_tags
  referencing new table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger ticket_tags_log_delete after delete on public.ticket_tags
  referencing old table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger messages_log_insert after insert on public.messages
  referencing new table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger tags_log_insert after insert on public.tags
  referencing new table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger tags_log_update after update on public.tags
  referencing new table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger tags_log_delete after delete on public.tags
  referencing old table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger ticket_fields_log_insert after insert on public.ticket_fields
  referencing new table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger ticket_fields_log_update after update on public.ticket_fields
  referencing new table as changed_tickets for each statement execute function private.log_ticket_changes();
create trigger ticket_fields_log_delete after delete on public.ticket_fields
  referencing old table as changed_tickets for each statement execute function private.log_ticket_changes();

-- A view's stored count: n exact up to 2 001 (so that a page can tell "1,000+" after up to 1 000 tickets
-- written), its tickets when 1 000 or fewer, what its filters named (private.saved_view_match's key)
-- and the writes it has seen. A migration that changes what a view or a filter means (inbox_view_filter,
-- inbox_where, inbox_query, the field filters) empties this table.
create table private.saved_view_counts (
  view_id uuid primary key references public.saved_views (id) on delete cascade,
  workspace_id uuid not null,
  key jsonb not null,
  seen pg_snapshot not null,
  n integer not null,
  members uuid[]
);

-- The tickets written since `seen` that this transaction sees (none it can't: the page lists neither), or
-- null when nothing was written since (not even a tag or a field).
create function private.tickets_written_since(p_workspace_id uuid, p_seen pg_snapshot) returns uuid[]
language sql stable set search_path = '' as $$
  with since as (
    select x.ticket_ids from private.ticket_changes x
     where x.workspace_id = p_workspace_id and x.xid >= pg_snapshot_xmin(p_seen) and not pg_visible_in_snapshot(x.xid, p_seen))
  select case when exists (select 1 from since) then array(select distinct u from since, unnest(since.ticket_ids) u) end
$$;
revoke all on function private.tickets_written_since(uuid, pg_snapshot) from public;

-- Counting and pruning in a workspace queue on this lock: a count's snapshot is taken under it and
-- stored before it is released, so no ticket_changes row its count hasn't seen is pruned meanwhile.
create function private.lock_saved_view_counts(p_workspace_id uuid) returns void
language sql volatile set search_path = '' as $$
  select pg_advisory_xact_lock(hashtextextended('saved_view_counts ' || p_workspace_id::text, 0))
$$;
revoke all on function private.lock_saved_view_counts(uuid) from public;

-- Count a view now and store it (or forget it, for a view counted on every page). The snapshot is taken
-- before the count's own: whatever the count saw besides is tested again by the next page.
create function private.store_saved_view_count(p_view public.saved_views) returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  seen pg_snapshot;
  m record;
begin
  if (private.saved_view_match(p_view.workspace_id, p_view.owner_id, p_view.filters, '{}', null)).key is null then
    delete from private.saved_view_counts where view_id = p_view.id;
    return;
  end if;
  perform private.lock_saved_view_counts(p_view.workspace_id);
  seen := pg_current_snapshot();
  m := private.saved_view_match(p_view.workspace_id, p_view.owner_id, p_view.filters, null, 2001);
  insert into private.saved_view_counts as c (view_id, workspace_id, key, seen, n, members)
  values (p_view.id, p_view.workspace_id, m.key, seen, m.n, m.ids)
  on conflict (view_id) do update set key = excluded.key, seen = excluded.seen, n = excluded.n, members = excluded.members;
end $$;
revoke all on function private.store_saved_view_count(public.saved_views) from public;

create function private.saved_view_counted() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform private.store_saved_view_count(new);
  return null;
end $$;
revoke all on function private.saved_view_counted() from public;
create trigger saved_views_counted after insert or update of filters on public.saved_views
  for each row execute function private.saved_view_counted();

-- Every minute (pg_cron, below): each stored count that tickets were written for since, or whose filters
-- name something else now (a tag renamed), is counted again; then the ticket_changes every stored count
-- has seen go.
create function private.refresh_saved_view_counts() returns integer
language plpgsql volatile security definer set search_path = '' as $$
declare
  ws uuid;
  v public.saved_views;
  c private.saved_view_counts;
  counted integer := 0;
begin
  for ws in select x.workspace_id from private.ticket_changes x union select s.workspace_id from public.saved_views s loop
    perform private.lock_saved_view_counts(ws);
    for v in select * from public.saved_views s where s.workspace_id = ws loop
      select * into c from private.saved_view_counts x where x.view_id = v.id;
      if c.view_id is null or private.tickets_written_since(ws, c.seen) is not null
         or (private.saved_view_match(ws, v.owner_id, v.filters, '{}', null)).key is distinct from c.key then
        perform private.store_saved_view_count(v);
        counted := counted + 1;
      end if;
    end loop;
    delete from private.ticket_changes x
     where x.workspace_id = ws
       and x.xid < least(pg_snapshot_xmin(pg_current_snapshot()),
                         (select min(pg_snapshot_xmin(k.seen)) from private.saved_view_counts k where k.workspace_id = ws));
  end loop;
  return counted;
end $$;
revoke all on function private.refresh_saved_view_counts() from public;

-- A saved view's count as its tab shows it (private.saved_view_match): from its stored count and the
-- tickets written since when they can say, else counted.
create function private.saved_view_count(p_view_id uuid, p_workspace_id uuid, p_me uuid, f jsonb) returns bigint
language plpgsql stable set search_path = '' as $$
declare
  c record;
  written uuid[];
  m record;
begin
  select x.key, x.seen, x.n into c from private.saved_view_counts x where x.view_id = p_view_id;
  if c.seen is not null then
    written := private.tickets_written_since(p_workspace_id, c.seen);
    if written is null then
      return least(c.n, 1001);
    end if;
    -- Over 1 000 even if every ticket written left: only what the filters name is compared.
    if c.n - cardinality(written) > 1000 then
      if (private.saved_view_match(p_workspace_id, p_me, f, '{}', null)).key = c.key then
        return 1001;
      end if;
    elsif cardinality(written) <= 1000 then
      m := private.saved_view_match(p_workspace_id, p_me, f, written, null);
      if m.key = c.key then
        -- Its tickets then, less those written since, plus those of them in it now.
        if c.n <= 1000 then
          return least(1001, cardinality(m.ids) + (select count(*) from private.saved_view_counts x, unnest(x.members) u
                                                    where x.view_id = p_view_id and u <> all (written)));
        -- Over 1 000 then, and still over whatever those left.
        elsif c.n - cardinality(written) + cardinality(m.ids) > 1000 then
          return 1001;
        end if;
      end if;
    end if;
  end if;
  return (private.saved_view_match(p_workspace_id, p_me, f, null, null)).n;
end $$;
revoke all on function private.saved_view_count(uuid, uuid, uuid, jsonb) from public;

-- The saved views I see, in order (the team's first), with their counts unless p_count is false (after
-- a search timed out): for public.inbox, whose caller it takes as p_me (the policies' rule, here as a
-- condition: it runs as the inbox's owner). plpgsql keeps its plan for the connection: as a SQL function
-- with a setting it was parsed and planned at every inbox call, ~5 % of a plain view's database CPU
-- (docs/decisions/106-inbox-call-cost-outside-the-page.md).
create function private.saved_views_json(p_workspace_id uuid, p_me uuid, p_count boolean) returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return (select coalesce(jsonb_agg(jsonb_build_object('id', v.id, 'name', v.name, 'shared', v.shared, 'filters', v.filters,
                                                       'mine', v.owner_id = p_me,
                                                       'count', case when p_count then private.saved_view_count(v.id, p_workspace_id, p_me, v.filters) end)
                                    order by v.shared desc, v.position, lower(v.name), v.id), '[]')
            from public.saved_views v
           where v.workspace_id = p_workspace_id and (v.shared or v.owner_id = p_me));
end $$;
revoke all on function private.saved_views_json(uuid, uuid, boolean) from public;

-- ---------------------------------------------------------------------------------------------
-- Live counts: a field value set or cleared moves its ticket's updated_at (as a tag does,
-- 52_triage.sql), so the live inbox reloads and views filtered by that field follow.
create function private.ticket_field_touch() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.tickets set updated_at = now() where id = coalesce(new.ticket_id, old.ticket_id);
  return null;
end $$;
revoke all on function private.ticket_field_touch() from public;
create trigger ticket_field_values_touch after insert or update or delete on public.ticket_field_values
  for each row execute function private.ticket_field_touch();

-- A mention of me reloads my live inbox (the Mentions view's count): the note itself changes no ticket.
alter publication supabase_realtime add table public.message_mentions;

-- Stored saved-view counts catch up every minute (above). `db diff` doesn't see this statement (data,
-- not schema): its migration carries it by hand.
select cron.schedule('saved-view-counts', '* * * * *', 'select private.refresh_saved_view_counts()');
