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
declare
  c record;
begin
  for c in
    select n.id,
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
     order by n.id
  loop
    perform private.sla_refresh(c.id, c.met, c.met_at);
  end loop;
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
