-- The realtime schema as hosted Realtime's tenant migrations leave it (docs/reference/realtime.md §4.5, §6.2),
-- so migrations written for hosted (policies on realtime.messages, triggers calling
-- realtime.broadcast_changes) apply unchanged; plus _realtime, the local service's own helpers.
-- Idempotent. Hosted partitions realtime.messages by day; here it is one table (same columns, same
-- key) that the service trims to hosted's 3-day retention.

-- Hosted projects own the publication as postgres, so `alter publication supabase_realtime add table`
-- in a migration works.
alter publication supabase_realtime owner to postgres;

grant all on schema realtime to supabase_realtime_admin;
-- Hosted lets postgres manage policies on realtime.messages (supautils); here through membership.
grant supabase_realtime_admin to postgres;

set role supabase_realtime_admin;

create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default now(),
  inserted_at timestamp without time zone not null default now(),
  id uuid not null default gen_random_uuid(),
  binary_payload bytea,
  primary key (id, inserted_at),
  constraint messages_payload_exclusive check (payload is null or binary_payload is null)
);
create index if not exists messages_inserted_at_topic_index on realtime.messages (inserted_at desc, topic)
  where extension = 'broadcast' and private is true;
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to postgres, anon, authenticated, service_role;

-- The channel's sub-topic while Realtime checks a private channel's policies (and inside realtime.send).
create or replace function realtime.topic() returns text
language sql stable
as $$ select nullif(current_setting('realtime.topic', true), '')::text $$;

-- Broadcast from the database: a row in realtime.messages, which the service streams to the
-- topic's subscribers. Never fails the caller: errors become a WARNING, as hosted.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql
as $$
declare
  message_id uuid := gen_random_uuid();
begin
  begin
    -- Subscribers can tell repeats apart by payload.id, unless the sender chose one.
    if not payload ? 'id' then
      payload := jsonb_set(payload, '{id}', to_jsonb(message_id));
    end if;
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (message_id, payload, event, topic, private, 'broadcast');
  exception when others then
    raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;

create or replace function realtime.send_binary(payload bytea, event text, topic text, private boolean default true)
returns void
language plpgsql
as $$
begin
  begin
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (binary_payload, event, topic, private, extension)
    values (payload, event, topic, private, 'broadcast');
  exception when others then
    raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;

-- For row triggers: sends {old_record, record, operation, table, schema} as a private broadcast.
create or replace function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'ROW'
) returns void
language plpgsql
as $$
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation not in ('INSERT', 'UPDATE', 'DELETE') then
    raise exception 'Unexpected operation type: %', operation;
  end if;
  perform realtime.send(
    jsonb_build_object('old_record', old, 'record', new, 'operation', operation, 'table', table_name, 'schema', table_schema),
    event_name,
    topic_name
  );
exception when others then
  raise exception 'Failed to process the row: %', sqlerrm;
end
$$;

reset role;

