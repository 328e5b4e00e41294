-- By hand: migra compares no storage parameters (supabase/schemas/20_tickets.sql; tests/integration/db-bulk.test.ts
-- holds the two equal). Pages filled before keep no room until their rows move.
alter table public.tickets set (fillfactor = 90);

drop trigger if exists "ticket_tags_history" on "public"."ticket_tags";

drop trigger if exists "tickets_history" on "public"."tickets";

drop trigger if exists "tickets_sla" on "public"."tickets";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.sla_tickets_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  -- One statement, not a loop over a cursor: planned for all its rows (a hash join), not for the first.
  perform private.sla_refresh(c.id, c.met, c.met_at)
     from (select n.id,
                  case when o.first_response_at is null and n.first_response_at is not null then 'first_response'
                       when n.status = 'solved' and o.status not in ('solved', 'closed') then 'resolution'
                  end::public.sla_target as met,
                  case when o.first_response_at is null then coalesce(n.first_response_at, now()) else now() end as met_at
             from new_tickets n join old_tickets o on o.id = n.id
            -- New and open run the same clocks: the opening of a new ticket by its assignment moves none.
            where ((n.status <> o.status and not (private.is_open(n.status) and private.is_open(o.status)))
                   or (n.priority, n.first_response_at, n.spam_at, n.trashed_at)
                      is distinct from (o.priority, o.first_response_at, o.spam_at, o.trashed_at))
              and (exists (select 1 from public.sla_targets g where g.workspace_id = n.workspace_id)
                   or exists (select 1 from public.ticket_sla s where s.ticket_id = n.id))
            order by n.id) c;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_changes_history()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  actor uuid := auth.uid();
begin
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to")
  select c.id, c.workspace_id, c.actor_id, c.type, c."from", c."to"
    from (select n.id, n.workspace_id, e.*
            from new_tickets n join old_tickets o on o.id = n.id
           cross join lateral (values
             (1, actor, 'assignee', o.assignee_id::text, n.assignee_id::text, n.assignee_id is distinct from o.assignee_id),
             (2, actor, 'priority', o.priority::text, n.priority::text, n.priority is distinct from o.priority),
             (3, actor, case when n.snoozed_until is null then 'unsnoozed' else 'snoozed' end, o.snoozed_until::text,
              n.snoozed_until::text, n.snoozed_until is distinct from o.snoozed_until),
             (4, nullif(actor, n.requester_id), case when n.spam_at is null then 'not_spam' else 'spam' end, null, null,
              (n.spam_at is null) <> (o.spam_at is null)),
             (5, actor, case when n.trashed_at is null then 'restored' else 'trashed' end, null, null,
              (n.trashed_at is null) <> (o.trashed_at is null))) e(k, actor_id, type, "from", "to", changed)
           where e.changed) c
   order by c.id, c.k;
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
    -- Most updates (an assignment, a priority, a status short of solved, the latest message's time) move
    -- no rollup: one look at the changed rows, not the two upserts' queries (docs/decisions/069-rules-cost.md).
    -- As sets, not a join: under `exists` the planner joined the two tables by a nested loop, every new row
    -- against every old one (a bulk change of 1 000 tickets: a million pairs;
    -- docs/decisions/073-bulk-change-per-statement.md). `except` compares nulls as equal, as `is distinct from` does.
    if not exists (select n.id, n.created_at, n.solved_at, n.first_response_at, n.spam_at is null, n.trashed_at is null
                     from new_tickets n
                   except
                   select o.id, o.created_at, o.solved_at, o.first_response_at, o.spam_at is null, o.trashed_at is null
                     from old_tickets o) then
      return null;
    end if;
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

CREATE OR REPLACE FUNCTION private.sla_ticket_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.sla_refresh(new.id, null, now());
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
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to") values (new.id, new.workspace_id, actor, 'status', old.status, new.status);
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_tag_history()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  select r.ticket_id, r.workspace_id, auth.uid(), case when tg_op = 'INSERT' then 'tag_added' else 'tag_removed' end, g.name
    from (select x.*, row_number() over () as i from changed_tags x) r
    join public.tags g on g.id = r.tag_id
   where exists (select 1 from public.tickets t where t.id = r.ticket_id)
   order by r.i;
  -- Not when this transaction changed the ticket already (its updated_at is now(): a new ticket a rule
  -- tags, a second tag): that change reloads the pages at the same commit.
  update public.tickets t set updated_at = now()
   where t.id in (select x.ticket_id from changed_tags x join public.tags g on g.id = x.tag_id) and t.updated_at <> now();
  return null;
end $function$
;

CREATE TRIGGER ticket_tags_history_removed AFTER DELETE ON public.ticket_tags REFERENCING OLD TABLE AS changed_tags FOR EACH STATEMENT EXECUTE FUNCTION private.ticket_tag_history();

CREATE TRIGGER tickets_history_changes AFTER UPDATE ON public.tickets REFERENCING OLD TABLE AS old_tickets NEW TABLE AS new_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.ticket_changes_history();

CREATE TRIGGER tickets_history_status AFTER UPDATE ON public.tickets FOR EACH ROW WHEN ((old.status IS DISTINCT FROM new.status)) EXECUTE FUNCTION private.ticket_history();

CREATE TRIGGER tickets_sla_changed AFTER UPDATE ON public.tickets REFERENCING OLD TABLE AS old_tickets NEW TABLE AS new_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.sla_tickets_changed();

CREATE TRIGGER ticket_tags_history AFTER INSERT ON public.ticket_tags REFERENCING NEW TABLE AS changed_tags FOR EACH STATEMENT EXECUTE FUNCTION private.ticket_tag_history();

CREATE TRIGGER tickets_history AFTER INSERT ON public.tickets FOR EACH ROW EXECUTE FUNCTION private.ticket_history();

CREATE TRIGGER tickets_sla AFTER INSERT ON public.tickets FOR EACH ROW EXECUTE FUNCTION private.sla_ticket_changed();

revoke execute on function private.sla_tickets_changed() from public;
revoke execute on function private.ticket_changes_history() from public;
