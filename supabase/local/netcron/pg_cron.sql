-- pg_cron 1.6's SQL interface (citusdata/pg_cron pg_cron.sql and its upgrade scripts): the same
-- cron.job and cron.job_run_details tables, policies and grants, with SQL bodies where pg_cron has
-- C. The stack's scheduler (supabase/local/netcron/cron.ts) stands in for pg_cron's background
-- worker: it runs each job on its schedule as the job's user and records cron.job_run_details.
-- Plus Supabase's grants for postgres (extensions.grant_pg_cron_access, its event trigger).
do $$
begin
   -- pg_cron compares with its cron.database_name setting (default postgres).
   if current_database() <> coalesce(nullif(current_setting('cron.database_name', true), ''), 'postgres') then
      raise exception 'can only create extension in database postgres'
      using detail = 'Jobs must be scheduled from the database configured in cron.database_name, since the pg_cron background worker reads job descriptions from this database.';
   end if;
end;
$$;

create schema cron;
create sequence cron.jobid_seq;

create table cron.job (
	jobid bigint primary key default pg_catalog.nextval('cron.jobid_seq'),
	schedule text not null,
	command text not null,
	nodename text not null default 'localhost',
	nodeport int not null default pg_catalog.inet_server_port(),
	database text not null default pg_catalog.current_database(),
	username text not null default current_user,
	active boolean not null default 'true',
	jobname text
);
grant select on cron.job to public;
alter table cron.job enable row level security;
create policy cron_job_policy on cron.job using (username operator(pg_catalog.=) current_user);
create unique index jobname_username_idx on cron.job (jobname, username);
alter table cron.job add constraint jobname_username_uniq unique using index jobname_username_idx;

create sequence cron.runid_seq;
create table cron.job_run_details (
	jobid bigint,
	runid bigint primary key default pg_catalog.nextval('cron.runid_seq'),
	job_pid integer,
	database text,
	username text,
	command text,
	status text,
	return_message text,
	start_time timestamptz,
	end_time timestamptz
);
grant select on cron.job_run_details to public;
grant delete on cron.job_run_details to public;
alter table cron.job_run_details enable row level security;
create policy cron_job_run_details_policy on cron.job_run_details using (username operator(pg_catalog.=) current_user);

grant select on sequence cron.jobid_seq to public;
grant select on sequence cron.runid_seq to public;

select pg_catalog.pg_extension_config_dump('cron.job', '');
select pg_catalog.pg_extension_config_dump('cron.jobid_seq', '');
select pg_catalog.pg_extension_config_dump('cron.job_run_details', '');
select pg_catalog.pg_extension_config_dump('cron.runid_seq', '');

-- pg_cron's ParseSchedule (vixie cron's entry.c): five fields of numbers, names, ranges, steps and
-- lists within each field's bounds, `$` for the last day of the month, an @-macro, or
-- '[1-59] seconds'. The scheduler parses it again to run it.
create function cron._valid_schedule(schedule text)
    returns boolean
    language plpgsql
    immutable
    set search_path = pg_catalog
as $$
declare
    fields text[] := regexp_split_to_array(lower(trim(schedule)), '\s+');
    lows int[] := array[0, 0, 1, 1, 0];
    highs int[] := array[59, 23, 31, 12, 7];
    names text[] := array[null, null, null,
        'jan,feb,mar,apr,may,jun,jul,aug,sep,oct,nov,dec', 'sun,mon,tue,wed,thu,fri,sat'];
    item text;
    m text[];
    n int;
    v text;
