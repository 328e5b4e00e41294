-- pg_net's SQL interface (supabase/pg_net sql/pg_net.sql, 0.20), with PL/pgSQL bodies where pg_net
-- has C: the queue and response tables, net.http_get/post/delete and the collect functions are the
-- same. The stack's net worker (supabase/local/netcron/net.ts) stands in for pg_net's background
-- worker: it takes rows from net.http_request_queue after commit, sends them and records the answer
-- in net._http_response.
create schema if not exists net;

create domain net.http_method as text
check (
  value ilike 'get'
  or value ilike 'post'
  or value ilike 'delete'
);

-- Store pending requests. The background worker reads from here
create unlogged table net.http_request_queue(
    id bigserial,
    method net.http_method not null,
    url text not null,
    headers jsonb,
    body bytea,
    timeout_milliseconds int not null
);

-- Associates a response with a request
create unlogged table net._http_response(
    id bigint,
    status_code integer,
    content_type text,
    headers jsonb,
    content text,
    timed_out bool,
    error_msg text,
    created timestamptz not null default now()
);

create index on net._http_response (created);

-- pg_net looks for its background worker; ours is a client of the stack with this application_name.
create or replace function net.check_worker_is_up() returns void as $$
begin
  if not exists (select pid from pg_stat_activity where application_name = 'pg_net worker') then
    raise exception using
      message = 'the pg_net background worker is not up'
    , detail  = 'the pg_net background worker is down due to an internal error and cannot process requests'
    , hint    = 'make sure that you didn''t modify any of pg_net internal tables';
  end if;
end
$$ language plpgsql;
comment on function net.check_worker_is_up() is 'raises an exception if the pg_net background worker is not up, otherwise it doesn''t return anything';

-- Blocks until an http_request is complete
create or replace function net._await_response(request_id bigint)
    returns bool
    language plpgsql
as $$
declare
    rec net._http_response;
begin
    while rec is null loop
        select * into rec from net._http_response where id = request_id;
        if rec is null then
            perform pg_sleep(0.05);
        end if;
    end loop;
    return true;
end;
$$;

-- url encode a string, as curl_easy_escape: everything but ALPHA / DIGIT / "-" / "." / "_" / "~"
create or replace function net._urlencode_string(string varchar)
    returns text
    language sql
    immutable
as $$
    select string_agg(
        case when (b between 48 and 57) or (b between 65 and 90) or (b between 97 and 122) or b in (45, 46, 95, 126)
            then chr(b)
            else '%' || upper(lpad(to_hex(b), 2, '0'))
        end, '' order by i)
    from (select i, get_byte(convert_to(string, 'UTF8'), i) as b
          from generate_series(0, octet_length(convert_to(string, 'UTF8')) - 1) as i) bytes;
$$;

-- Appends encoded key=value pairs to the url's query, as curl_url_set(CURLU_APPENDQUERY)
create or replace function net._encode_url_with_params_array(url text, params_array text[])
    returns text
    language sql
    immutable
as $$
    select case
        when coalesce(array_length(params_array, 1), 0) = 0 then url
        else split_part(url, '#', 1)
            || case when position('?' in split_part(url, '#', 1)) = 0 then '?'
                    when right(split_part(url, '#', 1), 1) in ('?', '&') then ''
                    else '&' end
            || array_to_string(params_array, '&')
    end;
$$;

-- The worker listens on this channel; a notification is delivered when the transaction commits.
create or replace function net.wake()
  returns void
  language sql
as $$ select pg_notify('pg_net_wake', '') $$;

create or replace function net.worker_restart()
  returns bool
  language plpgsql
as $$ begin perform pg_notify('pg_net_wake', 'restart'); return true; end $$;

create or replace function net.wait_until_running()
  returns void
  language plpgsql
as $$
begin
  while not exists (select 1 from pg_stat_activity where application_name = 'pg_net worker') loop
    perform pg_sleep(0.05);
  end loop;
end
$$;
comment on function net.wait_until_running() is 'waits until the worker is running';

