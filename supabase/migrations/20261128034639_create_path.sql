drop trigger if exists "tickets_sla" on "public"."tickets";

drop index if exists "public"."ticket_sla_due_idx";

CREATE INDEX ticket_sla_due_idx ON public.ticket_sla USING btree (workspace_id, due_at, ticket_id) WHERE (due_at IS NOT NULL);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.by_rules(p_ticket_id uuid, p_mark bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.ticket_events set actor_id = null where ticket_id = p_ticket_id and id > p_mark and actor_id is not null;
  update public.notifications set actor_id = null
   where ticket_id = p_ticket_id and kind = 'assigned' and created_at = now() and actor_id is not distinct from auth.uid();
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_start(p_ticket_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not exists (select 1 from public.ticket_sla s where s.ticket_id = p_ticket_id) then
    perform private.sla_refresh(p_ticket_id);
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_fire(r rules, p_ticket_id uuid, p_event_key text, p_body text)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  a jsonb;
begin
  select * into t from public.tickets where id = p_ticket_id for no key update;
  if t.id is null or t.status = 'closed' or not private.rule_matches(r, t, p_body) then
    return false;
  end if;
  insert into public.rule_firings (rule_id, ticket_id, workspace_id, event_key) values (r.id, t.id, t.workspace_id, p_event_key)
  on conflict do nothing;
  if not found then
    return false;
  end if;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to") values (t.id, t.workspace_id, null, 'rule', r.name);
  for a in select j.v from jsonb_array_elements(r.actions) j(v) loop
    perform private.rule_act(r, t.id, a);
  end loop;
  return true;
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
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.run_rules(p_ticket_id uuid, p_event text, p_event_key text)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  r public.rules;
  body text;
  mark bigint;
  n integer := 0;
begin
  for r in select x.* from public.rules x
            where x.workspace_id = (select t.workspace_id from public.tickets t where t.id = p_ticket_id)
              and x.event = p_event and x.enabled
            order by x.position, x.id loop
    -- The body is read once, and only for a rule whose conditions look at it.
    if body is null and r.conditions @> '[{"field": "body"}]' then
      body := private.rule_body(p_ticket_id, p_event);
    end if;
    -- Where the history stood before the first rule, when someone's request runs them.
    if mark is null and auth.uid() is not null then
      select coalesce(max(e.id), 0) into mark from public.ticket_events e where e.ticket_id = p_ticket_id;
    end if;
    if private.rule_fire(r, p_ticket_id, p_event_key, body) then
      n := n + 1;
    end if;
  end loop;
  if n > 0 and mark is not null then
    perform private.by_rules(p_ticket_id, mark);
  end if;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION private.sla_ticket_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  -- Named in the update without a change (a message's bookkeeping sets first_response_at to itself): the
  -- promise is as it was (docs/decisions/069-rules-cost.md).
  if (new.status, new.priority, new.first_response_at, new.spam_at, new.trashed_at)
     is not distinct from (old.status, old.priority, old.first_response_at, old.spam_at, old.trashed_at) then
    return null;
  end if;
  perform private.sla_refresh(new.id,
    case when old.first_response_at is null and new.first_response_at is not null then 'first_response'
         when new.status = 'solved' and old.status not in ('solved', 'closed') then 'resolution'
    end::public.sla_target,
    case when old.first_response_at is null then coalesce(new.first_response_at, now()) else now() end);
  return null;
end $function$
;

CREATE TRIGGER tickets_sla AFTER UPDATE OF status, priority, first_response_at, spam_at, trashed_at ON public.tickets FOR EACH ROW EXECUTE FUNCTION private.sla_ticket_changed();

revoke execute on function private.by_rules(p_ticket_id uuid, p_mark bigint) from public;
revoke execute on function private.sla_start(p_ticket_id uuid) from public;
