drop trigger if exists "tickets_sla" on "public"."tickets";

drop policy "requesters and members read tickets" on "public"."tickets";

alter table "public"."ticket_events" drop constraint "ticket_events_type_check";


  create table "public"."spam_senders" (
    "workspace_id" uuid not null,
    "user_id" uuid not null,
    "created_by" uuid default auth.uid(),
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."spam_senders" enable row level security;

alter table "public"."ticket_events" add column "field" text;

alter table "public"."tickets" add column "spam_at" timestamp with time zone;

alter table "public"."tickets" add column "trashed_at" timestamp with time zone;

CREATE UNIQUE INDEX spam_senders_pkey ON public.spam_senders USING btree (workspace_id, user_id);

CREATE INDEX spam_senders_user_idx ON public.spam_senders USING btree (user_id);

CREATE INDEX tickets_spam_idx ON public.tickets USING btree (workspace_id, last_message_at DESC, id DESC) WHERE ((spam_at IS NOT NULL) AND (trashed_at IS NULL));

CREATE INDEX tickets_trash_idx ON public.tickets USING btree (workspace_id, last_message_at DESC, id DESC) WHERE (trashed_at IS NOT NULL);

CREATE INDEX tickets_trashed_due_idx ON public.tickets USING btree (trashed_at) WHERE (trashed_at IS NOT NULL);

alter table "public"."spam_senders" add constraint "spam_senders_pkey" PRIMARY KEY using index "spam_senders_pkey";

alter table "public"."spam_senders" add constraint "spam_senders_created_by_fkey" FOREIGN KEY (created_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."spam_senders" validate constraint "spam_senders_created_by_fkey";

alter table "public"."spam_senders" add constraint "spam_senders_user_id_fkey" FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE not valid;

alter table "public"."spam_senders" validate constraint "spam_senders_user_id_fkey";

alter table "public"."spam_senders" add constraint "spam_senders_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."spam_senders" validate constraint "spam_senders_workspace_id_fkey";

alter table "public"."ticket_events" add constraint "ticket_events_type_check" CHECK ((type = ANY (ARRAY['created'::text, 'status'::text, 'assignee'::text, 'priority'::text, 'tag_added'::text, 'tag_removed'::text, 'snoozed'::text, 'unsnoozed'::text, 'sla_breach'::text, 'merged_into'::text, 'merged_from'::text, 'spam'::text, 'not_spam'::text, 'trashed'::text, 'restored'::text, 'split_to'::text, 'split_from'::text, 'field'::text]))) not valid;

alter table "public"."ticket_events" validate constraint "ticket_events_type_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.delete_tickets(p_ids uuid[])
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  n integer;
  files boolean := exists (select 1 from public.attachments a where a.ticket_id = any (p_ids));
begin
  delete from public.tickets where merged_into_id = any (p_ids);
  delete from public.tickets where id = any (p_ids);
  get diagnostics n = row_count;
  if files then
    perform private.call_function('sweep-attachments', '{}');
  end if;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION private.message_set_aside()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = new.ticket_id;
  if auth.role() is null or t.id is null then
    return new;
  end if;
  if new.author_id <> t.requester_id and (t.spam_at is not null or t.trashed_at is not null)
     and exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = new.author_id) then
    if t.trashed_at is not null then
      raise exception using errcode = 'P0001', message = 'ticket_in_trash';
    end if;
    raise exception using errcode = 'P0001', message = 'ticket_in_spam';
  end if;
  if new.author_id = t.requester_id and t.spam_at is null
     and exists (select 1 from public.spam_senders s where s.workspace_id = t.workspace_id and s.user_id = new.author_id) then
    update public.tickets set spam_at = now() where id = t.id;
  end if;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION private.purge_trash()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return private.delete_tickets(array(
    select t.id from public.tickets t
     where t.trashed_at < now() - make_interval(days => private.trash_days())
     order by t.trashed_at limit 1000
     for update skip locked));
end $function$
;

CREATE OR REPLACE FUNCTION private.spam_sender_request()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if new.requester_id = auth.uid()
     and exists (select 1 from public.spam_senders s where s.workspace_id = new.workspace_id and s.user_id = new.requester_id) then
    new.spam_at := now();
  end if;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_field_history()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  r public.ticket_field_values := case when tg_op = 'DELETE' then old else new end;
  f public.ticket_fields;
  shown_old text;
  shown_new text;
begin
  if tg_op = 'UPDATE' and new.value is not distinct from old.value then
    return null;
  end if;
  select * into f from public.ticket_fields where id = r.field_id;
  if f.id is null or not exists (select 1 from public.tickets t where t.id = r.ticket_id) then
    return null;
  end if;
  if tg_op <> 'INSERT' then
    shown_old := case when f.kind = 'checkbox' then 'yes' else old.value end;
  end if;
  if tg_op <> 'DELETE' then
    shown_new := case when f.kind = 'checkbox' then 'yes' else new.value end;
  end if;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, field, "from", "to")
  values (r.ticket_id, f.workspace_id, auth.uid(), 'field', f.label, shown_old, shown_new);
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.trash_days()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 30 $function$
;