-- Interface to make an async request
create or replace function net.http_get(
    url text,
    params jsonb default '{}'::jsonb,
    headers jsonb default '{}'::jsonb,
    timeout_milliseconds int default 5000
)
    returns bigint
    language plpgsql
as $$
declare
    request_id bigint;
    params_array text[];
begin
    select coalesce(array_agg(net._urlencode_string(key) || '=' || net._urlencode_string(value)), '{}')
    into params_array
    from jsonb_each_text(params);

    insert into net.http_request_queue(method, url, headers, timeout_milliseconds)
    values ('GET', net._encode_url_with_params_array(url, params_array), headers, timeout_milliseconds)
    returning id into request_id;

    perform net.wake();
    return request_id;
end
$$;

create or replace function net.http_post(
    url text,
    body jsonb default '{}'::jsonb,
    params jsonb default '{}'::jsonb,
    headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
    timeout_milliseconds int DEFAULT 5000
)
    returns bigint
    language plpgsql
as $$
declare
    request_id bigint;
    params_array text[];
    content_type text;
begin
    select header_value into content_type
    from jsonb_each_text(coalesce(headers, '{}'::jsonb)) r(header_name, header_value)
    where lower(header_name) = 'content-type'
    limit 1;

    if content_type is null then
        select headers || '{"Content-Type": "application/json"}'::jsonb into headers;
    end if;

    if content_type <> 'application/json' then
        raise exception 'Content-Type header must be "application/json"';
    end if;

    select coalesce(array_agg(net._urlencode_string(key) || '=' || net._urlencode_string(value)), '{}')
    into params_array
    from jsonb_each_text(params);

    insert into net.http_request_queue(method, url, headers, body, timeout_milliseconds)
    values ('POST', net._encode_url_with_params_array(url, params_array), headers,
            convert_to(body::text, 'UTF8'), timeout_milliseconds)
    returning id into request_id;

    perform net.wake();
    return request_id;
end
$$;

create or replace function net.http_delete(
    url text,
    params jsonb default '{}'::jsonb,
    headers jsonb default '{}'::jsonb,
    timeout_milliseconds int default 5000,
    body jsonb default NULL
)
    returns bigint
    language plpgsql
as $$
declare
    request_id bigint;
    params_array text[];
begin
    select coalesce(array_agg(net._urlencode_string(key) || '=' || net._urlencode_string(value)), '{}')
    into params_array
    from jsonb_each_text(params);

    insert into net.http_request_queue(method, url, headers, body, timeout_milliseconds)
    values ('DELETE', net._encode_url_with_params_array(url, params_array), headers,
            convert_to(body::text, 'UTF8'), timeout_milliseconds)
    returning id into request_id;

    perform net.wake();
    return request_id;
end
$$;

-- Lifecycle states of a request (all protocols)
create type net.request_status as enum ('PENDING', 'SUCCESS', 'ERROR');

-- A response from an HTTP server
create type net.http_response AS (
    status_code integer,
    headers jsonb,
    body text
);

-- State wrapper around responses
create type net.http_response_result as (
    status net.request_status,
    message text,
    response net.http_response
);

create or replace function net._http_collect_response(
    request_id bigint,
    async bool default true
)
    returns net.http_response_result
    language plpgsql
as $$
declare
    rec net._http_response;
begin
    if not async then
        perform net._await_response(request_id);
    end if;

    select * into rec from net._http_response where id = request_id;

    if rec is null or rec.error_msg is not null then
        return (
            'ERROR',
            coalesce(rec.error_msg, 'request matching request_id not found'),
            null
        )::net.http_response_result;
    end if;

    return (
        'SUCCESS',
        'ok',
        (rec.status_code, rec.headers, rec.content)::net.http_response
    )::net.http_response_result;
end;
$$;

create or replace function net.http_collect_response(
    request_id bigint,
    async bool default true
)
    returns net.http_response_result
    language plpgsql
as $$
begin
  raise notice 'The net.http_collect_response function is deprecated.';
  return net._http_collect_response(request_id, async);
end;
$$;

grant usage on schema net to PUBLIC;
grant all on all sequences in schema net to PUBLIC;
grant all on all tables in schema net to PUBLIC;
