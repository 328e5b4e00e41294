create type "public"."csat_rating" as enum ('good', 'okay', 'bad');


  create table "private"."signing_keys" (
    "name" text not null,
    "key" bytea not null default extensions.gen_random_bytes(32)
      );


alter table "private"."signing_keys" enable row level security;


  create table "public"."after_hours_replies" (
    "workspace_id" uuid not null,
    "canned_reply_id" uuid not null,
    "updated_by" uuid,
    "updated_at" timestamp with time zone not null default now()
      );


alter table "public"."after_hours_replies" enable row level security;


  create table "public"."csat_settings" (
    "workspace_id" uuid not null,
    "enabled" boolean not null default true,
    "question" text not null default 'How did we do?'::text,
    "updated_by" uuid,
    "updated_at" timestamp with time zone not null default now()
      );


alter table "public"."csat_settings" enable row level security;


  create table "public"."csat_surveys" (
    "id" uuid not null default gen_random_uuid(),
    "ticket_id" uuid not null,
    "workspace_id" uuid not null,
    "requester_id" uuid not null,
    "assignee_id" uuid,
    "question" text not null,
    "created_at" timestamp with time zone not null default now(),
    "expires_at" timestamp with time zone not null default (now() + '7 days'::interval),
    "rating" csat_rating,
    "comment" text,
    "rated_at" timestamp with time zone
      );


alter table "public"."csat_surveys" enable row level security;

CREATE UNIQUE INDEX signing_keys_pkey ON private.signing_keys USING btree (name);

CREATE INDEX after_hours_replies_canned_reply_idx ON public.after_hours_replies USING btree (canned_reply_id);

CREATE UNIQUE INDEX after_hours_replies_pkey ON public.after_hours_replies USING btree (workspace_id);

CREATE INDEX after_hours_replies_updated_by_idx ON public.after_hours_replies USING btree (updated_by);

CREATE UNIQUE INDEX csat_settings_pkey ON public.csat_settings USING btree (workspace_id);

CREATE INDEX csat_settings_updated_by_idx ON public.csat_settings USING btree (updated_by);

CREATE INDEX csat_surveys_assignee_idx ON public.csat_surveys USING btree (assignee_id);

CREATE UNIQUE INDEX csat_surveys_pkey ON public.csat_surveys USING btree (id);

CREATE INDEX csat_surveys_requester_idx ON public.csat_surveys USING btree (requester_id);

CREATE UNIQUE INDEX csat_surveys_ticket_id_created_at_key ON public.csat_surveys USING btree (ticket_id, created_at);

CREATE INDEX csat_surveys_workspace_idx ON public.csat_surveys USING btree (workspace_id, created_at) WHERE (rating IS NOT NULL);

alter table "private"."signing_keys" add constraint "signing_keys_pkey" PRIMARY KEY using index "signing_keys_pkey";

alter table "public"."after_hours_replies" add constraint "after_hours_replies_pkey" PRIMARY KEY using index "after_hours_replies_pkey";

alter table "public"."csat_settings" add constraint "csat_settings_pkey" PRIMARY KEY using index "csat_settings_pkey";

alter table "public"."csat_surveys" add constraint "csat_surveys_pkey" PRIMARY KEY using index "csat_surveys_pkey";

alter table "public"."after_hours_replies" add constraint "after_hours_replies_canned_reply_id_fkey" FOREIGN KEY (canned_reply_id) REFERENCES canned_replies(id) ON DELETE CASCADE not valid;

alter table "public"."after_hours_replies" validate constraint "after_hours_replies_canned_reply_id_fkey";