-- What the service streams for database broadcasts (hosted's name for it).
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime_messages_publication') then
    create publication supabase_realtime_messages_publication for table realtime.messages;
  end if;
end $$;

-- ---------------------------------------------------------------------------------------------
-- _realtime: the local service's helpers, reachable by the superuser only. Postgres decides every
-- postgres_changes delivery here, as hosted's realtime.apply_rls does (docs/reference/realtime.md §3.4).
create schema if not exists _realtime;
revoke all on schema _realtime from public;

-- A row from the WAL (column -> text, absent = not in the WAL) as JSON of its columns' types:
-- numbers as numbers, json as objects, the rest as Postgres renders them; bytea stays its text.
create or replace function _realtime.typed_row(row_ jsonb, cols jsonb) returns jsonb
language plpgsql stable
as $$
declare
  c jsonb;
  parts text[] := '{}';
  result jsonb;
begin
  if row_ is null then
    return null;
  end if;
  for c in select value from jsonb_array_elements(cols) loop
    if row_ ? (c ->> 'name') then
      parts := parts || format(
        '(%L, to_jsonb(%L::%s))',
        c ->> 'name',
        row_ ->> (c ->> 'name'),
        case when c ->> 'typname' = 'bytea' then 'text' else c ->> 'type' end
      );
    end if;
  end loop;
  if cardinality(parts) = 0 then
    return '{}';
  end if;
  execute 'select jsonb_object_agg(k, v) from (values ' || array_to_string(parts, ',') || ') t(k, v)' into result;
  return result;
end
$$;

-- One postgres_changes filter (docs/reference/realtime.md §3.3): the row's value against the operand,
-- both cast to the column's type. Null when the comparison is.
create or replace function _realtime.filter_matches(val text, type_ text, op text, operand text, negate boolean)
returns boolean
language plpgsql stable
as $$
declare
  res boolean;
begin
  if op = 'is' then
    if operand not in ('null', 'true', 'false', 'unknown') then
      raise exception 'invalid value for is filter: must be null, true, false, or unknown';
    end if;
    execute format('select %L::%s %s %s', val, type_, case when negate then 'is not' else 'is' end, operand) into res;
    return res;
  elsif op = 'isdistinct' then
    execute format('select %L::%s %s %L::%s', val, type_,
      case when negate then 'is not distinct from' else 'is distinct from' end, operand, type_) into res;
    return res;
  end if;
  execute format('select %L::%s %s (%L::%s)', val, type_,
    case op
      when 'eq' then '=' when 'neq' then '<>' when 'lt' then '<' when 'lte' then '<='
      when 'gt' then '>' when 'gte' then '>=' when 'in' then '= any'
      when 'like' then 'like' when 'ilike' then 'ilike' when 'match' then '~' when 'imatch' then '~*'
    end,
    operand, case when op = 'in' then type_ || '[]' else type_ end) into res;
  return case when negate then not res else res end;
end
$$;

-- The publication's tables a subscription names (patterns as hosted: `*` or a LIKE pattern), after
-- checking its filters and selected columns against what the claims' role may read. Raises with
-- hosted's messages when they are not valid.
create or replace function _realtime.subscription_tables(
  schema_ text, table_ text, role_ text, filters jsonb, selected text[]
) returns oid[]
language plpgsql stable
as $$
declare
  entities oid[];
  entity oid;
  readable text[];
  f jsonb;
  col_type regtype;
  col text;
  op text;
  operand text;
begin
  if to_regrole(role_) is null then
    raise exception 'role "%" does not exist', role_ using errcode = '42704';
  end if;
  select coalesce(array_agg(format('%I.%I', schemaname, tablename)::regclass::oid), '{}')
    into entities
    from pg_publication_tables
   where pubname = 'supabase_realtime'
     and schemaname like (case schema_ when '*' then '%' else schema_ end) escape ''
     and tablename like (case table_ when '*' then '%' else table_ end) escape '';
  foreach entity in array entities loop
    select coalesce(array_agg(a.attname::text order by a.attnum), '{}') into readable
      from pg_attribute a
     where a.attrelid = entity and a.attnum > 0 and not a.attisdropped
       and has_column_privilege(role_, a.attrelid, a.attnum, 'SELECT');
    for f in select value from jsonb_array_elements(filters) loop
      col := f ->> 0;
      op := f ->> 1;
      operand := f ->> 2;
      if not col = any(readable) then
        raise exception 'invalid column for filter %', col;
      end if;
      select a.atttypid::regtype into col_type from pg_attribute a where a.attrelid = entity and a.attname = col;
      if op = 'in' then
        execute format('select %L::%s', operand, col_type::text || '[]');
        if cardinality(operand::text[]) > 100 then
          raise exception 'too many values for `in` filter. Maximum 100';
        end if;
      elsif op = 'is' then
        if operand not in ('null', 'true', 'false', 'unknown') then
          raise exception 'invalid value for is filter: must be null, true, false, or unknown';
        end if;
        if operand <> 'null' and col_type <> 'boolean'::regtype then
          raise exception 'is % filter requires a boolean column, got %', operand, col_type::text;
        end if;
      elsif op in ('like', 'ilike', 'match', 'imatch') then
        if not exists (
          select 1 from pg_operator
           where oprname = case op when 'like' then '~~' when 'ilike' then '~~*' when 'match' then '~' else '~*' end
             and oprleft = col_type
        ) then
          raise exception 'operator % requires a text-compatible column type, got %', op, col_type::text;
        end if;
        if op in ('match', 'imatch') then
          begin
            perform '' ~ operand;
          exception when others then
            raise exception 'invalid regular expression for % filter: %', op, sqlerrm;
          end;
        end if;
      else
        execute format('select %L::%s', operand, col_type::text);
      end if;
    end loop;
    foreach col in array coalesce(selected, '{}') loop
      if not col = any(readable) then
        raise exception 'invalid column for select %', col;
      end if;
    end loop;
  end loop;
  return entities;
end
$$;

-- Who of several subscriber groups (one per distinct JWT claims) may see one changed row: the
-- filters of each subscription; for INSERT/UPDATE on a table with RLS, a SELECT of the row by its
-- primary key as the group's role with its claims set; and the columns each role may read.
-- DELETEs are not RLS-checked (hosted can't either: the row is gone). Returns the typed rows, the
-- table's columns and primary key, per group whether it sees the row and which of its
-- subscriptions pass their filters, and per role its readable columns. The check is prepared once
-- per call and run per group. A failing check fails the call, unless `isolate`: then that group
-- sees nothing and the others go on (the caller retries so when a call fails).
-- With synchronous commits the WAL sender can pass a commit on before the committing backend has
-- left the proc array, so a query made at once may not see the transaction's rows yet (the race
-- heapam_visibility.c describes). Waits (up to 5 s) until Postgres no longer counts `xid`, the
-- 32 bits pgoutput's Begin carries, as in progress; then a new snapshot sees what it committed.
create or replace function _realtime.await_commit(xid bigint) returns void
language plpgsql volatile
as $$
declare
  -- The snapshot's xmax is within 2^31 of any xid still worth asking about: it gives the epoch.
  near bigint := pg_snapshot_xmax(pg_current_snapshot())::text::bigint;
  full_xid bigint := ((near >> 32) << 32) | xid;
  waited int := 0;
begin
  if full_xid > near + 2147483648 then
    full_xid := full_xid - 4294967296;
  elsif full_xid < near - 2147483648 then
    full_xid := full_xid + 4294967296;
  end if;
  while pg_xact_status(full_xid::text::xid8) = 'in progress' and waited < 5000 loop
    perform pg_sleep(0.001);
    waited := waited + 1;
  end loop;
exception when others then
  -- Whatever went wrong here, the RLS check still runs (at worst as before this wait existed).
  raise warning 'await_commit(%): %', xid, sqlerrm;
end
$$;

drop function if exists _realtime.apply_change(regclass, text, jsonb, jsonb, jsonb, jsonb, boolean);
create or replace function _realtime.apply_change(
  entity regclass,
  action text,
  new_row jsonb,
  old_row jsonb,
  filters jsonb, -- [[column, op, operand, negate], ...]
  groups jsonb, -- [{"claims": {...}, "subs": [[filter index, ...], ...]}, ...]
  xid bigint, -- the change's transaction, committed: its rows must be visible before RLS is asked
  isolate boolean default false
) returns jsonb
language plpgsql volatile
as $$
declare
  rls boolean;
  cols jsonb;
  pk text[];
  filter_row jsonb := case when action = 'DELETE' then old_row else new_row end;
  passed boolean[] := '{}';
  f jsonb;
  col jsonb;
  ok boolean;
  check_sql text;
  g jsonb;
  sub jsonb;
  subs jsonb;
  any_sub boolean;
  role_ text;
  readable jsonb := '{}'; -- role -> its readable columns
  visible boolean;
  visibles boolean[] := '{}';
  all_subs jsonb[] := '{}';
  cols_of_role jsonb;
  gi int;
  si int;
  fi int;
begin
  select relrowsecurity into rls from pg_class where oid = entity;
  select coalesce(jsonb_agg(jsonb_build_object('name', a.attname, 'type', a.atttypid::regtype::text, 'typname', t.typname)
           order by a.attnum), '[]')
    into cols
    from pg_attribute a join pg_type t on t.oid = a.atttypid
   where a.attrelid = entity and a.attnum > 0 and not a.attisdropped;
  select coalesce(array_agg(a.attname::text order by a.attnum), '{}') into pk
    from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any (c.conkey)
   where c.conrelid = entity and c.contype = 'p';

  for f in select value from jsonb_array_elements(filters) loop
    select value into col from jsonb_array_elements(cols) where value ->> 'name' = f ->> 0;
    ok := false;
    if col is not null and filter_row ? (f ->> 0) then
      begin
        ok := coalesce(_realtime.filter_matches(filter_row ->> (f ->> 0), col ->> 'type', f ->> 1, f ->> 2, (f ->> 3)::boolean), false);
      exception when others then
        ok := false;
      end;
    end if;
    passed := passed || ok;
  end loop;

  if rls and action <> 'DELETE' and cardinality(pk) > 0 then
    select 'select exists (select 1 from ' || entity::text || ' where '
           || string_agg(format('%I = %L::%s', p, new_row ->> p, c ->> 'type'), ' and ') || ')'
      into check_sql
      from unnest(pk) p join jsonb_array_elements(cols) c on c ->> 'name' = p;
    if exists (select 1 from pg_prepared_statements where name = '_realtime_rls_check') then
      deallocate _realtime_rls_check;
    end if;
    execute 'prepare _realtime_rls_check as ' || check_sql;
    perform _realtime.await_commit(xid);
  end if;

  -- Index loops and simple expressions only: plpgsql evaluates those without a query each.
  for gi in 0 .. jsonb_array_length(groups) - 1 loop
    g := groups -> gi;
    subs := '[]';
    any_sub := false;
    for si in 0 .. jsonb_array_length(g -> 'subs') - 1 loop
      sub := g -> 'subs' -> si;
      ok := true;
      for fi in 0 .. jsonb_array_length(sub) - 1 loop
        ok := ok and passed[(sub ->> fi)::int + 1];
      end loop;
      subs := subs || to_jsonb(ok);
      any_sub := any_sub or ok;
    end loop;
    all_subs := all_subs || subs;
    role_ := g -> 'claims' ->> 'role';
    visible := false;
    if any_sub then
      begin
        if not readable ? role_ then
          select coalesce(jsonb_agg(a.attname order by a.attnum), '[]') into cols_of_role
            from pg_attribute a
           where a.attrelid = entity and a.attnum > 0 and not a.attisdropped
             and has_column_privilege(role_, a.attrelid, a.attnum, 'SELECT');
          readable := readable || jsonb_build_object(role_, cols_of_role);
        end if;
        visible := true;
        if check_sql is not null and readable -> role_ @> to_jsonb(pk) then
          perform set_config('role', role_, true),
                  set_config('request.jwt.claims', (g -> 'claims')::text, true),
                  set_config('request.jwt.claim.sub', coalesce(g -> 'claims' ->> 'sub', ''), true),
                  set_config('request.jwt.claim.role', role_, true);
          execute 'execute _realtime_rls_check' into visible;
          perform set_config('role', null, true);
        end if;
      exception when others then
        if not isolate then
          raise;
        end if;
        -- A policy that fails, or a role dropped since it subscribed: the group sees nothing.
        visible := false;
      end;
    end if;
    visibles := visibles || visible;
  end loop;
  if check_sql is not null then
    deallocate _realtime_rls_check;
  end if;

  return jsonb_build_object(
    'rls', rls,
    'columns', cols,
    'pk', to_jsonb(pk),
    'record', _realtime.typed_row(new_row, cols),
    'old_record', _realtime.typed_row(old_row, cols),
    'visible', to_jsonb(visibles),
    'subs', to_jsonb(all_subs),
    'readable', readable
  );
end
$$;

revoke all on all functions in schema _realtime from public;