CREATE OR REPLACE FUNCTION public.empty_trash(p_workspace_id uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  return private.delete_tickets(array(
    select t.id from public.tickets t where t.workspace_id = p_workspace_id and t.trashed_at is not null for update));
end $function$
;

CREATE OR REPLACE FUNCTION public.move_tickets(p_ticket_ids uuid[], p_action text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ids uuid[] := array(select distinct x from unnest(p_ticket_ids) x where x is not null);
  ws uuid;
  mine uuid[];
  merged integer;
  n integer;
  skipped jsonb := '{}';
begin
  if cardinality(ids) not between 1 and 1000 or p_action is null or p_action not in ('spam', 'not_spam', 'trash', 'restore') then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = '1 to 1000 tickets, and an action';
  end if;
  -- The workspace: the first of the caller's; the others' tickets are not_found.
  select t.workspace_id into ws from public.tickets t where t.id = any (ids) and private.is_member(t.workspace_id)
   order by t.id limit 1;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'tickets';
  end if;
  mine := array(select t.id from public.tickets t where t.id = any (ids) and t.workspace_id = ws order by t.id for no key update);
  merged := (select count(*) from public.tickets t where t.id = any (mine) and t.merged_into_id is not null);

  if p_action = 'spam' then
    update public.tickets t set spam_at = now() where t.id = any (mine) and t.spam_at is null and t.merged_into_id is null;
    get diagnostics n = row_count;
    insert into public.spam_senders (workspace_id, user_id)
    select distinct ws, t.requester_id from public.tickets t
     where t.id = any (mine) and t.merged_into_id is null
       and not exists (select 1 from public.memberships m where m.workspace_id = ws and m.user_id = t.requester_id)
    order by 2
    on conflict do nothing;
  elsif p_action = 'not_spam' then
    update public.tickets t set spam_at = null where t.id = any (mine) and t.spam_at is not null;
    get diagnostics n = row_count;
    delete from public.spam_senders s using public.tickets t
     where t.id = any (mine) and s.workspace_id = ws and s.user_id = t.requester_id;
  elsif p_action = 'trash' then
    update public.tickets t set trashed_at = now() where t.id = any (mine) and t.trashed_at is null and t.merged_into_id is null;
    get diagnostics n = row_count;
  else
    update public.tickets t set trashed_at = null where t.id = any (mine) and t.trashed_at is not null;
    get diagnostics n = row_count;
  end if;

  if merged > 0 and p_action in ('spam', 'trash') then
    skipped := jsonb_build_object('merged', merged);
  else
    merged := 0;
  end if;
  if cardinality(mine) - n - merged > 0 then
    skipped := skipped || jsonb_build_object('unchanged', cardinality(mine) - n - merged);
  end if;
  if cardinality(ids) > cardinality(mine) then
    skipped := skipped || jsonb_build_object('not_found', cardinality(ids) - cardinality(mine));
  end if;
  return jsonb_build_object('updated', n, 'skipped', skipped);
end $function$
;

CREATE OR REPLACE FUNCTION public.split_message(p_ticket_id uuid, p_message_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := auth.uid();
  t public.tickets;
  m public.messages;
  made public.tickets;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.id is null or not private.is_member(t.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  select * into t from public.tickets where id = p_ticket_id for update;
  select * into m from public.messages where id = p_message_id;
  if m.id is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'message';
  end if;
  if m.ticket_id <> t.id then
    raise exception using errcode = 'P0001', message = 'message_moved';
  end if;
  if m.kind <> 'reply' or m.author_id <> t.requester_id then
    raise exception using errcode = 'P0001', message = 'split_not_customer';
  end if;
  if not exists (select 1 from public.messages x where x.ticket_id = t.id and x.id <> m.id) then
    raise exception using errcode = 'P0001', message = 'split_only_message';
  end if;

  insert into public.tickets (workspace_id, requester_id, subject, priority, last_message_at)
  values (t.workspace_id, t.requester_id, t.subject, t.priority, m.created_at) returning * into made;
  update public.messages set ticket_id = made.id where id = m.id;
  update public.attachments set ticket_id = made.id where message_id = m.id;
  update public.tickets set search = private.ticket_search_vector(made.id, made.subject) where id = made.id;
  update public.tickets
     set search = private.ticket_search_vector(t.id, t.subject),
         last_message_at = coalesce((select max(x.created_at) from public.messages x where x.ticket_id = t.id and x.kind = 'reply'),
                                    t.created_at)
   where id = t.id;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  values (t.id, t.workspace_id, me, 'split_to', made.number::text);
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from")
  values (made.id, made.workspace_id, me, 'split_from', t.number::text);
  return jsonb_build_object('number', made.number, 'from', t.number);
end $function$
;

CREATE OR REPLACE FUNCTION private.auto_assign(p_ticket_id uuid)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  cfg public.assignment_settings;
  chosen uuid;
begin
  select * into t from public.tickets where id = p_ticket_id;
  select * into cfg from public.assignment_settings where workspace_id = t.workspace_id for no key update;
  if cfg.mode is null or cfg.mode = 'off' or t.assignee_id is not null or not private.is_open(t.status)
     or t.spam_at is not null or t.trashed_at is not null then
    return null;
  end if;
  select m.user_id into chosen
    from public.memberships m
    left join public.member_availability a on a.workspace_id = m.workspace_id and a.user_id = m.user_id
    cross join lateral (select coalesce(sum(c.n), 0) as open from private.ticket_tallies c
                         where c.workspace_id = m.workspace_id and c.assignee_id = m.user_id and private.is_backlog(c.status)) load
   where m.workspace_id = t.workspace_id and coalesce(a.available, true)
     and (cfg.max_open is null or load.open < cfg.max_open)
   order by case when cfg.mode = 'least_open' then load.open else 0 end,
            -- after the last one given a ticket, in id order, wrapping around
            m.user_id <= coalesce(cfg.last_assignee_id, '00000000-0000-0000-0000-000000000000'::uuid), m.user_id
   limit 1;
  if chosen is not null then
    update public.tickets set assignee_id = chosen where id = t.id;
    perform private.by_tend(t.id);
    update public.assignment_settings set last_assignee_id = chosen where workspace_id = t.workspace_id;
  end if;
  return chosen;
end $function$
;

CREATE OR REPLACE FUNCTION private.auto_assign_waiting(p_workspace_id uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  waiting uuid;
  n integer := 0;
begin
  for waiting in
    select t.id from public.tickets t
     where t.workspace_id = p_workspace_id and t.assignee_id is null and private.is_open(t.status)
       and t.spam_at is null and t.trashed_at is null
     order by t.created_at, t.number
  loop
    exit when private.auto_assign(waiting) is null;
    n := n + 1;
  end loop;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION private.inbox_view_filter(p_view text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
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
$function$
;

CREATE OR REPLACE FUNCTION private.notify_member(p_workspace_id uuid, p_recipient_id uuid, p_kind text, p_ticket_id uuid DEFAULT NULL::uuid, p_message_id uuid DEFAULT NULL::uuid, p_actor_id uuid DEFAULT auth.uid())
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  setting record;
  made uuid;
begin
  if p_recipient_id is null or p_recipient_id = p_actor_id
     or not exists (select 1 from public.memberships where workspace_id = p_workspace_id and user_id = p_recipient_id) then
    return null;
  end if;
  -- Nobody hears of a ticket in Spam or Trash (54_spam_trash_split.sql).
  if p_ticket_id is not null and exists (
    select 1 from public.tickets t where t.id = p_ticket_id and (t.spam_at is not null or t.trashed_at is not null)
  ) then
    return null;
  end if;
  -- now() is the transaction's start: rows made by this transaction share it.
  if p_ticket_id is not null and exists (
    select 1 from public.notifications
     where recipient_id = p_recipient_id and ticket_id = p_ticket_id and created_at = now()
  ) then
    return null;
  end if;
  select * into setting from private.notification_setting(p_workspace_id, p_recipient_id, p_kind);
  if not setting.in_app and setting.email = 'off' then
    return null;
  end if;
  insert into public.notifications (workspace_id, recipient_id, kind, ticket_id, message_id, actor_id, in_app, email)
  values (p_workspace_id, p_recipient_id, p_kind, p_ticket_id, p_message_id, p_actor_id, setting.in_app, setting.email)
  returning id into made;
  if setting.email = 'each' then
    perform private.call_function('notify', jsonb_build_object('type', 'notification', 'notification_id', made));
  end if;
  return made;
end $function$
;

CREATE OR REPLACE FUNCTION private.notify_message()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if auth.role() is not null
     and exists (select 1 from public.tickets t join public.memberships m on m.workspace_id = t.workspace_id
                  where t.id = new.ticket_id and m.user_id = new.author_id and t.requester_id <> new.author_id
                    -- Spam and Trash mail no one (54_spam_trash_split.sql).
                    and t.spam_at is null and t.trashed_at is null) then
    perform private.call_function('notify', jsonb_build_object('type', 'message', 'message_id', new.id));
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.rebuild_report_durations()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  lock table private.report_durations in exclusive mode;
  delete from private.report_durations where workspace_id = new.id;
  insert into private.report_durations (workspace_id, kind, span, day, bucket, tickets, seconds)
  select new.id, d.kind, p.span, p.day, private.report_bucket(d.seconds), count(*), sum(d.seconds)
    from (select 'first_response' as kind, t.first_response_at as at, private.report_seconds(t.created_at, t.first_response_at) as seconds
            from public.tickets t where t.workspace_id = new.id and t.spam_at is null and t.trashed_at is null and t.first_response_at is not null
          union all
          select 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at)
            from public.tickets t where t.workspace_id = new.id and t.spam_at is null and t.trashed_at is null and t.solved_at is not null) d
   cross join lateral private.report_spans((d.at at time zone new.time_zone)::date) p
   group by 1, 2, 3, 4, 5;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.roll_up_report()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' then
    insert into private.report_slots as s (workspace_id, slot, created, solved)
    select d.workspace_id, d.slot, sum(d.created), sum(d.solved)
      from (select n.workspace_id, private.report_slot(n.created_at) as slot, 1 as created, 0 as solved from new_tickets n where n.spam_at is null and n.trashed_at is null
            union all
            select n.workspace_id, private.report_slot(n.solved_at), 0, 1 from new_tickets n where n.spam_at is null and n.trashed_at is null and n.solved_at is not null) d
     group by 1, 2 order by 1, 2
    on conflict (workspace_id, slot) do update set created = s.created + excluded.created, solved = s.solved + excluded.solved;
    insert into private.report_durations as r (workspace_id, kind, span, day, bucket, tickets, seconds)
    select d.workspace_id, d.kind, p.span, p.day, private.report_bucket(d.seconds), count(*), sum(d.seconds)
      from (select n.workspace_id, 'first_response' as kind, n.first_response_at as at,
                   private.report_seconds(n.created_at, n.first_response_at) as seconds
              from new_tickets n where n.spam_at is null and n.trashed_at is null and n.first_response_at is not null
            union all
            select n.workspace_id, 'resolution', n.solved_at, private.report_seconds(n.created_at, n.solved_at)
              from new_tickets n where n.spam_at is null and n.trashed_at is null and n.solved_at is not null) d
      join public.workspaces w on w.id = d.workspace_id
      cross join lateral private.report_spans((d.at at time zone w.time_zone)::date) p
     group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, kind, span, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
  elsif tg_op = 'UPDATE' then
    -- A ticket in Spam or Trash counts nowhere (54_spam_trash_split.sql): its times are read as empty, so
    -- going there takes it out of the rollups and coming back puts it in again.
    insert into private.report_slots as s (workspace_id, slot, created, solved)
    with n as (select x.id, x.workspace_id, case when x.spam_at is null and x.trashed_at is null then x.created_at end as created_at,
                    case when x.spam_at is null and x.trashed_at is null then x.solved_at end as solved_at,
                    case when x.spam_at is null and x.trashed_at is null then x.first_response_at end as first_response_at from new_tickets x),
         o as (select x.id, x.workspace_id, case when x.spam_at is null and x.trashed_at is null then x.created_at end as created_at,
                    case when x.spam_at is null and x.trashed_at is null then x.solved_at end as solved_at,
                    case when x.spam_at is null and x.trashed_at is null then x.first_response_at end as first_response_at from old_tickets x)
    select d.workspace_id, d.slot, sum(d.created), sum(d.solved)
      from (select n.workspace_id, private.report_slot(n.created_at) as slot, 1 as created, 0 as solved
              from n join o using (id) where n.created_at is distinct from o.created_at and n.created_at is not null
            union all
            select o.workspace_id, private.report_slot(o.created_at), -1, 0
              from n join o using (id) where n.created_at is distinct from o.created_at and o.created_at is not null
            union all
            select n.workspace_id, private.report_slot(n.solved_at), 0, 1
              from n join o using (id) where n.solved_at is distinct from o.solved_at and n.solved_at is not null
            union all
            select o.workspace_id, private.report_slot(o.solved_at), 0, -1
              from n join o using (id) where n.solved_at is distinct from o.solved_at and o.solved_at is not null) d
     group by 1, 2 having sum(d.created) <> 0 or sum(d.solved) <> 0 order by 1, 2
    on conflict (workspace_id, slot) do update set created = s.created + excluded.created, solved = s.solved + excluded.solved;
    insert into private.report_durations as r (workspace_id, kind, span, day, bucket, tickets, seconds)
    with n as (select x.id, x.workspace_id, case when x.spam_at is null and x.trashed_at is null then x.created_at end as created_at,
                    case when x.spam_at is null and x.trashed_at is null then x.solved_at end as solved_at,
                    case when x.spam_at is null and x.trashed_at is null then x.first_response_at end as first_response_at from new_tickets x),
         o as (select x.id, x.workspace_id, case when x.spam_at is null and x.trashed_at is null then x.created_at end as created_at,
                    case when x.spam_at is null and x.trashed_at is null then x.solved_at end as solved_at,
                    case when x.spam_at is null and x.trashed_at is null then x.first_response_at end as first_response_at from old_tickets x)
    select d.workspace_id, d.kind, p.span, p.day, private.report_bucket(d.seconds), sum(d.sign), sum(d.sign * d.seconds)
      from (select t.workspace_id, 'first_response' as kind, t.first_response_at as at,
                   private.report_seconds(t.created_at, t.first_response_at) as seconds, t.sign
              from (select n.*, 1 as sign from n join o using (id)
                     where (n.created_at, n.first_response_at) is distinct from (o.created_at, o.first_response_at)
                    union all
                    select o.*, -1 from n join o using (id)
                     where (n.created_at, n.first_response_at) is distinct from (o.created_at, o.first_response_at)) t
             where t.first_response_at is not null
            union all
            select t.workspace_id, 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at), t.sign
              from (select n.*, 1 as sign from n join o using (id)
                     where (n.created_at, n.solved_at) is distinct from (o.created_at, o.solved_at)
                    union all
                    select o.*, -1 from n join o using (id)
                     where (n.created_at, n.solved_at) is distinct from (o.created_at, o.solved_at)) t
             where t.solved_at is not null) d
      join public.workspaces w on w.id = d.workspace_id
      cross join lateral private.report_spans((d.at at time zone w.time_zone)::date) p
     group by 1, 2, 3, 4, 5 having sum(d.sign) <> 0 or sum(d.sign * d.seconds) <> 0 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, kind, span, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
  else
    -- Deleting tickets (a workspace going, with its rollups already gone by cascade): only what is left.
    update private.report_slots s set created = s.created - d.created, solved = s.solved - d.solved
      from (select o.workspace_id, o.slot, sum(o.created) as created, sum(o.solved) as solved
              from (select workspace_id, private.report_slot(created_at) as slot, 1 as created, 0 as solved from old_tickets where spam_at is null and trashed_at is null
                    union all
                    select workspace_id, private.report_slot(solved_at), 0, 1 from old_tickets where spam_at is null and trashed_at is null and solved_at is not null) o
             group by 1, 2) d
     where s.workspace_id = d.workspace_id and s.slot = d.slot;
    update private.report_durations r set tickets = r.tickets - d.tickets, seconds = r.seconds - d.seconds
      from (select o.workspace_id, o.kind, p.span, p.day, private.report_bucket(o.seconds) as bucket,
                   count(*) as tickets, sum(o.seconds) as seconds
              from (select workspace_id, 'first_response' as kind, first_response_at as at, private.report_seconds(created_at, first_response_at) as seconds
                      from old_tickets where spam_at is null and trashed_at is null and first_response_at is not null
                    union all
                    select workspace_id, 'resolution', solved_at, private.report_seconds(created_at, solved_at)
                      from old_tickets where spam_at is null and trashed_at is null and solved_at is not null) o
              join public.workspaces w on w.id = o.workspace_id
              cross join lateral private.report_spans((o.at at time zone w.time_zone)::date) p
             group by 1, 2, 3, 4, 5) d
     where r.workspace_id = d.workspace_id and r.kind = d.kind and r.span = d.span and r.day = d.day and r.bucket = d.bucket;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_refresh(p_ticket_id uuid, p_met sla_target DEFAULT NULL::sla_target, p_met_at timestamp with time zone DEFAULT now())
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  g public.sla_targets;
  s public.ticket_sla;
  paused boolean;
  due timestamptz;
  candidate public.sla_target;
  next_target public.sla_target;
  next_due timestamptz;
begin
  select * into t from public.tickets where id = p_ticket_id;
  select * into g from public.sla_targets where workspace_id = t.workspace_id and priority = t.priority;
  select * into s from public.ticket_sla where ticket_id = p_ticket_id for update;
  if s.ticket_id is null then
    -- No targets, no row: a workspace without SLA pays one look-up per change.
    if g.workspace_id is null then
      return;
    end if;
    insert into public.ticket_sla (ticket_id, workspace_id) values (t.id, t.workspace_id) returning * into s;
  end if;

  if p_met is not null and g.workspace_id is not null then
    due := private.sla_due_of(t, g, s, p_met);
    if due is not null then
      insert into public.sla_outcomes (ticket_id, workspace_id, target, started_at, due_at, decided_at, met, priority, assignee_id)
      values (t.id, t.workspace_id, p_met, case when p_met = 'next_response' then s.waiting_since else t.created_at end,
              due, p_met_at, p_met_at <= due, t.priority, t.assignee_id)
      on conflict (ticket_id, target, started_at) do nothing;
    end if;
  end if;

  -- Spam and Trash stop the clock too (54_spam_trash_split.sql): no promise runs there.
  paused := t.status in ('pending', 'solved', 'closed') or t.spam_at is not null or t.trashed_at is not null;
  if paused and s.paused_at is null then
    s.paused_at := now();
  elsif not paused and s.paused_at is not null then
    s.paused_seconds := s.paused_seconds + extract(epoch from now() - s.paused_at);
    s.paused_business_seconds := s.paused_business_seconds + private.business_minutes_between(t.workspace_id, s.paused_at, now()) * 60;
    s.paused_at := null;
  end if;

  if not paused and g.workspace_id is not null then
    foreach candidate in array array['first_response', 'next_response', 'resolution']::public.sla_target[] loop
      continue when candidate = 'first_response' and (t.first_response_at is not null or g.first_response_minutes is null);
      continue when candidate = 'next_response' and (s.waiting_since is null or g.next_response_minutes is null);
      continue when candidate = 'resolution' and g.resolution_minutes is null;
      due := private.sla_due_of(t, g, s, candidate);
      if due is not null and (next_due is null or due < next_due) then
        next_due := due;
        next_target := candidate;
      end if;
    end loop;
  end if;

  update public.ticket_sla
     set target = next_target,
         started_at = case when next_target = 'next_response' then s.waiting_since when next_target is not null then t.created_at end,
         due_at = next_due,
         warn_at = case when next_target is not null then private.sla_due_of(t, g, s, next_target, 0.75) end,
         -- A breach seen stays seen while the same promise runs late.
         breached_at = case when next_target = s.target and next_due = s.due_at then s.breached_at end,
         waiting_since = s.waiting_since,
         paused_at = s.paused_at,
         paused_seconds = s.paused_seconds,
         paused_business_seconds = s.paused_business_seconds
   where ticket_id = t.id;
end $function$
;

CREATE OR REPLACE FUNCTION private.survey_wanted(t tickets)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select auth.role() is not null
     and t.merged_into_id is null
     -- Spam and Trash ask nobody anything (54_spam_trash_split.sql).
     and t.spam_at is null and t.trashed_at is null
     and coalesce((select s.enabled from public.csat_settings s where s.workspace_id = t.workspace_id), true)
     and not exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = t.requester_id)
$function$
;

CREATE OR REPLACE FUNCTION private.tally_tickets()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_history()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  actor uuid := auth.uid();
begin
  if tg_op = 'INSERT' then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to") values (new.id, new.workspace_id, actor, 'created', new.status);
    -- A request of a sender marked as spam opens in Spam: Tend put it there.
    if new.spam_at is not null then
      insert into public.ticket_events (ticket_id, workspace_id, actor_id, type) values (new.id, new.workspace_id, null, 'spam');
    end if;
    return null;
  end if;
  if new.status is distinct from old.status then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to") values (new.id, new.workspace_id, actor, 'status', old.status, new.status);
  end if;
  if new.assignee_id is distinct from old.assignee_id then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
    values (new.id, new.workspace_id, actor, 'assignee', old.assignee_id::text, new.assignee_id::text);
  end if;
  if new.priority is distinct from old.priority then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to") values (new.id, new.workspace_id, actor, 'priority', old.priority, new.priority);
  end if;
  -- Snoozed until a time (`to`), or woken (by hand, by the requester's reply, by the job: no actor).
  if new.snoozed_until is distinct from old.snoozed_until then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
    values (new.id, new.workspace_id, actor, case when new.snoozed_until is null then 'unsnoozed' else 'snoozed' end,
            old.snoozed_until::text, new.snoozed_until::text);
  end if;
  -- Spam and Trash (54_spam_trash_split.sql). The requester's own message that took it to Spam (they are
  -- marked as spam) was Tend's doing, not theirs: no actor.
  if (new.spam_at is null) <> (old.spam_at is null) then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type)
    values (new.id, new.workspace_id, nullif(actor, new.requester_id), case when new.spam_at is null then 'not_spam' else 'spam' end);
  end if;
  if (new.trashed_at is null) <> (old.trashed_at is null) then
    insert into public.ticket_events (ticket_id, workspace_id, actor_id, type)
    values (new.id, new.workspace_id, actor, case when new.trashed_at is null then 'restored' else 'trashed' end);
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION public.bulk_update_tickets(p_ticket_ids uuid[], p_action text, p_value text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  ids uuid[] := array(select distinct x from unnest(p_ticket_ids) x where x is not null);
  ws uuid;
  actor private.ticket_actor;
  target_status public.ticket_status;
  target_priority public.ticket_priority;
  target_assignee uuid;
  tag uuid;
  target_ticket uuid;
  merged_reasons jsonb := '{}';
  reason text;
  other uuid;
  allowed public.ticket_status[] := '{}';
  s public.ticket_status;
  mine uuid[];
  n integer := 0;
  skipped jsonb;
begin
  -- To Spam or Trash and back: move_tickets' rules (54_spam_trash_split.sql).
  if p_action in ('spam', 'not_spam', 'trash', 'restore') then
    return public.move_tickets(p_ticket_ids, p_action);
  end if;
  if cardinality(ids) not between 1 and 1000 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = '1 to 1000 tickets';
  end if;
  -- The workspace: the first visible ticket's; every ticket must be a member's of that one.
  select t.workspace_id into ws from public.tickets t where t.id = any (ids) order by t.id limit 1;
  if ws is null or not private.is_member(ws) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'tickets';
  end if;
  actor := private.ticket_actor(ws, auth.uid());
  mine := array(select t.id from public.tickets t where t.id = any (ids) and t.workspace_id = ws order by t.id for no key update);
  begin
    case p_action
      when 'status' then target_status := p_value::public.ticket_status;
      when 'priority' then target_priority := p_value::public.ticket_priority;
      when 'assign' then target_assignee := case when p_value = 'none' then null else p_value::uuid end;
      when 'add_tag', 'remove_tag' then null;
      when 'merge' then target_ticket := p_value::uuid;
      else raise exception using errcode = 'P0001', message = 'bad_request', detail = 'action';
    end case;
  exception when invalid_text_representation then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'value';
  end;

  if p_action = 'status' then
    -- The statuses of the batch the caller may move to the target (at most five checks).
    for s in select distinct t.status from public.tickets t where t.id = any (mine) and t.status <> target_status loop
      begin
        perform private.check_transition(s, target_status, actor, 'edit');
        allowed := allowed || s;
      exception when sqlstate 'P0001' then
        null;
      end;
    end loop;
    -- Solving needs the ticket's required custom fields (58_ticket_fields.sql): those without are skipped.
    skipped := (select jsonb_object_agg(x.reason, x.n) from (
                  select case when t.status = target_status then 'unchanged'
                              when t.status = any (allowed) then 'field_required'
                              else t.status::text end as reason, count(*) as n
                    from public.tickets t
                   where t.id = any (mine)
                     and (not (t.status = any (allowed))
                          or (target_status = 'solved' and private.missing_required_field(t.workspace_id, t.id) is not null))
                   group by 1) x);
    update public.tickets t set status = target_status
     where t.id = any (mine) and t.status = any (allowed)
       and (target_status <> 'solved' or private.missing_required_field(t.workspace_id, t.id) is null);
    get diagnostics n = row_count;
  elsif p_action = 'priority' then
    update public.tickets t set priority = target_priority where t.id = any (mine) and t.priority <> target_priority;
    get diagnostics n = row_count;
  elsif p_action = 'assign' then
    -- Assigning a new ticket opens it (ticket_transition); a non-member is refused for the batch.
    update public.tickets t set assignee_id = target_assignee where t.id = any (mine) and t.assignee_id is distinct from target_assignee;
    get diagnostics n = row_count;
  elsif p_action = 'merge' then
    -- Each other ticket into p_value (one of the batch), through merge_tickets: its rules, its refusals
    -- counted by code (ticket_merged, merge_closed).
    if not (target_ticket = any (mine)) then
      raise exception using errcode = 'P0001', message = 'bad_request', detail = 'merge into one of the tickets';
    end if;
    foreach other in array mine loop
      continue when other = target_ticket;
      begin
        perform public.merge_tickets(other, target_ticket);
        n := n + 1;
      exception when sqlstate 'P0001' then
        reason := case sqlerrm when 'ticket_merged' then 'merged' when 'merge_closed' then 'closed' else sqlerrm end;
        merged_reasons := merged_reasons || jsonb_build_object(reason, coalesce((merged_reasons ->> reason)::integer, 0) + 1);
      end;
    end loop;
    skipped := merged_reasons;
    -- The primary is the batch's target, not one of its changes.
    mine := array_remove(mine, target_ticket);
    ids := array_remove(ids, target_ticket);
  elsif p_action = 'add_tag' then
    tag := private.tag_named(ws, p_value);
    insert into public.ticket_tags (ticket_id, tag_id) select x, tag from unnest(mine) x on conflict do nothing;
    get diagnostics n = row_count;
  else
    delete from public.ticket_tags tt using public.tags g
     where tt.ticket_id = any (mine) and g.id = tt.tag_id and g.workspace_id = ws and g.name = lower(btrim(coalesce(p_value, '')));
    get diagnostics n = row_count;
  end if;

  skipped := coalesce(skipped, '{}'::jsonb);
  if cardinality(mine) - n - coalesce((select sum(v::integer) from jsonb_each_text(skipped) e(k, v)), 0) > 0 then
    skipped := skipped || jsonb_build_object('unchanged', coalesce((skipped ->> 'unchanged')::integer, 0)
                                               + cardinality(mine) - n - coalesce((select sum(v::integer) from jsonb_each_text(skipped) e(k, v)), 0));
  end if;
  if cardinality(ids) > cardinality(mine) then
    skipped := skipped || jsonb_build_object('not_found', cardinality(ids) - cardinality(mine));
  end if;
  return jsonb_build_object('updated', n, 'skipped', skipped);
end $function$
;

CREATE OR REPLACE FUNCTION public.claim_next_ticket(p_workspace_id uuid)
 RETURNS SETOF tickets
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'agents only';
  end if;
  -- Oldest unassigned open request; rows another agent is claiming right now are skipped.
  select * into t from public.tickets
   where workspace_id = p_workspace_id and assignee_id is null and private.is_open(status) and snoozed_until is null
     and spam_at is null and trashed_at is null
   order by created_at, number
   limit 1
   for no key update skip locked;
  if t.id is null then
    return;
  end if;
  -- Assigning a new ticket opens it (the transition trigger).
  return query update public.tickets set assignee_id = (select auth.uid()) where id = t.id returning *;
end $function$
;

CREATE OR REPLACE FUNCTION public.company_page(p_slug text, p_domain text, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  member record;
  ws public.workspaces;
  wanted text collate "C" := private.company_domain('x@' || btrim(p_domain));
  page_size constant integer := 25;
  customers_shown constant integer := 50;
  total integer;
  rows jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  select count(*) into total from public.customers c where c.workspace_id = ws.id and c.company = wanted;
  if wanted is null or total = 0 then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status,
                                               'priority', t.priority, 'last_message_at', t.last_message_at,
                                               'requester_id', t.requester_id, 'requester', t.name)
                            order by t.last_message_at desc, t.id desc), '[]')
    into rows
    from (select t.*, c.name from public.customers c
            cross join lateral (select * from public.tickets t
                                 where t.requester_id = c.user_id and t.workspace_id = ws.id and t.trashed_at is null
                                   and (p_after_at is null or (t.last_message_at, t.id) < (p_after_at, p_after_id))
                                 order by t.last_message_at desc, t.id desc
                                 limit page_size + 1) t
           where c.workspace_id = ws.id and c.company = wanted
           order by t.last_message_at desc, t.id desc
           limit page_size + 1) t;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
    'role', member.role,
    'company', jsonb_build_object('domain', wanted, 'customers', total,
                                  'name', (select n.name from public.companies n where n.workspace_id = ws.id and n.domain = wanted)),
    'customers', (select coalesce(jsonb_agg(jsonb_build_object('user_id', c.user_id, 'name', c.name, 'email', c.email, 'tickets', c.tickets)
                                            order by c.name_key, c.user_id), '[]')
                    from (select * from public.customers c where c.workspace_id = ws.id and c.company = wanted
                           order by c.name_key, c.user_id limit customers_shown) c),
    'tickets', (select coalesce(jsonb_agg(r), '[]') from jsonb_array_elements(rows) with ordinality x(r, i) where i <= page_size),
    'older', case when jsonb_array_length(rows) > page_size then
               (select jsonb_build_object('at', r ->> 'last_message_at', 'id', r ->> 'id') from jsonb_array_elements(rows) with ordinality x(r, i) where i = page_size) end
  );