begin
    if schedule ~* '^\s*[0-9]+\s+seconds?\s*$' then
        return substring(schedule from '[0-9]+')::numeric between 1 and 59;
    end if;
    if schedule ~* '^\s*@(yearly|annually|monthly|weekly|daily|midnight|hourly|reboot|restart)\s*$' then
        return true;
    end if;
    if array_length(fields, 1) is distinct from 5 then
        return false;
    end if;
    for i in 1..5 loop
        foreach item in array string_to_array(fields[i], ',') loop
            m := regexp_match(item, '^(\*|\$|[0-9a-z]+)(?:-([0-9a-z]+))?(?:/([0-9]+))?$');
            if m is null or (m[1] = '$' and i <> 3) or (m[1] in ('*', '$') and m[2] is not null) then
                return false;
            end if;
            if m[3] is not null and m[3]::numeric = 0 then
                return false;
            end if;
            foreach v in array array_remove(array[m[1], m[2]], null) loop
                continue when v in ('*', '$');
                if v ~ '^[0-9]+$' then
                    if v::numeric < lows[i] or v::numeric > highs[i] then return false; end if;
                else
                    n := array_position(string_to_array(names[i], ','), v);
                    if n is null then return false; end if;
                end if;
            end loop;
        end loop;
    end loop;
    return true;
end
$$;

-- The caller, who must be a role the session can act as (the C functions use GetUserId()).
create function cron._assert_caller(caller text)
    returns void
    language plpgsql
    stable
    set search_path = pg_catalog
as $$
begin
    if not pg_has_role(session_user, caller, 'MEMBER') then
        raise exception 'permission denied to act as role "%"', caller using errcode = '42501';
    end if;
end
$$;

create function cron._schedule(caller text, job_name text, schedule text, command text, database text, active boolean)
    returns bigint
    language plpgsql
    security definer
    set search_path = pg_catalog
as $$
declare
    job_id bigint;
begin
    perform cron._assert_caller(caller);
    if schedule is null then raise exception 'schedule can not be NULL'; end if;
    if command is null then raise exception 'command can not be NULL'; end if;
    if not cron._valid_schedule(schedule) then
        raise exception using errcode = '22023', message = format('invalid schedule: %s', schedule),
            hint = 'Use cron format (e.g. 5 4 * * *), or interval format ''[1-59] seconds''';
    end if;
    if not has_database_privilege(caller, coalesce(database, current_database()), 'CONNECT') then
        raise exception 'User % does not have CONNECT privilege on %', caller, coalesce(database, current_database());
    end if;
    if job_name is null then
        insert into cron.job (schedule, command, database, username, active)
        values (schedule, command, coalesce(database, current_database()), caller, active)
        returning jobid into job_id;
    else
        insert into cron.job (schedule, command, database, username, active, jobname)
        values (schedule, command, coalesce(database, current_database()), caller, active, job_name)
        on conflict on constraint jobname_username_uniq do update
            set schedule = excluded.schedule, command = excluded.command, database = excluded.database
        returning jobid into job_id;
    end if;
    return job_id;
end
$$;

create function cron.schedule(schedule text, command text)
    returns bigint
    language sql
    strict
as $$ select cron._schedule(current_user::text, null, schedule, command, null, true) $$;
comment on function cron.schedule(text,text) is 'schedule a pg_cron job';

create function cron.schedule(job_name text, schedule text, command text)
    returns bigint
    language plpgsql
as $$
begin
    if job_name is null then raise exception 'job_name can not be NULL'; end if;
    return cron._schedule(current_user::text, job_name, schedule, command, null, true);
end
$$;
comment on function cron.schedule(text,text,text) is 'schedule a pg_cron job';

create function cron.schedule_in_database(job_name text, schedule text, command text, database text,
                                          username text default null, active boolean default 'true')
    returns bigint
    language plpgsql
as $$
begin
    if username is not null and not (select rolsuper from pg_catalog.pg_roles where rolname = current_user) then
        raise exception 'must be superuser to create a job for another role';
    end if;
    return cron._schedule(coalesce(username, current_user::text), job_name, schedule, command, database, active);
end
$$;
comment on function cron.schedule_in_database(text,text,text,text,text,boolean) is 'schedule a pg_cron job';
/* admin should decide whether cron.schedule_in_database is safe by explicitly granting execute */
revoke all on function cron.schedule_in_database(text,text,text,text,text,boolean) from public;

create function cron._unschedule(caller text, job_id bigint, job_name text)
    returns bool
    language plpgsql
    security definer
    set search_path = pg_catalog
as $$
declare
    owner text;
