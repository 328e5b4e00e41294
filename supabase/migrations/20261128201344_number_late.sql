create sequence "private"."provisional_ticket_numbers";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.number_ticket(p_ticket_id uuid)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  n integer;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.number > 0 then
    return t.number;
  end if;
  update public.workspaces set ticket_seq = ticket_seq + 1 where id = t.workspace_id returning ticket_seq into n;
  update public.tickets set number = n where id = p_ticket_id;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_counted(p_number integer, p_spam_at timestamp with time zone, p_trashed_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select p_number > 0 and p_spam_at is null and p_trashed_at is null
$function$
;

CREATE OR REPLACE FUNCTION private.assign_ticket_number()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  -- Bulk imports by the platform reserve a block of numbers themselves (scripts/seed-bulk.ts), and
  -- create_ticket's provisional number is its own (no API role inserts tickets).
  if new.number < 0 or (new.number is not null and private.is_system()) then
    return new;
  end if;
  update public.workspaces set ticket_seq = ticket_seq + 1 where id = new.workspace_id returning ticket_seq into new.number;
  if new.number is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION private.count_customer_tickets()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'DELETE' then
    update public.customers c set tickets = greatest(c.tickets - o.k, 0)
      from (select workspace_id, requester_id, count(*)::integer as k from old_tickets where number > 0 group by 1, 2) o
     where c.workspace_id = o.workspace_id and c.user_id = o.requester_id;
    return null;
  end if;
  if tg_level = 'ROW' then
    -- create_ticket's ticket, numbered at last.
    insert into public.customers as c (workspace_id, user_id, name, email, tickets, created_at)
    select new.workspace_id, new.requester_id, coalesce(p.display_name, 'Unknown'), coalesce(lower(u.email), ''), 1, new.created_at
      from auth.users u left join public.profiles p on p.user_id = u.id
     where u.id = new.requester_id
    on conflict (workspace_id, user_id) do update set tickets = c.tickets + excluded.tickets;
    return null;
  end if;
  insert into public.customers as c (workspace_id, user_id, name, email, tickets, created_at)
  select n.workspace_id, n.requester_id, coalesce(p.display_name, 'Unknown'), coalesce(lower(u.email), ''), n.k, n.first
    from (select workspace_id, requester_id, count(*)::integer as k, min(created_at) as first
            from new_tickets where number > 0 group by 1, 2) n
    left join public.profiles p on p.user_id = n.requester_id
    left join auth.users u on u.id = n.requester_id
   order by n.workspace_id, n.requester_id
  on conflict (workspace_id, user_id) do update set tickets = c.tickets + excluded.tickets;
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
      from (select n.workspace_id, private.report_slot(n.created_at) as slot, 1 as created, 0 as solved from new_tickets n where private.ticket_counted(n.number, n.spam_at, n.trashed_at)
            union all
            select n.workspace_id, private.report_slot(n.solved_at), 0, 1 from new_tickets n where private.ticket_counted(n.number, n.spam_at, n.trashed_at) and n.solved_at is not null) d
     group by 1, 2 order by 1, 2
    on conflict (workspace_id, slot) do update set created = s.created + excluded.created, solved = s.solved + excluded.solved;
    insert into private.report_durations as r (workspace_id, kind, span, day, bucket, tickets, seconds)
    select d.workspace_id, d.kind, p.span, p.day, private.report_bucket(d.seconds), count(*), sum(d.seconds)
      from (select n.workspace_id, 'first_response' as kind, n.first_response_at as at,
                   private.report_seconds(n.created_at, n.first_response_at) as seconds
              from new_tickets n where private.ticket_counted(n.number, n.spam_at, n.trashed_at) and n.first_response_at is not null
            union all
            select n.workspace_id, 'resolution', n.solved_at, private.report_seconds(n.created_at, n.solved_at)
              from new_tickets n where private.ticket_counted(n.number, n.spam_at, n.trashed_at) and n.solved_at is not null) d
      join public.workspaces w on w.id = d.workspace_id
      cross join lateral private.report_spans((d.at at time zone w.time_zone)::date) p
     group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (workspace_id, kind, span, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds;
  elsif tg_op = 'UPDATE' then
    -- Most updates (an assignment, a priority, a status short of solved, the latest message's time) move
    -- no rollup: one look at the changed rows, not the two upserts' queries (docs/decisions/069-rules-cost.md).
    -- As sets, not a join: under `exists` the planner joined the two tables by a nested loop, every new row
    -- against every old one (a bulk change of 1 000 tickets: a million pairs;
    -- docs/decisions/073-bulk-change-per-statement.md). `except` compares nulls as equal, as `is distinct from` does.
    if not exists (select n.id, n.created_at, n.solved_at, n.first_response_at, private.ticket_counted(n.number, n.spam_at, n.trashed_at)
                     from new_tickets n
                   except
                   select o.id, o.created_at, o.solved_at, o.first_response_at, private.ticket_counted(o.number, o.spam_at, o.trashed_at)
                     from old_tickets o) then
      return null;
    end if;
    -- A ticket in Spam or Trash counts nowhere (54_spam_trash_split.sql): its times are read as empty, so
    -- going there takes it out of the rollups and coming back puts it in again.
    insert into private.report_slots as s (workspace_id, slot, created, solved)
    with n as (select x.id, x.workspace_id, case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.created_at end as created_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.solved_at end as solved_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.first_response_at end as first_response_at from new_tickets x),
         o as (select x.id, x.workspace_id, case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.created_at end as created_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.solved_at end as solved_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.first_response_at end as first_response_at from old_tickets x)
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
    with n as (select x.id, x.workspace_id, case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.created_at end as created_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.solved_at end as solved_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.first_response_at end as first_response_at from new_tickets x),
         o as (select x.id, x.workspace_id, case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.created_at end as created_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.solved_at end as solved_at,
                    case when private.ticket_counted(x.number, x.spam_at, x.trashed_at) then x.first_response_at end as first_response_at from old_tickets x)
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
              from (select workspace_id, private.report_slot(created_at) as slot, 1 as created, 0 as solved from old_tickets where private.ticket_counted(number, spam_at, trashed_at)
                    union all
                    select workspace_id, private.report_slot(solved_at), 0, 1 from old_tickets where private.ticket_counted(number, spam_at, trashed_at) and solved_at is not null) o
             group by 1, 2) d
     where s.workspace_id = d.workspace_id and s.slot = d.slot;
    update private.report_durations r set tickets = r.tickets - d.tickets, seconds = r.seconds - d.seconds
      from (select o.workspace_id, o.kind, p.span, p.day, private.report_bucket(o.seconds) as bucket,
                   count(*) as tickets, sum(o.seconds) as seconds
              from (select workspace_id, 'first_response' as kind, first_response_at as at, private.report_seconds(created_at, first_response_at) as seconds
                      from old_tickets where private.ticket_counted(number, spam_at, trashed_at) and first_response_at is not null
                    union all
                    select workspace_id, 'resolution', solved_at, private.report_seconds(created_at, solved_at)
                      from old_tickets where private.ticket_counted(number, spam_at, trashed_at) and solved_at is not null) o
              join public.workspaces w on w.id = o.workspace_id
              cross join lateral private.report_spans((o.at at time zone w.time_zone)::date) p
             group by 1, 2, 3, 4, 5) d
     where r.workspace_id = d.workspace_id and r.kind = d.kind and r.span = d.span and r.day = d.day and r.bucket = d.bucket;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_act(r rules, p_ticket_id uuid, a jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  v text := a ->> 'value';
  voice uuid;
  body text;
begin
  select * into t from public.tickets where id = p_ticket_id;
  -- A new ticket is numbered before anyone hears of it: an action that may tell someone (an assignment and its
  -- notice, a notice, a reply or a note, a status) takes the number first (20_tickets.sql), so what it queues
  -- (an email) doesn't wait on the counter with it; a tag or a priority tells no one.
  if t.number < 0 and a ->> 'type' not in ('add_tag', 'set_priority') then
    t.number := private.number_ticket(t.id);
  end if;
  case a ->> 'type'
    when 'set_priority' then
      -- Not even a statement when it is that already: an update of no rows still runs the tickets' statement
      -- triggers (docs/decisions/090-create-path-cpu.md).
      if t.priority <> v::public.ticket_priority then
        update public.tickets set priority = v::public.ticket_priority where id = t.id;
      end if;
    when 'set_status' then
      begin
        -- As an agent changing it by hand (docs/product.md §4).
        perform private.change_status(t.id, v::public.ticket_status, 'agent', 'edit');
      exception when raise_exception then
        null;
      end;
    when 'assign' then
      if t.assignee_id is distinct from v::uuid
         and exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = v::uuid) then
        update public.tickets set assignee_id = v::uuid where id = t.id;
      end if;
    when 'assign_auto' then
      perform private.auto_assign(t.id);
    when 'add_tag' then
      insert into public.ticket_tags (ticket_id, tag_id, created_by)
      select t.id, g.id, null from public.tags g where g.id = v::uuid and g.workspace_id = t.workspace_id
      on conflict do nothing;
    when 'send_reply', 'add_note' then
      voice := private.rule_voice(r, t);
      body := case when a ->> 'type' = 'add_note' then v
                   else (select c.body from public.canned_replies c where c.id = v::uuid and c.workspace_id = t.workspace_id) end;
      if voice is not null and body is not null and t.status <> 'closed' then
        insert into public.messages (ticket_id, author_id, kind, body)
        values (t.id, voice, case when a ->> 'type' = 'add_note' then 'note' else 'reply' end, private.fill_placeholders(body, t, voice));
        -- The team's public reply opens a new ticket, as post_message's does.
        if a ->> 'type' = 'send_reply' and private.status_after_reply(t.status, 'agent') is not null then
          perform private.change_status(t.id, private.status_after_reply(t.status, 'agent'), 'agent', 'reply');
        end if;
      end if;
    when 'notify' then
      perform private.notify_member(t.workspace_id, case when v = 'assignee' then t.assignee_id else v::uuid end, 'rule', t.id, null, null);
  end case;
end $function$
;

CREATE OR REPLACE FUNCTION private.rules_on_ticket_created()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if auth.role() is not null then
    perform private.run_rules(new.id, 'ticket_created', 'created');
  end if;
  perform private.sla_start(new.id);
  perform private.number_ticket(new.id);
  perform private.assign_new(new.id);
  perform private.notify_request(new.id);
  return null;
end $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION public.create_ticket(p_workspace_slug text, p_subject text, p_body text, p_attachments jsonb DEFAULT NULL::jsonb, p_ticket_id uuid DEFAULT NULL::uuid, p_client_key uuid DEFAULT NULL::uuid)
 RETURNS TABLE(id uuid, number integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  t public.tickets;
  message_id uuid;
begin
  if auth.uid() is null then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'sign in first';
  end if;
  select w.id into ws from public.workspaces w where w.slug = p_workspace_slug;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  -- A form sent twice (double click, resubmitted POST) opens one request: the second gets the first.
  -- The lock queues concurrent sends of one form, so the look-up is exact.
  if p_client_key is not null then
    perform pg_advisory_xact_lock(hashtextextended(auth.uid()::text || p_client_key::text, 0));
    select * into t from public.tickets tk where tk.requester_id = auth.uid() and tk.client_key = p_client_key;
    if t.id is not null then
      return query select t.id, t.number;
      return;
    end if;
  end if;
  insert into public.tickets (id, workspace_id, number, requester_id, subject, client_key)
  values (coalesce(p_ticket_id, gen_random_uuid()), ws, -nextval('private.provisional_ticket_numbers'), auth.uid(),
          trim(p_subject), p_client_key) returning * into t;
  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), 'reply', p_body)
  returning public.messages.id into message_id;
  perform private.attach_files(message_id, p_attachments);
  -- What the commit would run for the new ticket runs now (its rules, SLA clocks, number, assignment and
  -- notices: private.rules_on_ticket_created), so the number is there to return. The last call of the
  -- request's transaction, so the same as at the commit.
  set constraints public.tickets_rules immediate;
  set constraints public.tickets_rules deferred;
  return query select t.id, tk.number from public.tickets tk where tk.id = t.id;
end $function$
;

CREATE TRIGGER tickets_customers_numbered AFTER UPDATE OF number ON public.tickets FOR EACH ROW WHEN (((old.number < 0) AND (new.number > 0))) EXECUTE FUNCTION private.count_customer_tickets();

revoke execute on function private.number_ticket(p_ticket_id uuid) from public;
revoke execute on function private.ticket_counted(p_number integer, p_spam_at timestamp with time zone, p_trashed_at timestamp with time zone) from public;