end $function$
;

CREATE OR REPLACE FUNCTION public.customer_page(p_slug text, p_customer_id uuid, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  member record;
  ws public.workspaces;
  c public.customers;
  page_size constant integer := 25;
  rows jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  select * into c from public.customers x where x.workspace_id = ws.id and x.user_id = p_customer_id;
  if c.user_id is null then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status,
                                               'priority', t.priority, 'last_message_at', t.last_message_at)
                            order by t.last_message_at desc, t.id desc), '[]')
    into rows
    from (select * from public.tickets t
           where t.requester_id = c.user_id and t.workspace_id = ws.id
             -- Trash is out of every list (54_spam_trash_split.sql).
             and t.trashed_at is null
             and (p_after_at is null or (t.last_message_at, t.id) < (p_after_at, p_after_id))
           order by t.last_message_at desc, t.id desc
           limit page_size + 1) t;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', member.role,
    'customer', jsonb_build_object('user_id', c.user_id, 'name', c.name, 'email', c.email, 'time_zone', c.time_zone,
                                   'company', c.company, 'tickets', c.tickets, 'created_at', c.created_at,
                                   'company_name', (select n.name from public.companies n where n.workspace_id = ws.id and n.domain = c.company)),
    'tickets', (select coalesce(jsonb_agg(r), '[]') from jsonb_array_elements(rows) with ordinality x(r, i) where i <= page_size),
    'older', case when jsonb_array_length(rows) > page_size then
               (select jsonb_build_object('at', r ->> 'last_message_at', 'id', r ->> 'id') from jsonb_array_elements(rows) with ordinality x(r, i) where i = page_size) end,
    'notes', (select coalesce(jsonb_agg(jsonb_build_object(
                 'id', n.id, 'body', n.body, 'created_by', n.created_by, 'created_at', n.created_at,
                 'updated_by', n.updated_by, 'updated_at', n.updated_at,
                 'versions', (select coalesce(jsonb_agg(jsonb_build_object('body', v.body, 'written_by', v.written_by, 'written_at', v.written_at)
                                                        order by v.written_at desc, v.id desc), '[]')
                                from public.customer_note_versions v where v.note_id = n.id))
                 order by n.created_at desc, n.id), '[]')
                from public.customer_notes n where n.workspace_id = ws.id and n.customer_id = c.user_id),
    -- The names of the members who wrote (former members included).
    'names', (select coalesce(jsonb_object_agg(p.user_id, p.display_name), '{}') from public.profiles p
               where p.user_id in (select n.created_by from public.customer_notes n where n.workspace_id = ws.id and n.customer_id = c.user_id
                                   union select n.updated_by from public.customer_notes n where n.workspace_id = ws.id and n.customer_id = c.user_id
                                   union select v.written_by from public.customer_note_versions v join public.customer_notes n on n.id = v.note_id
                                          where n.workspace_id = ws.id and n.customer_id = c.user_id))
  );
