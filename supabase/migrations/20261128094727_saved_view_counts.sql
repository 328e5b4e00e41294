drop function if exists "private"."saved_view_count"(p_workspace_id uuid, p_me uuid, f jsonb);


  create table "private"."saved_view_counts" (
    "view_id" uuid not null,
    "workspace_id" uuid not null,
    "key" jsonb not null,
    "seen" pg_snapshot not null,
    "n" integer not null,
    "members" uuid[]
      );



  create table "private"."ticket_changes" (
    "workspace_id" uuid not null,
    "xid" xid8 not null default pg_current_xact_id(),
    "ticket_ids" uuid[] not null
      );


CREATE UNIQUE INDEX saved_view_counts_pkey ON private.saved_view_counts USING btree (view_id);

CREATE INDEX ticket_changes_idx ON private.ticket_changes USING btree (workspace_id, xid);

alter table "private"."saved_view_counts" add constraint "saved_view_counts_pkey" PRIMARY KEY using index "saved_view_counts_pkey";

alter table "private"."saved_view_counts" add constraint "saved_view_counts_view_id_fkey" FOREIGN KEY (view_id) REFERENCES saved_views(id) ON DELETE CASCADE not valid;

alter table "private"."saved_view_counts" validate constraint "saved_view_counts_view_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.lock_saved_view_counts(p_workspace_id uuid)
 RETURNS void
 LANGUAGE sql
 SET search_path TO ''
AS $function$
  select pg_advisory_xact_lock(hashtextextended('saved_view_counts ' || p_workspace_id::text, 0))
$function$
;

CREATE OR REPLACE FUNCTION private.log_ticket_changes()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_table_name = 'tickets' then
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, array_agg(c.id) from changed_tickets c group by c.workspace_id;
  elsif tg_table_name = 'ticket_tags' then
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, array_agg(distinct c.ticket_id) from changed_tickets c group by c.workspace_id;
  elsif tg_table_name = 'messages' then
    -- A note leaves its ticket's row alone (30_messages.sql); a reply moves the ticket's search text.
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select c.workspace_id, array_agg(distinct c.ticket_id) from changed_tickets c where c.kind = 'note' group by c.workspace_id;
  else
    -- A tag or a field made, renamed, changed or deleted: no ticket, but what a view's filters name may
    -- have changed (private.saved_view_match's key), so the next page compares them.
    insert into private.ticket_changes (workspace_id, ticket_ids)
    select distinct c.workspace_id, '{}'::uuid[] from changed_tickets c;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.refresh_saved_view_counts()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.saved_view_count(p_view_id uuid, p_workspace_id uuid, p_me uuid, f jsonb)
 RETURNS bigint
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.saved_view_counted()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.store_saved_view_count(new);
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.saved_view_match(p_workspace_id uuid, p_me uuid, f jsonb, p_only uuid[], p_limit integer, OUT key jsonb, OUT n bigint, OUT ids uuid[])
 RETURNS record
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.store_saved_view_count(p_view saved_views)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.tickets_written_since(p_workspace_id uuid, p_seen pg_snapshot)
 RETURNS uuid[]
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  with since as (
    select x.ticket_ids from private.ticket_changes x
     where x.workspace_id = p_workspace_id and x.xid >= pg_snapshot_xmin(p_seen) and not pg_visible_in_snapshot(x.xid, p_seen))
  select case when exists (select 1 from since) then array(select distinct u from since, unnest(since.ticket_ids) u) end
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
                                               'count', case when p_count then private.saved_view_count(v.id, p_workspace_id, p_me, v.filters) end)
                            order by v.shared desc, v.position, lower(v.name), v.id), '[]')
    from public.saved_views v
   where v.workspace_id = p_workspace_id and (v.shared or v.owner_id = p_me)
$function$
;

CREATE TRIGGER messages_log_insert AFTER INSERT ON public.messages REFERENCING NEW TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER saved_views_counted AFTER INSERT OR UPDATE OF filters ON public.saved_views FOR EACH ROW EXECUTE FUNCTION private.saved_view_counted();

CREATE TRIGGER tags_log_delete AFTER DELETE ON public.tags REFERENCING OLD TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER tags_log_insert AFTER INSERT ON public.tags REFERENCING NEW TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER tags_log_update AFTER UPDATE ON public.tags REFERENCING NEW TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER ticket_fields_log_delete AFTER DELETE ON public.ticket_fields REFERENCING OLD TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER ticket_fields_log_insert AFTER INSERT ON public.ticket_fields REFERENCING NEW TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER ticket_fields_log_update AFTER UPDATE ON public.ticket_fields REFERENCING NEW TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER ticket_tags_log_delete AFTER DELETE ON public.ticket_tags REFERENCING OLD TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER ticket_tags_log_insert AFTER INSERT ON public.ticket_tags REFERENCING NEW TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER ticket_tags_log_update AFTER UPDATE ON public.ticket_tags REFERENCING NEW TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER tickets_log_delete AFTER DELETE ON public.tickets REFERENCING OLD TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER tickets_log_insert AFTER INSERT ON public.tickets REFERENCING NEW TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

CREATE TRIGGER tickets_log_update AFTER UPDATE ON public.tickets REFERENCING NEW TABLE AS changed_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.log_ticket_changes();

revoke execute on function private.lock_saved_view_counts(p_workspace_id uuid) from public;
revoke execute on function private.log_ticket_changes() from public;
revoke execute on function private.refresh_saved_view_counts() from public;
revoke execute on function private.saved_view_count(p_view_id uuid, p_workspace_id uuid, p_me uuid, f jsonb) from public;
revoke execute on function private.saved_view_counted() from public;
revoke execute on function private.saved_view_match(p_workspace_id uuid, p_me uuid, f jsonb, p_only uuid[], p_limit integer, OUT key jsonb, OUT n bigint, OUT ids uuid[]) from public;
revoke execute on function private.store_saved_view_count(p_view saved_views) from public;
revoke execute on function private.tickets_written_since(p_workspace_id uuid, p_seen pg_snapshot) from public;

-- Stored saved-view counts catch up every minute (89_saved_views.sql); `db diff` doesn't see this (data).
select cron.schedule('saved-view-counts', '* * * * *', 'select private.refresh_saved_view_counts()');