begin
    perform cron._assert_caller(caller);
    if job_name is not null then
        delete from cron.job where jobname = job_name and username = caller;
        if not found then raise exception 'could not find valid entry for job ''%''', job_name; end if;
        return true;
    end if;
    select username into owner from cron.job where jobid = job_id;
    if not found then raise exception 'could not find valid entry for job %', job_id; end if;
    -- pg_cron's EnsureDeletePermission: the owner, or a role with DELETE on cron.job
    if owner <> caller and not has_table_privilege(caller, 'cron.job', 'DELETE') then
        raise exception 'permission denied for table job' using errcode = '42501';
    end if;
    delete from cron.job where jobid = job_id;
    return true;
end
$$;

create function cron.unschedule(job_id bigint)
    returns bool
    language sql
    strict
as $$ select cron._unschedule(current_user::text, job_id, null) $$;
comment on function cron.unschedule(bigint) is 'unschedule a pg_cron job';

create function cron.unschedule(job_name text)
    returns bool
    language sql
    strict
as $$ select cron._unschedule(current_user::text, null, job_name) $$;
comment on function cron.unschedule(text) is 'unschedule a pg_cron job';

create function cron._alter_job(caller text, job_id bigint, schedule text, command text, database text,
                                username text, active boolean)
    returns void
    language plpgsql
    security definer
    set search_path = pg_catalog
as $$
declare
    is_super boolean := (select rolsuper from pg_roles where rolname = caller);
begin
    perform cron._assert_caller(caller);
    if job_id is null then raise exception 'job_id can not be NULL'; end if;
    if username is not null and not is_super then raise exception 'must be superuser to alter username'; end if;
    if schedule is not null and not cron._valid_schedule(schedule) then
        raise exception using errcode = '22023', message = format('invalid schedule: %s', schedule),
            hint = 'Use cron format (e.g. 5 4 * * *), or interval format ''[1-59] seconds''';
    end if;
    if num_nonnulls(schedule, command, database, username, active) = 0 then
        raise exception 'no updates specified'
            using hint = 'You must specify at least one job attribute to change when calling alter_job';
    end if;
    update cron.job j set
        schedule = coalesce(_alter_job.schedule, j.schedule),
        command = coalesce(_alter_job.command, j.command),
        database = coalesce(_alter_job.database, j.database),
        username = coalesce(_alter_job.username, j.username),
        active = coalesce(_alter_job.active, j.active)
    where j.jobid = job_id and (is_super or j.username = caller);
    if not found then raise exception 'Job % does not exist or you don''t own it', job_id; end if;
end
$$;

create function cron.alter_job(job_id bigint, schedule text default null, command text default null,
                               database text default null, username text default null, active boolean default null)
    returns void
    language sql
as $$ select cron._alter_job(current_user::text, job_id, schedule, command, database, username, active) $$;
comment on function cron.alter_job(bigint,text,text,text,text,boolean)
    is 'Alter the job identified by job_id. Any option left as NULL will not be modified.';

-- The scheduler reloads its jobs on this channel (pg_cron invalidates its job cache the same way).
create function cron.job_cache_invalidate()
    returns trigger
    language plpgsql
as $$
begin
    perform pg_notify('pg_cron_jobs', '');
    return null;
end
$$;
comment on function cron.job_cache_invalidate() is 'invalidate job cache';

create trigger cron_job_cache_invalidate
    after insert or update or delete or truncate
    on cron.job
    for statement execute procedure cron.job_cache_invalidate();

-- Supabase: extensions.grant_pg_cron_access (on CREATE EXTENSION pg_cron).
grant usage on schema cron to postgres with grant option;
alter default privileges in schema cron grant all on tables to postgres with grant option;
alter default privileges in schema cron grant all on functions to postgres with grant option;
alter default privileges in schema cron grant all on sequences to postgres with grant option;
grant all privileges on all tables in schema cron to postgres with grant option;
revoke all on table cron.job from postgres;
grant select on table cron.job to postgres with grant option;
grant execute on function cron.alter_job(bigint,text,text,text,text,boolean) to postgres with grant option;
grant execute on function cron.schedule_in_database(text,text,text,text,text,boolean) to postgres with grant option;
