-- Satisfaction ratings (issue 28 item 4; docs/decisions/054-satisfaction-ratings.md): when a ticket is
-- solved the requester is asked the workspace's question (email and portal) with three answers; the
-- email's links carry a signed token for that one survey, which records the rating without signing in,
-- can change it for 7 days, and takes an optional comment. Reports count them per week and per agent.

create type public.csat_rating as enum ('good', 'okay', 'bad');

-- A workspace's survey: on (the default) or off, and the question. Admins write it; members read it.
create table public.csat_settings (
  workspace_id uuid primary key references public.workspaces (id) on delete cascade,
  enabled boolean not null default true,
  question text not null default 'How did we do?'
    check (char_length(question) >= 1 and char_length(question) <= 200 and question !~ '[\x00-\x1f]'),
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz not null default now()
);
create index csat_settings_updated_by_idx on public.csat_settings (updated_by);

-- One survey per solve: the question as it was asked, the agent it rates (the assignee when solved),
-- and the answer. The token in its links is not stored: private.survey_token signs the id.
create table public.csat_surveys (
  id uuid primary key default gen_random_uuid(),
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  requester_id uuid not null references auth.users (id) on delete cascade,
  assignee_id uuid references auth.users (id) on delete set null,
  question text not null,
  created_at timestamptz not null default now(),
  -- The answer can change until then; after, the survey is closed.
  expires_at timestamptz not null default now() + interval '7 days',
  rating public.csat_rating,
  comment text check (char_length(comment) between 1 and 2000),
  rated_at timestamptz,
  check (comment is null or rating is not null),
  -- A solve asks once (one transaction, one solve).
  unique (ticket_id, created_at)
);
create index csat_surveys_workspace_idx on public.csat_surveys (workspace_id, created_at) where rating is not null;
create index csat_surveys_requester_idx on public.csat_surveys (requester_id);
create index csat_surveys_assignee_idx on public.csat_surveys (assignee_id);

-- The key the survey tokens are signed with: made once, in the database, never leaving it.
create table private.signing_keys (
  name text primary key,
  key bytea not null default extensions.gen_random_bytes(32)
);
alter table private.signing_keys enable row level security;
revoke all on private.signing_keys from public, anon, authenticated, service_role;

create function private.signing_key(p_name text) returns bytea
language plpgsql security definer set search_path = '' as $$
declare
  k bytea;
begin
  select key into k from private.signing_keys where name = p_name;
  if k is null then
    insert into private.signing_keys (name) values (p_name) on conflict (name) do nothing;
    select key into k from private.signing_keys where name = p_name;
  end if;
  return k;
end $$;

-- `<survey id, 32 hex>.<HMAC-SHA-256 of it, 32 hex>`: one survey (so one ticket and one solve), unforgeable.
create function private.survey_token(p_survey_id uuid) returns text
language sql security definer set search_path = '' as $$
  select replace(p_survey_id::text, '-', '') || '.'
      || left(encode(extensions.hmac(convert_to('csat:' || p_survey_id::text, 'UTF8'), private.signing_key('csat'), 'sha256'), 'hex'), 32)
$$;

-- The survey a token names, if its MAC is right (null for anything else).
create function private.survey_of_token(p_token text) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  m text[] := regexp_match(coalesce(p_token, ''), '^([0-9a-f]{32})\.([0-9a-f]{32})$');
  id uuid;
begin
  if m is null then
    return null;
  end if;
  id := m[1]::uuid;
  return case when private.survey_token(id) = p_token then id end;
end $$;

-- Whether solving this ticket asks the requester. Not when the workspace turned it off, nor when the
-- requester is on the team (their own ticket), nor for a write by a direct database session (seed,
-- imports: they mail no one), nor for a merged ticket (docs/decisions/053-merge-and-split.md: a duplicate;
-- its requester hears from the ticket it went into). tickets_merged_closed keeps a merged ticket closed, so
-- today none is solved; the check says the rule where it is decided. Spam is not a state yet: its check
-- joins the merged one here when it is.
create function private.survey_wanted(t public.tickets) returns boolean
language sql stable security definer set search_path = '' as $$
  select auth.role() is not null
     and t.merged_into_id is null
     -- Spam and Trash ask nobody anything (54_spam_trash_split.sql).
     and t.spam_at is null and t.trashed_at is null
     and coalesce((select s.enabled from public.csat_settings s where s.workspace_id = t.workspace_id), true)
     and not exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = t.requester_id)
$$;

-- A ticket becomes solved: one survey, emailed by notify after the commit (the portal shows it too).
create function private.ask_satisfaction() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
create trigger tickets_ask_satisfaction after update of status on public.tickets
  for each row when (new.status = 'solved' and old.status is distinct from 'solved')
  execute function private.ask_satisfaction();

-- A ticket merged into another (merge_tickets, 52_triage.sql) asks nothing more: the survey of its last
-- solve closes at once, so its rating link says the survey has closed, the portal no longer shows it and
-- notify sends no survey email still to go (a retry). An answer given before the merge stays counted.
create function private.close_merged_surveys() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.csat_surveys set expires_at = now() where ticket_id = new.id and expires_at > now();
  return null;
end $$;
create trigger tickets_close_merged_surveys after update of merged_into_id on public.tickets
  for each row when (old.merged_into_id is null and new.merged_into_id is not null)
  execute function private.close_merged_surveys();

revoke all on function private.signing_key(text), private.survey_token(uuid), private.survey_of_token(text),
  private.survey_wanted(public.tickets), private.ask_satisfaction(), private.close_merged_surveys() from public;