end $function$
;

CREATE OR REPLACE FUNCTION public.inbox(p_slug text, p_view text DEFAULT 'unassigned'::text, p_query text DEFAULT NULL::text, p_status text DEFAULT NULL::text, p_priority text DEFAULT NULL::text, p_assignee text DEFAULT NULL::text, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid, p_before_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_before_id uuid DEFAULT NULL::uuid, p_limit integer DEFAULT 25, p_tags text[] DEFAULT NULL::text[])
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
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
end $function$
;

CREATE OR REPLACE FUNCTION public.merge_tickets(p_ticket_id uuid, p_into uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := auth.uid();
  secondary public.tickets;
  target public.tickets;
begin
  select * into secondary from public.tickets where id = p_ticket_id;
  select * into target from public.tickets where id = p_into;
  if secondary.id is null or target.id is null or target.workspace_id <> secondary.workspace_id
     or not private.is_member(secondary.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  if secondary.id = target.id then
    raise exception using errcode = 'P0001', message = 'merge_same';
  end if;
  perform 1 from public.tickets t where t.id in (p_ticket_id, p_into) order by t.id for update;
  -- As they are now that no other merge can change them.
  select * into secondary from public.tickets where id = p_ticket_id;
  select * into target from public.tickets where id = p_into;
  if secondary.merged_into_id is not null or target.merged_into_id is not null then
    raise exception using errcode = 'P0001', message = 'ticket_merged';
  end if;
  if secondary.status = 'closed' or target.status = 'closed' then
    raise exception using errcode = 'P0001', message = 'merge_closed';
  end if;
  -- Spam and Trash take part in nothing until they are back (54_spam_trash_split.sql).
  if secondary.trashed_at is not null or target.trashed_at is not null then
    raise exception using errcode = 'P0001', message = 'ticket_in_trash';
  end if;
  if secondary.spam_at is not null or target.spam_at is not null then
    raise exception using errcode = 'P0001', message = 'ticket_in_spam';
  end if;
  perform private.check_transition(secondary.status, 'closed', private.ticket_actor(secondary.workspace_id, me), 'merge');

  update public.messages set ticket_id = target.id where ticket_id = secondary.id;
  update public.attachments set ticket_id = target.id where ticket_id = secondary.id;
  update public.ticket_events set ticket_id = target.id, from_ticket = coalesce(from_ticket, secondary.number)
   where ticket_id = secondary.id;
  -- What was merged into the secondary before leads to the primary too: one hop, always.
  update public.tickets set merged_into_id = target.id where merged_into_id = secondary.id;
  insert into public.ticket_followers (ticket_id, user_id, workspace_id)
  select target.id, f.user_id, target.workspace_id
    from (select secondary.requester_id as user_id
          union select x.user_id from public.ticket_followers x where x.ticket_id = secondary.id) f
   where f.user_id <> target.requester_id
  on conflict do nothing;

  update public.tickets set status = 'closed', merged_into_id = target.id,
         search = private.ticket_search_vector(secondary.id, secondary.subject)
   where id = secondary.id;
  update public.tickets set last_message_at = greatest(last_message_at, secondary.last_message_at),
         search = private.ticket_search_vector(target.id, target.subject)
   where id = target.id;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  values (secondary.id, secondary.workspace_id, me, 'merged_into', target.number::text);
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from")
  values (target.id, target.workspace_id, me, 'merged_from', secondary.number::text);
  return jsonb_build_object('number', target.number, 'merged', secondary.number);
end $function$
;

CREATE OR REPLACE FUNCTION public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb DEFAULT NULL::jsonb, p_recipient_id uuid DEFAULT NULL::uuid, p_sender_verified boolean DEFAULT false)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  seen public.inbound_emails;
  sender uuid;
  t public.tickets;
  ws uuid;
  actor private.ticket_actor;
  m public.messages;
  outcome text;
  follows uuid;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  select * into seen from public.inbound_emails where provider_message_id = p_provider_message_id;
  if found then
    return jsonb_build_object('outcome', seen.outcome, 'ticket_id', seen.ticket_id, 'message_id', seen.created_message_id,
                              'attachments', private.message_files(seen.created_message_id), 'duplicate', true);
  end if;
  select id into sender from auth.users where email = lower(p_from) and deleted_at is null;
  if sender is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'sender';
  end if;

  if p_ticket_id is not null then
    -- Mail to a merged ticket's thread lands on the ticket it was merged into (52_triage.sql).
    select * into t from public.tickets
     where id = coalesce((select x.merged_into_id from public.tickets x where x.id = p_ticket_id), p_ticket_id) for update;
    ws := t.workspace_id;
  end if;
  if ws is null then
    select w.id into ws from public.workspaces w where w.slug = lower(p_workspace_slug);
  end if;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  actor := private.ticket_actor(ws, sender);
  if actor <> 'requester' and not coalesce(p_sender_verified, false) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'unverified member';
  end if;
  -- A follower (a merged ticket's requester) answers the thread as its requester does. A thread in Trash
  -- is gone for its requester (54_spam_trash_split.sql): their mail is a new request.
  if t.id is not null and (t.trashed_at is not null or (actor = 'requester' and t.requester_id <> sender
                            and not exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = sender))
                           or p_recipient_id <> sender) then
    t := null; -- not theirs to answer
  end if;
  -- The sender acts in this transaction: the history names them (private.ticket_history reads auth.uid()).
  perform set_config('request.jwt.claim.sub', sender::text, true);

  if t.id is not null and t.status <> 'closed' then
    insert into public.messages (ticket_id, author_id, kind, body) values (t.id, sender, 'reply', p_body) returning * into m;
    if private.status_after_reply(t.status, actor) is not null then
      perform private.change_status(t.id, private.status_after_reply(t.status, actor), actor, 'reply');
    end if;
    outcome := 'reply';
  else
    follows := t.id;
    insert into public.tickets (workspace_id, requester_id, subject, follow_up_of)
    values (ws, sender, left(coalesce(nullif(trim(p_subject), ''), '(no subject)'), 200), follows) returning * into t;
    insert into public.messages (ticket_id, author_id, kind, body) values (t.id, sender, 'reply', p_body) returning * into m;
    outcome := case when follows is null then 'request' else 'follow_up' end;
  end if;
  insert into public.inbound_emails (provider_message_id, message_id, ticket_id, created_message_id, outcome)
  values (p_provider_message_id, p_message_id, t.id, m.id, outcome);
  return jsonb_build_object('outcome', outcome, 'ticket_id', t.id, 'number', t.number, 'message_id', m.id,
                            'follow_up_of', follows, 'attachments', private.attach_received_files(m.id, p_attachments),
                            'duplicate', false);
end $function$
;

CREATE OR REPLACE FUNCTION public.requester_card(p_ticket_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.id is null or not private.is_member(t.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  return jsonb_build_object(
    'user_id', t.requester_id,
    'name', coalesce((select p.display_name from public.profiles p where p.user_id = t.requester_id), 'Unknown'),
    'email', (select u.email from auth.users u where u.id = t.requester_id),
    'requests', (select count(*) from public.tickets o where o.requester_id = t.requester_id and o.workspace_id = t.workspace_id
                    and o.trashed_at is null),
    'recent', (select coalesce(jsonb_agg(jsonb_build_object('number', o.number, 'subject', o.subject, 'status', o.status, 'last_message_at', o.last_message_at)
                                         order by o.last_message_at desc), '[]')
                 from (select o.number, o.subject, o.status, o.last_message_at from public.tickets o
                        where o.requester_id = t.requester_id and o.workspace_id = t.workspace_id and o.id <> t.id
                          and o.trashed_at is null
                        order by o.last_message_at desc limit 5) o));
end $function$
;

CREATE OR REPLACE FUNCTION public.sla_report(p_slug text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date, p_days integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  my_role public.member_role;
  tz text;
  lo timestamptz;
  hi timestamptz;
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
  return (
    with o as (
      select x.*, (x.decided_at at time zone tz)::date as day from public.sla_outcomes x
       where x.workspace_id = ws and x.decided_at >= lo and x.decided_at < hi
         -- Spam and Trash are out of the reports (54_spam_trash_split.sql).
         and exists (select 1 from public.tickets t where t.id = x.ticket_id and t.spam_at is null and t.trashed_at is null)
    )
    select jsonb_build_object(
      'weeks', (select coalesce(jsonb_agg(jsonb_build_object('week', w.week, 'met', w.met, 'total', w.total) order by w.week), '[]')
                  from (select o.day - (extract(isodow from o.day)::int - 1) as week, count(*) filter (where o.met) as met, count(*) as total
                          from o group by 1) w),
      'agents', (select coalesce(jsonb_agg(jsonb_build_object('assignee_id', a.assignee_id, 'name', p.display_name, 'met', a.met, 'total', a.total)
                                           order by p.display_name nulls first, a.assignee_id), '[]')
                   from (select o.assignee_id, count(*) filter (where o.met) as met, count(*) as total from o group by 1) a
                   left join public.profiles p on p.user_id = a.assignee_id),
      'priorities', (select coalesce(jsonb_agg(jsonb_build_object('priority', r.priority, 'met', r.met, 'total', r.total) order by r.priority), '[]')
                       from (select o.priority, count(*) filter (where o.met) as met, count(*) as total from o group by 1) r)
    )
  );
end $function$
;

CREATE OR REPLACE FUNCTION public.ticket_page(p_slug text, p_number integer, p_page integer DEFAULT 30, p_earlier_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_earlier_id uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  member record;
  ws public.workspaces;
  my_role text;
  t public.tickets;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  my_role := member.role;
  select * into t from public.tickets x where x.workspace_id = ws.id and x.number = p_number;
  if t.id is null then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', my_role,
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
    'messages', (select coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'kind', m.kind, 'body', m.body, 'created_at', m.created_at,
                                                              'author_id', m.author_id,
                                                              'attachments', (select coalesce(jsonb_agg(jsonb_build_object(
                                                                  'id', a.id, 'file_name', a.file_name, 'size', a.size, 'mime_type', a.mime_type)
                                                                  order by a.created_at, a.file_name), '[]')
                                                                from public.attachments a where a.message_id = m.id))
                                                   order by m.created_at, m.id), '[]')
                   from ((select * from public.messages m
                           where m.ticket_id = t.id and p_earlier_at is not null
                             and (m.created_at, m.id) >= (p_earlier_at, p_earlier_id))
                         union all
                         (select * from public.messages m
                           where m.ticket_id = t.id
                             and (p_earlier_at is null or (m.created_at, m.id) < (p_earlier_at, p_earlier_id))
                           order by m.created_at desc, m.id desc
                           limit least(greatest(p_page, 1), 100) + 1)) m),
    'mine', (select count(*) from public.messages m where m.ticket_id = t.id and m.author_id = auth.uid()),
    'events', (select coalesce(jsonb_agg(jsonb_build_object('id', e.id, 'actor_id', e.actor_id, 'type', e.type, 'from', e."from",
                                                            'to', e."to", 'from_ticket', e.from_ticket, 'field', e.field,
                                                            'created_at', e.created_at)
                                 order by e.created_at desc, e.id desc), '[]')
                 from (select * from public.ticket_events e where e.ticket_id = t.id order by e.created_at desc, e.id desc limit 100) e),
    'names', (select coalesce(jsonb_object_agg(p.user_id, p.display_name), '{}')
                from public.profiles p
               where p.user_id in (select m.user_id from public.memberships m where m.workspace_id = ws.id)
                  or p.user_id = t.requester_id
                  or p.user_id in (select m.author_id from public.messages m where m.ticket_id = t.id)
                  or p.user_id in (select e.actor_id from public.ticket_events e where e.ticket_id = t.id)
                  -- assignees in the history, former members included
                  or p.user_id::text in (select unnest(array[e."from", e."to"]) from public.ticket_events e
                                          where e.ticket_id = t.id and e.type = 'assignee')),
    'requester', public.requester_card(t.id)
  );
end $function$
;

CREATE OR REPLACE FUNCTION public.workspace_report(p_slug text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date, p_days integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  my_role public.member_role;
  tz text;
  lo timestamptz;
  hi timestamptz;
  out jsonb;
begin
  -- My membership, through its policy: the workspace is mine to see, or it is "not found".
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
  -- Local midnights as moments: a day is 23 or 25 hours long when the clocks change.
  lo := p_from::timestamp at time zone tz;
  hi := (p_to + 1)::timestamp at time zone tz;

  with slots as materialized (
    select s.slot at time zone tz as local, s.created, s.solved
      from private.report_slots s
     where s.workspace_id = ws and s.slot >= lo and s.slot < hi
  ), days as (
    select d.day, coalesce(s.created, 0) as created, coalesce(s.solved, 0) as solved
      from (select g::date as day from pg_catalog.generate_series(p_from, p_to, interval '1 day') g) d
      left join (select s.local::date as day, sum(s.created) as created, sum(s.solved) as solved from slots s group by 1) s using (day)
  ), backlog as (
    select c.status, c.assignee_id, sum(c.n) as n
      from private.ticket_tallies c
     where c.workspace_id = ws and private.is_backlog(c.status)
     group by 1, 2
  )
  select jsonb_build_object(
    'time_zone', tz,
    'from', p_from,
    'to', p_to,
    'days', (select jsonb_agg(jsonb_build_object('day', d.day, 'created', d.created, 'solved', d.solved) order by d.day) from days d),
    'created', (select sum(d.created) from days d),
    'solved', (select sum(d.solved) from days d),
    'first_response', private.report_percentiles(ws, 'first_response', p_from, p_to),
    'resolution', private.report_percentiles(ws, 'resolution', p_from, p_to),
    'backlog_by_status', (
      select jsonb_agg(jsonb_build_object('status', st, 'tickets', coalesce((select sum(b.n) from backlog b where b.status = st), 0)) order by st)
        from unnest(enum_range(null::public.ticket_status)) st where private.is_backlog(st)),
    'backlog_by_assignee', coalesce((
      select jsonb_agg(jsonb_build_object('assignee_id', a.assignee_id, 'name', p.display_name,
                                          'new', a.new, 'open', a.open, 'pending', a.pending, 'tickets', a.tickets)
                       order by a.tickets desc, p.display_name, a.assignee_id)
        from (select b.assignee_id, coalesce(sum(b.n) filter (where b.status = 'new'), 0) as new,
                     coalesce(sum(b.n) filter (where b.status = 'open'), 0) as open,
                     coalesce(sum(b.n) filter (where b.status = 'pending'), 0) as pending, sum(b.n) as tickets
                from backlog b group by 1 having sum(b.n) > 0) a
        left join public.profiles p on p.user_id = a.assignee_id), '[]'::jsonb),
    -- Tickets created, and solved (still solved or closed), in the range, per tag; tags with neither
    -- left out. Read from the tags' tickets (ticket_tags_tag_idx), not rolled up.
    'by_tag', coalesce((
      select jsonb_agg(jsonb_build_object('name', g.name, 'colour', g.colour, 'created', x.created, 'solved', x.solved)
                       order by x.created desc, x.solved desc, g.name)
        from public.tags g
        cross join lateral (
          select count(*) filter (where t.created_at >= lo and t.created_at < hi) as created,
                 count(*) filter (where t.solved_at >= lo and t.solved_at < hi) as solved
            from public.ticket_tags tt join public.tickets t on t.id = tt.ticket_id
           where tt.tag_id = g.id and t.spam_at is null and t.trashed_at is null) x
       where g.workspace_id = ws and (x.created > 0 or x.solved > 0)), '[]'::jsonb),
    'busiest_hours', coalesce((
      select jsonb_agg(jsonb_build_object('weekday', h.weekday, 'hour', h.hour, 'created', h.created) order by h.weekday, h.hour)
        from (select extract(isodow from s.local)::int as weekday, extract(hour from s.local)::int as hour, sum(s.created) as created
                from slots s group by 1, 2 having sum(s.created) > 0) h), '[]'::jsonb)
  ) into out;
  return out;
end $function$
;


  create policy "members read their workspace's spam senders"
  on "public"."spam_senders"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "requesters and members read tickets"
  on "public"."tickets"
  as permissive
  for select
  to authenticated
using ((((requester_id = ( SELECT auth.uid() AS uid)) AND (trashed_at IS NULL)) OR (workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces))));


CREATE TRIGGER messages_set_aside BEFORE INSERT ON public.messages FOR EACH ROW EXECUTE FUNCTION private.message_set_aside();

CREATE TRIGGER ticket_field_values_history AFTER INSERT OR DELETE OR UPDATE ON public.ticket_field_values FOR EACH ROW EXECUTE FUNCTION private.ticket_field_history();

CREATE TRIGGER tickets_spam_sender BEFORE INSERT ON public.tickets FOR EACH ROW EXECUTE FUNCTION private.spam_sender_request();

CREATE TRIGGER tickets_sla AFTER INSERT OR UPDATE OF status, priority, first_response_at, spam_at, trashed_at ON public.tickets FOR EACH ROW EXECUTE FUNCTION private.sla_ticket_changed();

revoke delete on table public.spam_senders from anon;
revoke delete on table public.spam_senders from authenticated;
revoke execute on function private.delete_tickets(p_ids uuid[]) from public;
revoke execute on function private.message_set_aside() from public;
revoke execute on function private.purge_trash() from public;
revoke execute on function private.spam_sender_request() from public;
revoke execute on function private.ticket_field_history() from public;
revoke execute on function private.trash_days() from public;
revoke execute on function public.empty_trash(p_workspace_id uuid) from anon;
revoke execute on function public.empty_trash(p_workspace_id uuid) from public;
revoke execute on function public.move_tickets(p_ticket_ids uuid[], p_action text) from anon;
revoke execute on function public.move_tickets(p_ticket_ids uuid[], p_action text) from public;
revoke execute on function public.split_message(p_ticket_id uuid, p_message_id uuid) from anon;
revoke execute on function public.split_message(p_ticket_id uuid, p_message_id uuid) from public;
revoke insert on table public.spam_senders from anon;
revoke insert on table public.spam_senders from authenticated;
revoke maintain on table public.spam_senders from anon;
revoke references on table public.spam_senders from anon;
revoke select on table public.spam_senders from anon;
revoke trigger on table public.spam_senders from anon;
revoke truncate on table public.spam_senders from anon;
revoke update on table public.spam_senders from anon;
revoke update on table public.spam_senders from authenticated;

-- Added by hand (db diff doesn't see data): tickets 30 days in Trash are deleted for good, checked every
-- minute (supabase/schemas/80_email.sql, 54_spam_trash_split.sql).
select cron.schedule('purge-trash', '* * * * *', 'select private.purge_trash()');