alter table "public"."after_hours_replies" add constraint "after_hours_replies_updated_by_fkey" FOREIGN KEY (updated_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."after_hours_replies" validate constraint "after_hours_replies_updated_by_fkey";

alter table "public"."after_hours_replies" add constraint "after_hours_replies_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."after_hours_replies" validate constraint "after_hours_replies_workspace_id_fkey";

alter table "public"."csat_settings" add constraint "csat_settings_question_check" CHECK (((char_length(question) >= 1) AND (char_length(question) <= 200) AND (question !~ '[\x00-\x1f]'::text))) not valid;

alter table "public"."csat_settings" validate constraint "csat_settings_question_check";

alter table "public"."csat_settings" add constraint "csat_settings_updated_by_fkey" FOREIGN KEY (updated_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."csat_settings" validate constraint "csat_settings_updated_by_fkey";

alter table "public"."csat_settings" add constraint "csat_settings_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."csat_settings" validate constraint "csat_settings_workspace_id_fkey";

alter table "public"."csat_surveys" add constraint "csat_surveys_assignee_id_fkey" FOREIGN KEY (assignee_id) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."csat_surveys" validate constraint "csat_surveys_assignee_id_fkey";

alter table "public"."csat_surveys" add constraint "csat_surveys_check" CHECK (((comment IS NULL) OR (rating IS NOT NULL))) not valid;

alter table "public"."csat_surveys" validate constraint "csat_surveys_check";

alter table "public"."csat_surveys" add constraint "csat_surveys_comment_check" CHECK (((char_length(comment) >= 1) AND (char_length(comment) <= 2000))) not valid;

alter table "public"."csat_surveys" validate constraint "csat_surveys_comment_check";

alter table "public"."csat_surveys" add constraint "csat_surveys_requester_id_fkey" FOREIGN KEY (requester_id) REFERENCES auth.users(id) ON DELETE CASCADE not valid;

alter table "public"."csat_surveys" validate constraint "csat_surveys_requester_id_fkey";

alter table "public"."csat_surveys" add constraint "csat_surveys_ticket_id_created_at_key" UNIQUE using index "csat_surveys_ticket_id_created_at_key";

alter table "public"."csat_surveys" add constraint "csat_surveys_ticket_id_fkey" FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE not valid;

alter table "public"."csat_surveys" validate constraint "csat_surveys_ticket_id_fkey";

alter table "public"."csat_surveys" add constraint "csat_surveys_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."csat_surveys" validate constraint "csat_surveys_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.acknowledge_after_hours()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if auth.role() is null
     or not exists (select 1 from public.after_hours_replies where workspace_id = new.workspace_id)
     or exists (select 1 from public.memberships where workspace_id = new.workspace_id
                                                  and user_id in (new.requester_id, auth.uid()))
     or private.next_opening(new.workspace_id, new.created_at) <= new.created_at then
    return null;
  end if;
  perform private.call_function('notify', jsonb_build_object('type', 'acknowledgement', 'ticket_id', new.id));
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.admin_report_range(p_slug text, p_from date, p_to date, p_days integer, OUT ws uuid, OUT tz text, OUT lo timestamp with time zone, OUT hi timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  my_role public.member_role;
begin
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
  lo := p_from::timestamp at time zone tz;
  hi := (p_to + 1)::timestamp at time zone tz;
end $function$
;

CREATE OR REPLACE FUNCTION private.ask_satisfaction()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  made uuid;
begin
  if not private.survey_wanted(new) then
    return null;
  end if;
  insert into public.csat_surveys (ticket_id, workspace_id, requester_id, assignee_id, question)
  values (new.id, new.workspace_id, new.requester_id, new.assignee_id,
          coalesce((select s.question from public.csat_settings s where s.workspace_id = new.workspace_id), 'How did we do?'))
  on conflict (ticket_id, created_at) do nothing
  returning id into made;
  if made is not null then
    perform private.call_function('notify', jsonb_build_object('type', 'survey', 'survey_id', made));
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.close_merged_surveys()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.csat_surveys set expires_at = now() where ticket_id = new.id and expires_at > now();
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.next_opening(p_workspace_id uuid, p_at timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return private.business_minutes_add(p_workspace_id, p_at, 1 / 60.0) - interval '1 second';
end $function$
;

CREATE OR REPLACE FUNCTION private.signing_key(p_name text)
 RETURNS bytea
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  k bytea;
begin
  select key into k from private.signing_keys where name = p_name;
  if k is null then
    insert into private.signing_keys (name) values (p_name) on conflict (name) do nothing;
    select key into k from private.signing_keys where name = p_name;
  end if;
  return k;
end $function$
;

CREATE OR REPLACE FUNCTION private.survey_of_token(p_token text)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  m text[] := regexp_match(coalesce(p_token, ''), '^([0-9a-f]{32})\.([0-9a-f]{32})$');
  id uuid;
begin
  if m is null then
    return null;
  end if;
  id := m[1]::uuid;
  return case when private.survey_token(id) = p_token then id end;
end $function$
;

CREATE OR REPLACE FUNCTION private.survey_token(p_survey_id uuid)
 RETURNS text
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select replace(p_survey_id::text, '-', '') || '.'
      || left(encode(extensions.hmac(convert_to('csat:' || p_survey_id::text, 'UTF8'), private.signing_key('csat'), 'sha256'), 'hex'), 32)
$function$
;

CREATE OR REPLACE FUNCTION private.survey_wanted(t tickets)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select auth.role() is not null
     and t.merged_into_id is null
     and coalesce((select s.enabled from public.csat_settings s where s.workspace_id = t.workspace_id), true)
     and not exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = t.requester_id)
$function$
;

CREATE OR REPLACE FUNCTION public.agent_report(p_slug text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date, p_days integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  tz text;
  lo timestamptz;
  hi timestamptz;
begin
  select r.ws, r.tz, r.lo, r.hi into ws, tz, lo, hi from private.admin_report_range(p_slug, p_from, p_to, p_days) r;
  return (
    select coalesce(jsonb_agg(jsonb_build_object(
             'user_id', m.user_id, 'name', p.display_name,
             'replies', r.replies, 'solved', s.solved,
             'first_response_median_seconds', f.median, 'resolution_median_seconds', s.median,
             'sla_met', o.met, 'sla_total', o.total, 'good', c.good, 'okay', c.okay, 'bad', c.bad)
           order by p.display_name, m.user_id), '[]')
      from public.memberships m
      left join public.profiles p on p.user_id = m.user_id
     cross join lateral (
       select count(*) as replies from public.messages x
        where x.workspace_id = ws and x.author_id = m.user_id and x.kind = 'reply' and x.created_at >= lo and x.created_at < hi) r
     cross join lateral (
       select count(*) as solved, round(percentile_cont(0.5) within group (order by extract(epoch from t.solved_at - t.created_at)))::bigint as median
         from public.tickets t
        where t.workspace_id = ws and t.assignee_id = m.user_id and t.solved_at >= lo and t.solved_at < hi) s
     cross join lateral (
       select round(percentile_cont(0.5) within group (order by extract(epoch from t.first_response_at - t.created_at)))::bigint as median
         from public.tickets t
        where t.workspace_id = ws and t.assignee_id = m.user_id and t.first_response_at >= lo and t.first_response_at < hi) f
     cross join lateral (
       select count(*) filter (where x.met) as met, count(*) as total from public.sla_outcomes x
        where x.workspace_id = ws and x.assignee_id = m.user_id and x.decided_at >= lo and x.decided_at < hi) o
     cross join lateral (
       select count(*) filter (where x.rating = 'good') as good, count(*) filter (where x.rating = 'okay') as okay,
              count(*) filter (where x.rating = 'bad') as bad from public.csat_surveys x
        where x.workspace_id = ws and x.assignee_id = m.user_id and x.rating is not null and x.created_at >= lo and x.created_at < hi) c
     where m.workspace_id = ws
  );
end $function$
;

CREATE OR REPLACE FUNCTION public.csat_report(p_slug text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date, p_days integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  tz text;
  lo timestamptz;
  hi timestamptz;
begin
  select r.ws, r.tz, r.lo, r.hi into ws, tz, lo, hi from private.admin_report_range(p_slug, p_from, p_to, p_days) r;
  return (
    with r as (
      select x.*, (x.created_at at time zone tz)::date as day from public.csat_surveys x
       where x.workspace_id = ws and x.rating is not null and x.created_at >= lo and x.created_at < hi
    )
    select jsonb_build_object(
      'weeks', (select coalesce(jsonb_agg(jsonb_build_object('week', w.week, 'good', w.good, 'okay', w.okay, 'bad', w.bad) order by w.week), '[]')
                  from (select r.day - (extract(isodow from r.day)::int - 1) as week, count(*) filter (where r.rating = 'good') as good,
                               count(*) filter (where r.rating = 'okay') as okay, count(*) filter (where r.rating = 'bad') as bad
                          from r group by 1) w),
      'agents', (select coalesce(jsonb_agg(jsonb_build_object('assignee_id', a.assignee_id, 'name', p.display_name,
                                                              'good', a.good, 'okay', a.okay, 'bad', a.bad)
                                           order by p.display_name nulls first, a.assignee_id), '[]')
                   from (select r.assignee_id, count(*) filter (where r.rating = 'good') as good,
                                count(*) filter (where r.rating = 'okay') as okay, count(*) filter (where r.rating = 'bad') as bad
                           from r group by 1) a
                   left join public.profiles p on p.user_id = a.assignee_id),
      'comments', (select coalesce(jsonb_agg(jsonb_build_object('number', c.number, 'subject', c.subject, 'rating', c.rating,
                                                                'comment', c.comment, 'rated_at', c.rated_at, 'agent', c.agent)
                                             order by c.rated_at desc), '[]')
                     from (select t.number, t.subject, r.rating, r.comment, r.rated_at, p.display_name as agent
                             from r join public.tickets t on t.id = r.ticket_id
                             left join public.profiles p on p.user_id = r.assignee_id
                            where r.comment is not null order by r.rated_at desc limit 100) c)
    )
  );
end $function$
;

CREATE OR REPLACE FUNCTION public.rate_ticket(p_slug text, p_number integer, p_token text, p_rating csat_rating DEFAULT NULL::csat_rating, p_comment text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  survey uuid := private.survey_of_token(p_token);
  s public.csat_surveys;
  t public.tickets;
  ws public.workspaces;
begin
  select * into s from public.csat_surveys where id = survey for update;
  select * into t from public.tickets where id = s.ticket_id;
  select * into ws from public.workspaces where id = t.workspace_id;
  if s.id is null or ws.slug is distinct from p_slug or t.number is distinct from p_number then
    raise exception using errcode = 'P0001', message = 'survey_invalid';
  end if;
  if s.expires_at <= now() then
    raise exception using errcode = 'P0001', message = 'survey_expired', detail = s.expires_at::text;
  end if;
  if p_comment is not null and coalesce(p_rating, s.rating) is null then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'a comment needs a rating';
  end if;
  if p_rating is not null and p_rating is distinct from s.rating then
    update public.csat_surveys set rating = p_rating, rated_at = now() where id = s.id returning * into s;
  end if;
  if p_comment is not null then
    update public.csat_surveys set comment = nullif(btrim(p_comment), '') where id = s.id returning * into s;
  end if;
  return jsonb_build_object('workspace', ws.name, 'number', t.number, 'subject', t.subject, 'question', s.question,
                            'rating', s.rating, 'comment', s.comment, 'expires_at', s.expires_at);
end $function$
;

CREATE OR REPLACE FUNCTION public.save_after_hours_reply(p_workspace_id uuid, p_canned_reply_id uuid DEFAULT NULL::uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if p_canned_reply_id is null then
    delete from public.after_hours_replies where workspace_id = p_workspace_id;
    return;
  end if;
  if not exists (select 1 from public.canned_replies where id = p_canned_reply_id and workspace_id = p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'canned reply';
  end if;
  insert into public.after_hours_replies (workspace_id, canned_reply_id, updated_by) values (p_workspace_id, p_canned_reply_id, auth.uid())
  on conflict (workspace_id) do update set canned_reply_id = excluded.canned_reply_id, updated_by = excluded.updated_by, updated_at = now();
end $function$
;

CREATE OR REPLACE FUNCTION public.save_csat_settings(p_workspace_id uuid, p_enabled boolean, p_question text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  begin
    insert into public.csat_settings (workspace_id, enabled, question, updated_by)
    values (p_workspace_id, coalesce(p_enabled, true), btrim(p_question), auth.uid())
    on conflict (workspace_id) do update
      set enabled = excluded.enabled, question = excluded.question, updated_by = excluded.updated_by, updated_at = now();
  exception when check_violation or not_null_violation then
    raise exception using errcode = 'P0001', message = 'question_invalid', detail = sqlerrm;
  end;
end $function$
;

CREATE OR REPLACE FUNCTION public.survey_token(p_survey_id uuid)
 RETURNS text
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select private.survey_token(s.id) from public.csat_surveys s
   where s.id = p_survey_id and (private.is_system() or s.requester_id = (select auth.uid()))
$function$
;

CREATE OR REPLACE FUNCTION public.tag_report(p_slug text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date, p_days integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  lo timestamptz;
  hi timestamptz;
begin
  select r.ws, r.lo, r.hi into ws, lo, hi from private.admin_report_range(p_slug, p_from, p_to, p_days) r;
  return (
    select coalesce(jsonb_agg(jsonb_build_object('name', g.name, 'colour', g.colour, 'sla_met', o.met, 'sla_total', o.total,
                                                 'good', c.good, 'okay', c.okay, 'bad', c.bad)
                              order by g.name), '[]')
      from public.tags g
     cross join lateral (
       select count(*) filter (where x.met) as met, count(*) as total
         from public.ticket_tags tt join public.sla_outcomes x on x.ticket_id = tt.ticket_id
        where tt.tag_id = g.id and x.decided_at >= lo and x.decided_at < hi) o
     cross join lateral (
       select count(*) filter (where x.rating = 'good') as good, count(*) filter (where x.rating = 'okay') as okay,
              count(*) filter (where x.rating = 'bad') as bad
         from public.ticket_tags tt join public.csat_surveys x on x.ticket_id = tt.ticket_id
        where tt.tag_id = g.id and x.rating is not null and x.created_at >= lo and x.created_at < hi) c
     where g.workspace_id = ws and (o.total > 0 or c.good + c.okay + c.bad > 0)
  );
end $function$
;

CREATE OR REPLACE FUNCTION private.retry_failed_emails()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  id text;
  n integer := 0;
  uuid_re constant text := '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';
  parts text[];
begin
  for id in
    select distinct d.message_id
      from public.email_deliveries d
     where d.attempts < 5 and d.created_at > now() - interval '1 day'
       and (d.status = 'failed' or (d.status = 'sending' and d.claimed_at < now() - interval '2 minutes'))
  loop
    parts := regexp_match(id, '^<([mndsa])\.' || uuid_re || '(?:\.' || uuid_re || ')?[.@]');
    continue when parts is null;
    perform private.call_function('notify', case parts[1]
      when 'm' then jsonb_build_object('type', 'message', 'message_id', parts[2])
      when 'n' then jsonb_build_object('type', 'notification', 'notification_id', parts[2])
      when 's' then jsonb_build_object('type', 'survey', 'survey_id', parts[2])
      when 'a' then jsonb_build_object('type', 'acknowledgement', 'ticket_id', parts[2])
      else jsonb_build_object('type', 'digest', 'workspace_id', parts[2], 'recipient_id', parts[3]) end);
    n := n + 1;
  end loop;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION public.next_opening(p_workspace_id uuid, p_at timestamp with time zone DEFAULT now())
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select case when private.is_member(p_workspace_id) or private.is_system() then private.next_opening(p_workspace_id, p_at) end
$function$
;

CREATE OR REPLACE FUNCTION public.record_sla_breaches()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  breached uuid[];
  r record;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  with due as (
    select s.ticket_id from public.ticket_sla s
     where s.due_at is not null and s.breached_at is null and s.due_at <= now()
     order by s.due_at
     limit 5000
     for no key update skip locked
  ), seen as (
    update public.ticket_sla s set breached_at = now() from due where s.ticket_id = due.ticket_id
    returning s.*
  ), missed as (
    insert into public.sla_outcomes (ticket_id, workspace_id, target, started_at, due_at, decided_at, met, priority, assignee_id)
    select seen.ticket_id, seen.workspace_id, seen.target, seen.started_at, seen.due_at, now(), false, t.priority, t.assignee_id
      from seen join public.tickets t on t.id = seen.ticket_id
    on conflict (ticket_id, target, started_at) do nothing
  ), logged as (
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
    select seen.ticket_id, seen.workspace_id, null, 'sla_breach', seen.due_at::text, seen.target::text from seen
    returning ticket_id
  )
  select array_agg(logged.ticket_id) into breached from logged;
  for r in select t.id, t.workspace_id, t.assignee_id from public.tickets t
            where t.id = any(breached) and t.assignee_id is not null loop
    perform private.notify_member(r.workspace_id, r.assignee_id, 'sla_warning', r.id, null, null);
  end loop;
  return coalesce(cardinality(breached), 0);
end $function$
;


  create policy "members read the after-hours reply"
  on "public"."after_hours_replies"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read the survey settings"
  on "public"."csat_settings"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read their workspace's surveys"
  on "public"."csat_surveys"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "requesters read their own surveys"
  on "public"."csat_surveys"
  as permissive
  for select
  to authenticated
using ((requester_id = ( SELECT auth.uid() AS uid)));


CREATE TRIGGER tickets_acknowledge_after_hours AFTER INSERT ON public.tickets FOR EACH ROW EXECUTE FUNCTION private.acknowledge_after_hours();

CREATE TRIGGER tickets_ask_satisfaction AFTER UPDATE OF status ON public.tickets FOR EACH ROW WHEN (((new.status = 'solved'::ticket_status) AND (old.status IS DISTINCT FROM 'solved'::ticket_status))) EXECUTE FUNCTION private.ask_satisfaction();

CREATE TRIGGER tickets_close_merged_surveys AFTER UPDATE OF merged_into_id ON public.tickets FOR EACH ROW WHEN (((old.merged_into_id IS NULL) AND (new.merged_into_id IS NOT NULL))) EXECUTE FUNCTION private.close_merged_surveys();

grant execute on function private.admin_report_range(p_slug text, p_from date, p_to date, p_days integer, OUT ws uuid, OUT tz text, OUT lo timestamp with time zone, OUT hi timestamp with time zone) to authenticated;
grant execute on function private.admin_report_range(p_slug text, p_from date, p_to date, p_days integer, OUT ws uuid, OUT tz text, OUT lo timestamp with time zone, OUT hi timestamp with time zone) to service_role;
revoke delete on table public.after_hours_replies from anon;
revoke delete on table public.after_hours_replies from authenticated;
revoke delete on table public.csat_settings from anon;
revoke delete on table public.csat_settings from authenticated;
revoke delete on table public.csat_surveys from anon;
revoke delete on table public.csat_surveys from authenticated;
revoke execute on function private.acknowledge_after_hours() from public;
revoke execute on function private.admin_report_range(p_slug text, p_from date, p_to date, p_days integer, OUT ws uuid, OUT tz text, OUT lo timestamp with time zone, OUT hi timestamp with time zone) from public;
revoke execute on function private.ask_satisfaction() from public;
revoke execute on function private.close_merged_surveys() from public;
revoke execute on function private.next_opening(p_workspace_id uuid, p_at timestamp with time zone) from public;
revoke execute on function private.signing_key(p_name text) from public;
revoke execute on function private.survey_of_token(p_token text) from public;
revoke execute on function private.survey_token(p_survey_id uuid) from public;
revoke execute on function private.survey_wanted(t tickets) from public;
revoke execute on function public.agent_report(p_slug text, p_from date, p_to date, p_days integer) from anon;
revoke execute on function public.agent_report(p_slug text, p_from date, p_to date, p_days integer) from public;
revoke execute on function public.csat_report(p_slug text, p_from date, p_to date, p_days integer) from anon;
revoke execute on function public.csat_report(p_slug text, p_from date, p_to date, p_days integer) from public;
revoke execute on function public.rate_ticket(p_slug text, p_number integer, p_token text, p_rating csat_rating, p_comment text) from public;
revoke execute on function public.save_after_hours_reply(p_workspace_id uuid, p_canned_reply_id uuid) from anon;
revoke execute on function public.save_after_hours_reply(p_workspace_id uuid, p_canned_reply_id uuid) from public;
revoke execute on function public.save_csat_settings(p_workspace_id uuid, p_enabled boolean, p_question text) from anon;
revoke execute on function public.save_csat_settings(p_workspace_id uuid, p_enabled boolean, p_question text) from public;
revoke execute on function public.survey_token(p_survey_id uuid) from anon;
revoke execute on function public.survey_token(p_survey_id uuid) from public;
revoke execute on function public.tag_report(p_slug text, p_from date, p_to date, p_days integer) from anon;
revoke execute on function public.tag_report(p_slug text, p_from date, p_to date, p_days integer) from public;
revoke insert on table public.after_hours_replies from anon;
revoke insert on table public.after_hours_replies from authenticated;
revoke insert on table public.csat_settings from anon;
revoke insert on table public.csat_settings from authenticated;
revoke insert on table public.csat_surveys from anon;
revoke insert on table public.csat_surveys from authenticated;
revoke maintain on table public.after_hours_replies from anon;
revoke maintain on table public.csat_settings from anon;
revoke maintain on table public.csat_surveys from anon;
revoke references on table public.after_hours_replies from anon;
revoke references on table public.csat_settings from anon;
revoke references on table public.csat_surveys from anon;
revoke select on table public.after_hours_replies from anon;
revoke select on table public.csat_settings from anon;
revoke select on table public.csat_surveys from anon;
revoke trigger on table public.after_hours_replies from anon;
revoke trigger on table public.csat_settings from anon;
revoke trigger on table public.csat_surveys from anon;
revoke truncate on table public.after_hours_replies from anon;
revoke truncate on table public.csat_settings from anon;
revoke truncate on table public.csat_surveys from anon;
revoke update on table public.after_hours_replies from anon;
revoke update on table public.after_hours_replies from authenticated;
revoke update on table public.csat_settings from anon;
revoke update on table public.csat_settings from authenticated;
revoke update on table public.csat_surveys from anon;
revoke update on table public.csat_surveys from authenticated;