-- ---------------------------------------------------------------------------------------------
-- A survey's token, for notify (service_role) and for its requester (the portal's buttons); null for
-- anyone else.
create function public.survey_token(p_survey_id uuid) returns text
language sql security definer set search_path = '' as $$
  select private.survey_token(s.id) from public.csat_surveys s
   where s.id = p_survey_id and (private.is_system() or s.requester_id = (select auth.uid()))
$$;
revoke all on function public.survey_token(uuid) from public, anon;
grant execute on function public.survey_token(uuid) to authenticated, service_role;

-- The rating link (no sign-in: anon may call it). The token must name a survey of the ticket the link is
-- about (slug and number), else survey_invalid; past its 7 days, survey_expired. With a rating it records
-- it (the same one again changes nothing: a link clicked twice, or fetched by a mail scanner, is one
-- rating); with a comment, the comment (empty: none; a survey needs a rating first). Answers what the
-- page shows: { workspace, number, subject, question, rating, comment, expires_at }.
create function public.rate_ticket(
  p_slug text, p_number integer, p_token text, p_rating public.csat_rating default null, p_comment text default null
) returns jsonb
language plpgsql security definer set search_path = '' as $$
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
  -- time_zone: the page says until when in the reader's zone, else the workspace's (067-viewer-time-zone.md).
  return jsonb_build_object('workspace', ws.name, 'number', t.number, 'subject', t.subject, 'question', s.question,
                            'rating', s.rating, 'comment', s.comment, 'expires_at', s.expires_at,
                            'time_zone', ws.time_zone);
end $$;
revoke all on function public.rate_ticket(text, integer, text, public.csat_rating, text) from public;
grant execute on function public.rate_ticket(text, integer, text, public.csat_rating, text) to anon, authenticated, service_role;

-- A report's workspace and range as workspace_report reads them (60_reports.sql): the caller's workspace by
-- its address (not_found otherwise), admins only (forbidden), the last p_days days up to today or the days
-- p_from to p_to (at most 366; bad_request otherwise), as moments in the workspace's time zone.
create function private.admin_report_range(p_slug text, p_from date, p_to date, p_days integer,
  out ws uuid, out tz text, out lo timestamptz, out hi timestamptz)
language plpgsql stable security invoker set search_path = '' as $$
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
end $$;
revoke all on function private.admin_report_range(text, date, date, integer) from public;
grant execute on function private.admin_report_range(text, date, date, integer) to authenticated, service_role;

-- The reports' satisfaction section (admins; the range as workspace_report takes it): the surveys asked
-- in the range (the solve's day, in the workspace's time zone) and answered, per week (Monday first) and
-- per agent (the assignee when solved), and the newest 100 comments.
create function public.csat_report(p_slug text, p_from date default null, p_to date default null, p_days integer default null)
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
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
end $$;
revoke all on function public.csat_report(text, date, date, integer) from public, anon;
grant execute on function public.csat_report(text, date, date, integer) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Members read their workspace's surveys and settings; a requester reads their own surveys (never
-- another's). Nobody writes a survey through the API: the trigger asks, rate_ticket answers. Admins
-- turn the survey on or off and word the question through save_csat_settings.
alter table public.csat_settings enable row level security;
alter table public.csat_surveys enable row level security;
revoke all on public.csat_settings, public.csat_surveys from anon;
revoke insert, update, delete on public.csat_surveys, public.csat_settings from authenticated;
-- One policy per role and command (db-checks): members read their workspace's surveys, requesters their own.
create policy "members and requesters read surveys" on public.csat_surveys for select to authenticated
  using (workspace_id in (select private.member_workspaces()) or requester_id = (select auth.uid()));
create policy "members read the survey settings" on public.csat_settings for select to authenticated
  using (workspace_id in (select private.member_workspaces()));

-- The survey's settings (admins): on or off, and the question (question_invalid unless 1–200 characters
-- on one line). Who and when are the database's to say.
create function public.save_csat_settings(p_workspace_id uuid, p_enabled boolean, p_question text) returns void
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke all on function public.save_csat_settings(uuid, boolean, text) from public, anon;
grant execute on function public.save_csat_settings(uuid, boolean, text) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- The reports per agent (issue 28 item 6; admins; the range as workspace_report takes it): for each member
-- of the workspace, the public replies they wrote in the range, the tickets solved in it while assigned to
-- them, the median first response and resolution of those tickets (first answered, solved in the range),
-- the SLA targets decided in it while theirs (sla_report's outcomes) and the survey answers about them
-- (csat_report's). Per tag: tag_report, below.
create function public.agent_report(p_slug text, p_from date default null, p_to date default null, p_days integer default null)
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
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
end $$;
revoke all on function public.agent_report(text, date, date, integer) from public, anon;
grant execute on function public.agent_report(text, date, date, integer) to authenticated, service_role;

-- The reports per tag (issue 28 item 6; admins; the range as workspace_report takes it): for each tag of
-- the workspace, the SLA targets decided in the range on the tickets carrying it now (sla_report's
-- outcomes) and the survey answers about those tickets (csat_report's), as workspace_report's by_tag
-- counts tickets by their tags now. Tags with neither are left out. Read from the tags' tickets
-- (ticket_tags_tag_idx, then each ticket's outcomes and surveys by their ticket_id keys).
create function public.tag_report(p_slug text, p_from date default null, p_to date default null, p_days integer default null)
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
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
end $$;
revoke all on function public.tag_report(text, date, date, integer) from public, anon;
grant execute on function public.tag_report(text, date, date, integer) to authenticated, service_role;
