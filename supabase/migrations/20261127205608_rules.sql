-- Moved by hand before the table whose check calls it (migra orders functions after tables).
CREATE OR REPLACE FUNCTION private.rule_shape_problem(p_conditions jsonb, p_actions jsonb)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  uuid_re constant text := '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
  e jsonb;
  v text;
  text_field boolean;
begin
  if jsonb_typeof(p_conditions) is distinct from 'array' or jsonb_array_length(p_conditions) > 5 then
    return 'conditions';
  end if;
  if jsonb_typeof(p_actions) is distinct from 'array' or jsonb_array_length(p_actions) not between 1 and 5 then
    return 'actions';
  end if;
  for e in select j.v from jsonb_array_elements(p_conditions) j(v) loop
    v := case when jsonb_typeof(e) = 'object' then e ->> 'value' end;
    text_field := e ->> 'field' in ('subject', 'body');
    if v is null or char_length(v) not between 1 and 200
       or not coalesce(e ->> 'op' = any (case when text_field then array['contains', 'not_contains'] else array['is', 'is_not'] end), false)
       or not coalesce(case e ->> 'field'
         when 'subject' then btrim(v, ' ,') <> ''
         when 'body' then btrim(v, ' ,') <> ''
         when 'requester_email' then v ~ '^[^@\s]+@[^@\s]+$'
         when 'requester_domain' then v ~ '^[^@\s]+\.[^@\s]+$'
         when 'priority' then v in ('low', 'normal', 'high', 'urgent')
         when 'status' then v = any (enum_range(null::public.ticket_status)::text[])
         when 'tag' then v ~ uuid_re
         when 'assignee' then v = 'none' or v ~ uuid_re
         when 'channel' then v in ('portal', 'email')
       end, false) then
      return 'condition';
    end if;
  end loop;
  for e in select j.v from jsonb_array_elements(p_actions) j(v) loop
    v := case when jsonb_typeof(e) = 'object' then e ->> 'value' end;
    if not coalesce(case e ->> 'type'
         when 'set_priority' then v in ('low', 'normal', 'high', 'urgent')
         -- What an agent may set by hand (closing is Tend's, after 7 days).
         when 'set_status' then v in ('open', 'pending', 'solved')
         when 'assign' then v ~ uuid_re
         when 'assign_auto' then v is null
         when 'add_tag' then v ~ uuid_re
         when 'send_reply' then v ~ uuid_re
         when 'add_note' then char_length(btrim(v)) between 1 and 5000
         when 'notify' then v = 'assignee' or v ~ uuid_re
       end, false) then
      return 'action';
    end if;
  end loop;
  return null;
end $function$
;

alter table "public"."ticket_events" drop constraint "ticket_events_type_check";


  create table "public"."rule_firings" (
    "rule_id" uuid not null,
    "ticket_id" uuid not null,
    "workspace_id" uuid not null,
    "event_key" text not null,
    "fired_at" timestamp with time zone not null default now()
      );


alter table "public"."rule_firings" enable row level security;


  create table "public"."rule_waits" (
    "ticket_id" uuid not null,
    "rule_id" uuid not null,
    "since" timestamp with time zone not null
      );


alter table "public"."rule_waits" enable row level security;


  create table "public"."rules" (
    "id" uuid not null default gen_random_uuid(),
    "workspace_id" uuid not null,
    "name" text not null,
    "position" integer not null default 0,
    "enabled" boolean not null default true,
    "event" text not null,
    "wait_status" ticket_status,
    "wait_hours" integer,
    "match_all" boolean not null default true,
    "conditions" jsonb not null default '[]'::jsonb,
    "actions" jsonb not null,
    "created_by" uuid default auth.uid(),
    "created_at" timestamp with time zone not null default now(),
    "updated_by" uuid,
    "updated_at" timestamp with time zone
      );


alter table "public"."rules" enable row level security;

CREATE UNIQUE INDEX rule_firings_pkey ON public.rule_firings USING btree (rule_id, ticket_id, event_key);

CREATE INDEX rule_firings_ticket_idx ON public.rule_firings USING btree (ticket_id);

CREATE INDEX rule_firings_workspace_idx ON public.rule_firings USING btree (workspace_id);

CREATE INDEX rule_waits_due_idx ON public.rule_waits USING btree (rule_id, since);

CREATE UNIQUE INDEX rule_waits_pkey ON public.rule_waits USING btree (ticket_id, rule_id);

CREATE INDEX rules_created_by_idx ON public.rules USING btree (created_by);

CREATE UNIQUE INDEX rules_name_key ON public.rules USING btree (workspace_id, lower(name));

CREATE UNIQUE INDEX rules_pkey ON public.rules USING btree (id);

CREATE INDEX rules_run_idx ON public.rules USING btree (workspace_id, event, "position") WHERE enabled;

CREATE INDEX rules_updated_by_idx ON public.rules USING btree (updated_by);

alter table "public"."rule_firings" add constraint "rule_firings_pkey" PRIMARY KEY using index "rule_firings_pkey";

alter table "public"."rule_waits" add constraint "rule_waits_pkey" PRIMARY KEY using index "rule_waits_pkey";

alter table "public"."rules" add constraint "rules_pkey" PRIMARY KEY using index "rules_pkey";

alter table "public"."rule_firings" add constraint "rule_firings_rule_id_fkey" FOREIGN KEY (rule_id) REFERENCES rules(id) ON DELETE CASCADE not valid;

alter table "public"."rule_firings" validate constraint "rule_firings_rule_id_fkey";

alter table "public"."rule_firings" add constraint "rule_firings_ticket_id_fkey" FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE not valid;

alter table "public"."rule_firings" validate constraint "rule_firings_ticket_id_fkey";

alter table "public"."rule_firings" add constraint "rule_firings_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."rule_firings" validate constraint "rule_firings_workspace_id_fkey";

alter table "public"."rule_waits" add constraint "rule_waits_rule_id_fkey" FOREIGN KEY (rule_id) REFERENCES rules(id) ON DELETE CASCADE not valid;

alter table "public"."rule_waits" validate constraint "rule_waits_rule_id_fkey";

alter table "public"."rule_waits" add constraint "rule_waits_ticket_id_fkey" FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE not valid;

alter table "public"."rule_waits" validate constraint "rule_waits_ticket_id_fkey";

alter table "public"."rules" add constraint "rules_created_by_fkey" FOREIGN KEY (created_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."rules" validate constraint "rules_created_by_fkey";

alter table "public"."rules" add constraint "rules_event_check" CHECK ((event = ANY (ARRAY['ticket_created'::text, 'customer_replied'::text, 'ticket_waited'::text]))) not valid;

alter table "public"."rules" validate constraint "rules_event_check";

alter table "public"."rules" add constraint "rules_name_check" CHECK (((char_length(name) >= 1) AND (char_length(name) <= 80))) not valid;

alter table "public"."rules" validate constraint "rules_name_check";

alter table "public"."rules" add constraint "rules_shape" CHECK ((private.rule_shape_problem(conditions, actions) IS NULL)) not valid;

alter table "public"."rules" validate constraint "rules_shape";

alter table "public"."rules" add constraint "rules_updated_by_fkey" FOREIGN KEY (updated_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."rules" validate constraint "rules_updated_by_fkey";

alter table "public"."rules" add constraint "rules_wait" CHECK (COALESCE(
CASE
    WHEN (event = 'ticket_waited'::text) THEN ((wait_status <> 'closed'::ticket_status) AND ((wait_hours >= 1) AND (wait_hours <= 1000)))
    ELSE ((wait_status IS NULL) AND (wait_hours IS NULL))
END, false)) not valid;

alter table "public"."rules" validate constraint "rules_wait";

alter table "public"."rules" add constraint "rules_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."rules" validate constraint "rules_workspace_id_fkey";

alter table "public"."ticket_events" add constraint "ticket_events_type_check" CHECK ((type = ANY (ARRAY['created'::text, 'status'::text, 'assignee'::text, 'priority'::text, 'tag_added'::text, 'tag_removed'::text, 'snoozed'::text, 'unsnoozed'::text, 'sla_breach'::text, 'merged_into'::text, 'merged_from'::text, 'rule'::text]))) not valid;

alter table "public"."ticket_events" validate constraint "ticket_events_type_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.business_minutes_before(p_workspace_id uuid, p_at timestamp with time zone, p_minutes numeric)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  remaining numeric := p_minutes * 60;
  window_end timestamptz := p_at;
  window_start timestamptz;
  p record;
  len numeric;
begin
  if remaining <= 0 then
    return p_at;
  end if;
  for i in 1..46 loop
    window_start := window_end - make_interval(secs => 8 * 86400);
    for p in select * from private.business_periods(p_workspace_id, window_start, window_end) x order by x.opens_at desc loop
      len := extract(epoch from p.closes_at - p.opens_at);
      if len >= remaining then
        return p.closes_at - make_interval(secs => remaining::double precision);
      end if;
      remaining := remaining - len;
    end loop;
    window_end := window_start;
  end loop;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.fill_placeholders(p_body text, t tickets, p_agent_id uuid)
 RETURNS text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ws_name text := (select w.name from public.workspaces w where w.id = t.workspace_id);
  requester record;
  agent record;
  parts text[] := regexp_split_to_array(p_body, '\{\{[^{}]*\}\}');
  names text[] := array(select btrim(m.match[1], ' ') from regexp_matches(p_body, '\{\{([^{}]*)\}\}', 'g') with ordinality m(match, n) order by m.n);
  wholes text[] := array(select m.match[1] from regexp_matches(p_body, '(\{\{[^{}]*\}\})', 'g') with ordinality m(match, n) order by m.n);
  result text := parts[1];
begin
  select nullif(btrim(p.display_name), '') as name, btrim(u.email) as email into requester
    from auth.users u left join public.profiles p on p.user_id = u.id where u.id = t.requester_id;
  select nullif(btrim(p.display_name), '') as name, btrim(u.email) as email into agent
    from auth.users u left join public.profiles p on p.user_id = u.id where u.id = p_agent_id;
  for i in 1..coalesce(array_length(names, 1), 0) loop
    result := result || coalesce(case names[i]
      when 'requester.name' then coalesce(requester.name, nullif(btrim(split_part(coalesce(requester.email, ''), '@', 1)), ''), 'there')
      when 'requester.email' then coalesce(requester.email, '')
      when 'agent.name' then coalesce(agent.name, nullif(btrim(split_part(coalesce(agent.email, ''), '@', 1)), ''), 'the ' || ws_name || ' team')
      when 'ticket.number' then t.number::text
      when 'ticket.subject' then t.subject
      when 'workspace.name' then ws_name
    end, wholes[i]) || parts[i + 1];
  end loop;
  return result;
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
  case a ->> 'type'
    when 'set_priority' then
      update public.tickets set priority = v::public.ticket_priority where id = t.id and priority <> v::public.ticket_priority;
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

CREATE OR REPLACE FUNCTION private.rule_body(p_ticket_id uuid, p_event text)
 RETURNS text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p_event = 'ticket_created' then
    return (select m.body from public.messages m where m.ticket_id = p_ticket_id order by m.created_at, m.id limit 1);
  end if;
  return (select m.body from public.messages m join public.tickets t on t.id = m.ticket_id
           where m.ticket_id = p_ticket_id and m.kind = 'reply'
             and not exists (select 1 from public.memberships x where x.workspace_id = t.workspace_id and x.user_id = m.author_id)
           order by m.created_at desc, m.id desc limit 1);
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_check()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  e jsonb;
  v text;
  kind text;
begin
  if tg_op = 'INSERT' then
    if (select count(*) from public.rules r where r.workspace_id = new.workspace_id) >= 50 then
      raise exception using errcode = 'P0001', message = 'rule_limit', detail = new.workspace_id::text;
    end if;
    new.position := coalesce((select max(r.position) + 1 from public.rules r where r.workspace_id = new.workspace_id), 0);
  else
    new.updated_by := auth.uid();
    new.updated_at := now();
  end if;
  for e in select j.v from jsonb_array_elements(case when jsonb_typeof(new.conditions) = 'array' then new.conditions else '[]' end) j(v)
           union all
           select j.v from jsonb_array_elements(case when jsonb_typeof(new.actions) = 'array' then new.actions else '[]' end) j(v) loop
    continue when jsonb_typeof(e) <> 'object';
    v := e ->> 'value';
    kind := coalesce(e ->> 'type', e ->> 'field');
    if kind in ('tag', 'add_tag')
       and not exists (select 1 from public.tags g where g.workspace_id = new.workspace_id and g.id::text = v) then
      raise exception using errcode = 'P0001', message = 'rule_tag_unknown', detail = v;
    elsif kind in ('assignee', 'assign', 'notify') and v not in ('none', 'assignee')
       and not exists (select 1 from public.memberships m where m.workspace_id = new.workspace_id and m.user_id::text = v) then
      raise exception using errcode = 'P0001', message = 'rule_agent_unknown', detail = v;
    elsif kind = 'send_reply'
       and not exists (select 1 from public.canned_replies c where c.workspace_id = new.workspace_id and c.id::text = v) then
      raise exception using errcode = 'P0001', message = 'rule_reply_unknown', detail = v;
    end if;
  end loop;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_condition_holds(t tickets, p_body text, c jsonb)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v text := c ->> 'value';
  email text;
  holds boolean;
begin
  case c ->> 'field'
    when 'subject' then holds := private.rule_words_match(t.subject, v);
    when 'body' then holds := private.rule_words_match(p_body, v);
    when 'requester_email', 'requester_domain' then
      select lower(u.email) into email from auth.users u where u.id = t.requester_id;
      holds := case when c ->> 'field' = 'requester_email' then email = lower(v) else split_part(email, '@', 2) = lower(v) end;
    when 'priority' then holds := t.priority::text = v;
    when 'status' then holds := t.status::text = v;
    when 'tag' then holds := exists (select 1 from public.ticket_tags tt where tt.ticket_id = t.id and tt.tag_id = v::uuid);
    when 'assignee' then holds := coalesce(t.assignee_id::text, 'none') = v;
    when 'channel' then holds := private.ticket_channel(t) = v;
    else holds := false;
  end case;
  holds := coalesce(holds, false);
  return case when c ->> 'op' in ('is_not', 'not_contains') then not holds else holds end;
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
  mark bigint;
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
  select coalesce(max(e.id), 0) into mark from public.ticket_events e where e.ticket_id = t.id;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to") values (t.id, t.workspace_id, null, 'rule', r.name);
  for a in select j.v from jsonb_array_elements(r.actions) j(v) loop
    perform private.rule_act(r, t.id, a);
  end loop;
  update public.ticket_events set actor_id = null where ticket_id = t.id and id > mark and actor_id is not null;
  update public.notifications set actor_id = null
   where ticket_id = t.id and kind = 'assigned' and created_at = now() and actor_id is not distinct from auth.uid();
  return true;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_matches(r rules, t tickets, p_body text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  c jsonb;
begin
  if jsonb_array_length(r.conditions) = 0 then
    return true;
  end if;
  for c in select j.v from jsonb_array_elements(r.conditions) j(v) loop
    if private.rule_condition_holds(t, p_body, c) <> r.match_all then
      return not r.match_all;
    end if;
  end loop;
  return r.match_all;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_voice(r rules, t tickets)
 RETURNS uuid
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return coalesce(t.assignee_id,
    (select m.user_id from public.memberships m
      where m.workspace_id = t.workspace_id and m.user_id = coalesce(r.updated_by, r.created_by)));
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_waits_follow()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  now_status public.ticket_status;
begin
  if tg_op = 'UPDATE' and new.status = old.status then
    return null;
  end if;
  select t.status into now_status from public.tickets t where t.id = new.id;
  delete from public.rule_waits where ticket_id = new.id;
  insert into public.rule_waits (ticket_id, rule_id, since)
  select new.id, r.id, private.status_since(new.id) from public.rules r
   where r.workspace_id = new.workspace_id and r.event = 'ticket_waited' and r.enabled and r.wait_status = now_status;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_waits_reset()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'UPDATE' then
    if (new.enabled, new.event, new.wait_status) is not distinct from (old.enabled, old.event, old.wait_status) then
      return null;
    end if;
    delete from public.rule_waits where rule_id = new.id;
  end if;
  if new.enabled and new.event = 'ticket_waited' then
    insert into public.rule_waits (ticket_id, rule_id, since)
    select t.id, new.id, private.status_since(t.id) from public.tickets t
     where t.workspace_id = new.workspace_id and t.status = new.wait_status;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.rule_words_match(p_text text, p_words text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  doc tsvector := to_tsvector('english', coalesce(p_text, ''));
begin
  return exists (select 1 from regexp_split_to_table(p_words, '\s*,\s*') w(word)
                  where btrim(w.word) <> '' and doc @@ phraseto_tsquery('english', w.word));
end $function$
;

CREATE OR REPLACE FUNCTION private.rules_on_customer_reply()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ws uuid;
begin
  ws := (select t.workspace_id from public.tickets t where t.id = new.ticket_id);
  if auth.role() is null
     or exists (select 1 from public.memberships m where m.workspace_id = ws and m.user_id = new.author_id)
     or not exists (select 1 from public.messages m where m.ticket_id = new.ticket_id and (m.created_at, m.id) < (new.created_at, new.id)) then
    return null;
  end if;
  perform private.run_rules(new.ticket_id, 'customer_replied', new.id::text);
  return null;
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
  n integer := 0;
begin
  for r in select x.* from public.rules x
            where x.workspace_id = (select t.workspace_id from public.tickets t where t.id = p_ticket_id)
              and x.event = p_event and x.enabled
            order by x.position, x.id loop
    body := coalesce(body, private.rule_body(p_ticket_id, p_event));
    if private.rule_fire(r, p_ticket_id, p_event_key, body) then
      n := n + 1;
    end if;
  end loop;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION private.status_since(p_ticket_id uuid)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return coalesce((select max(e.created_at) from public.ticket_events e
                    where e.ticket_id = p_ticket_id and e.type in ('created', 'status')),
                  (select t.created_at from public.tickets t where t.id = p_ticket_id));
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_channel(t tickets)
 RETURNS text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return case when exists (select 1 from public.inbound_emails e where e.ticket_id = t.id and e.outcome in ('request', 'follow_up'))
                or (select m.author_id from public.messages m where m.ticket_id = t.id order by m.created_at, m.id limit 1)
                   is distinct from t.requester_id
              then 'email' else 'portal' end;
end $function$
;

CREATE OR REPLACE FUNCTION public.move_rule(p_rule_id uuid, p_up boolean)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  ids uuid[];
  i integer;
  j integer;
begin
  select r.workspace_id into ws from public.rules r where r.id = p_rule_id;
  if ws is null or not private.is_admin(ws) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'rule';
  end if;
  ids := array(select r.id from public.rules r where r.workspace_id = ws order by r.position, r.id);
  i := array_position(ids, p_rule_id);
  j := case when p_up then i - 1 else i + 1 end;
  if j between 1 and array_length(ids, 1) then
    ids[i] := ids[j];
    ids[j] := p_rule_id;
  end if;
  update public.rules r set position = array_position(ids, r.id) - 1
   where r.workspace_id = ws and r.position is distinct from array_position(ids, r.id) - 1;
end $function$
;

CREATE OR REPLACE FUNCTION public.rule_preview(p_workspace_id uuid, p_event text, p_match_all boolean, p_conditions jsonb, p_wait_status ticket_status DEFAULT NULL::ticket_status, p_wait_hours integer DEFAULT NULL::integer)
 RETURNS TABLE(id uuid, number integer, subject text, status ticket_status, last_message_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  r public.rules;
  t public.tickets;
  n integer := 0;
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if private.rule_shape_problem(p_conditions, '[{"type": "assign_auto"}]') is not null
     or not coalesce(p_event = any (array['ticket_created', 'customer_replied', 'ticket_waited']), false)
     or (p_event = 'ticket_waited' and (p_wait_status is null or p_wait_hours is null or p_wait_hours not between 1 and 1000)) then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'rule';
  end if;
  r.match_all := coalesce(p_match_all, true);
  r.conditions := p_conditions;
  for t in select x.* from public.tickets x where x.workspace_id = p_workspace_id
            order by x.last_message_at desc, x.id desc limit 2000 loop
    continue when p_event = 'ticket_waited'
      and (t.status <> p_wait_status
           or private.business_minutes_between(p_workspace_id, private.status_since(t.id), now()) < p_wait_hours * 60);
    if private.rule_matches(r, t, private.rule_body(t.id, p_event)) then
      id := t.id; number := t.number; subject := t.subject; status := t.status; last_message_at := t.last_message_at;
      return next;
      n := n + 1;
      exit when n = 20;
    end if;
  end loop;
end $function$
;

CREATE OR REPLACE FUNCTION public.run_waiting_rules()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  r public.rules;
  w public.rule_waits;
  due timestamptz;
  n integer := 0;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  if auth.role() is null then
    perform set_config('request.jwt.claims', '{"role": "service_role"}', true);
  end if;
  for r in select x.* from public.rules x where x.event = 'ticket_waited' and x.enabled order by x.workspace_id, x.position, x.id loop
    -- A rule being edited right now (its waits about to be replaced) waits for the next run.
    perform 1 from public.rules x where x.id = r.id for share skip locked;
    continue when not found;
    due := private.business_minutes_before(r.workspace_id, now(), r.wait_hours * 60);
    continue when due is null;
    for w in select x.* from public.rule_waits x where x.rule_id = r.id and x.since <= due
              order by x.since limit 1000 - n loop
      -- The ticket first, as a status change takes it before its waits: no deadlock with one. Held by
      -- someone now, or its wait gone meanwhile (a status change, another run): the next run looks.
      perform 1 from public.tickets t where t.id = w.ticket_id for no key update skip locked;
      continue when not found;
      delete from public.rule_waits x where x.ticket_id = w.ticket_id and x.rule_id = w.rule_id and x.since = w.since;
      continue when not found;
      -- The stint, by its start as a number: the same in every session's time zone.
      perform private.rule_fire(r, w.ticket_id, 'waited:' || extract(epoch from w.since)::text,
                                private.rule_body(w.ticket_id, 'ticket_waited'));
      n := n + 1;
    end loop;
    exit when n >= 1000;
  end loop;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION private.notification_kinds()
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select array['new_request', 'assigned', 'customer_reply', 'mention', 'sla_warning', 'rule']
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
  -- now() is the transaction's start: rows made by this transaction share it. A rule's call (95_rules.sql)
  -- is an admin's standing order: it is heard even after another notice of the same change.
  if p_ticket_id is not null and p_kind <> 'rule' and exists (
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


  create policy "members read their workspace's rule firings"
  on "public"."rule_firings"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "admins add rules"
  on "public"."rules"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins delete rules"
  on "public"."rules"
  as permissive
  for delete
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins edit rules"
  on "public"."rules"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)))
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "members read their workspace's rules"
  on "public"."rules"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));


CREATE CONSTRAINT TRIGGER messages_rules AFTER INSERT ON public.messages DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((new.kind = 'reply'::text)) EXECUTE FUNCTION private.rules_on_customer_reply();

CREATE TRIGGER rules_check BEFORE INSERT OR UPDATE OF name, event, wait_status, wait_hours, match_all, conditions, actions ON public.rules FOR EACH ROW EXECUTE FUNCTION private.rule_check();

CREATE TRIGGER rules_waits AFTER INSERT OR UPDATE OF enabled, event, wait_status ON public.rules FOR EACH ROW EXECUTE FUNCTION private.rule_waits_reset();

CREATE TRIGGER tickets_rule_waits AFTER INSERT OR UPDATE OF status ON public.tickets FOR EACH ROW EXECUTE FUNCTION private.rule_waits_follow();

CREATE CONSTRAINT TRIGGER tickets_rules AFTER INSERT ON public.tickets DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION private.rules_on_ticket_created();

grant delete on table public.rule_firings to service_role;
grant delete on table public.rule_waits to service_role;
grant delete on table public.rules to authenticated;
grant delete on table public.rules to service_role;
grant execute on function private.rule_shape_problem(p_conditions jsonb, p_actions jsonb) to authenticated;
grant execute on function private.rule_shape_problem(p_conditions jsonb, p_actions jsonb) to service_role;
grant execute on function public.move_rule(p_rule_id uuid, p_up boolean) to authenticated;
grant execute on function public.move_rule(p_rule_id uuid, p_up boolean) to service_role;
grant execute on function public.rule_preview(p_workspace_id uuid, p_event text, p_match_all boolean, p_conditions jsonb, p_wait_status ticket_status, p_wait_hours integer) to authenticated;
grant execute on function public.rule_preview(p_workspace_id uuid, p_event text, p_match_all boolean, p_conditions jsonb, p_wait_status ticket_status, p_wait_hours integer) to service_role;
grant execute on function public.run_waiting_rules() to service_role;
grant insert (actions) on table public.rules to authenticated;
grant insert (conditions) on table public.rules to authenticated;
grant insert (enabled) on table public.rules to authenticated;
grant insert (event) on table public.rules to authenticated;
grant insert (match_all) on table public.rules to authenticated;
grant insert (name) on table public.rules to authenticated;
grant insert (wait_hours) on table public.rules to authenticated;
grant insert (wait_status) on table public.rules to authenticated;
grant insert (workspace_id) on table public.rules to authenticated;
grant insert on table public.rule_firings to service_role;
grant insert on table public.rule_waits to service_role;
grant insert on table public.rules to service_role;
grant maintain on table public.rule_firings to authenticated;
grant maintain on table public.rule_firings to service_role;
grant maintain on table public.rule_waits to service_role;
grant maintain on table public.rules to authenticated;
grant maintain on table public.rules to service_role;
grant references on table public.rule_firings to authenticated;
grant references on table public.rule_firings to service_role;
grant references on table public.rule_waits to service_role;
grant references on table public.rules to authenticated;
grant references on table public.rules to service_role;
grant select on table public.rule_firings to authenticated;
grant select on table public.rule_firings to service_role;
grant select on table public.rule_waits to service_role;
grant select on table public.rules to authenticated;
grant select on table public.rules to service_role;
grant trigger on table public.rule_firings to authenticated;
grant trigger on table public.rule_firings to service_role;
grant trigger on table public.rule_waits to service_role;
grant trigger on table public.rules to authenticated;
grant trigger on table public.rules to service_role;
grant truncate on table public.rule_firings to authenticated;
grant truncate on table public.rule_firings to service_role;
grant truncate on table public.rule_waits to service_role;
grant truncate on table public.rules to authenticated;
grant truncate on table public.rules to service_role;
grant update ("position") on table public.rules to authenticated;
grant update (actions) on table public.rules to authenticated;
grant update (conditions) on table public.rules to authenticated;
grant update (enabled) on table public.rules to authenticated;
grant update (event) on table public.rules to authenticated;
grant update (match_all) on table public.rules to authenticated;
grant update (name) on table public.rules to authenticated;
grant update (wait_hours) on table public.rules to authenticated;
grant update (wait_status) on table public.rules to authenticated;
grant update on table public.rule_firings to service_role;
grant update on table public.rule_waits to service_role;
grant update on table public.rules to service_role;

revoke delete on table public.rule_firings from anon;
revoke delete on table public.rule_firings from authenticated;
revoke delete on table public.rule_waits from anon;
revoke delete on table public.rule_waits from authenticated;
revoke delete on table public.rules from anon;
revoke execute on function private.business_minutes_before(p_workspace_id uuid, p_at timestamp with time zone, p_minutes numeric) from public;
revoke execute on function private.fill_placeholders(p_body text, t tickets, p_agent_id uuid) from public;
revoke execute on function private.rule_act(r rules, p_ticket_id uuid, a jsonb) from public;
revoke execute on function private.rule_body(p_ticket_id uuid, p_event text) from public;
revoke execute on function private.rule_check() from public;
revoke execute on function private.rule_condition_holds(t tickets, p_body text, c jsonb) from public;
revoke execute on function private.rule_fire(r rules, p_ticket_id uuid, p_event_key text, p_body text) from public;
revoke execute on function private.rule_matches(r rules, t tickets, p_body text) from public;
revoke execute on function private.rule_shape_problem(p_conditions jsonb, p_actions jsonb) from public;
revoke execute on function private.rule_voice(r rules, t tickets) from public;
revoke execute on function private.rule_waits_follow() from public;
revoke execute on function private.rule_waits_reset() from public;
revoke execute on function private.rule_words_match(p_text text, p_words text) from public;
revoke execute on function private.rules_on_customer_reply() from public;
revoke execute on function private.rules_on_ticket_created() from public;
revoke execute on function private.run_rules(p_ticket_id uuid, p_event text, p_event_key text) from public;
revoke execute on function private.status_since(p_ticket_id uuid) from public;
revoke execute on function private.ticket_channel(t tickets) from public;
revoke execute on function public.move_rule(p_rule_id uuid, p_up boolean) from anon;
revoke execute on function public.move_rule(p_rule_id uuid, p_up boolean) from public;
revoke execute on function public.rule_preview(p_workspace_id uuid, p_event text, p_match_all boolean, p_conditions jsonb, p_wait_status ticket_status, p_wait_hours integer) from anon;
revoke execute on function public.rule_preview(p_workspace_id uuid, p_event text, p_match_all boolean, p_conditions jsonb, p_wait_status ticket_status, p_wait_hours integer) from public;
revoke execute on function public.run_waiting_rules() from anon;
revoke execute on function public.run_waiting_rules() from authenticated;
revoke execute on function public.run_waiting_rules() from public;
revoke insert on table public.rule_firings from anon;
revoke insert on table public.rule_firings from authenticated;
revoke insert on table public.rule_waits from anon;
revoke insert on table public.rule_waits from authenticated;
revoke insert on table public.rules from anon;
revoke insert on table public.rules from authenticated;
revoke maintain on table public.rule_firings from anon;
revoke maintain on table public.rule_waits from anon;
revoke maintain on table public.rule_waits from authenticated;
revoke maintain on table public.rules from anon;
revoke references on table public.rule_firings from anon;
revoke references on table public.rule_waits from anon;
revoke references on table public.rule_waits from authenticated;
revoke references on table public.rules from anon;
revoke select on table public.rule_firings from anon;
revoke select on table public.rule_waits from anon;
revoke select on table public.rule_waits from authenticated;
revoke select on table public.rules from anon;
revoke trigger on table public.rule_firings from anon;
revoke trigger on table public.rule_waits from anon;
revoke trigger on table public.rule_waits from authenticated;
revoke trigger on table public.rules from anon;
revoke truncate on table public.rule_firings from anon;
revoke truncate on table public.rule_waits from anon;
revoke truncate on table public.rule_waits from authenticated;
revoke truncate on table public.rules from anon;
revoke update on table public.rule_firings from anon;
revoke update on table public.rule_firings from authenticated;
revoke update on table public.rule_waits from anon;
revoke update on table public.rule_waits from authenticated;
revoke update on table public.rules from anon;
revoke update on table public.rules from authenticated;

grant insert (actions) on table public.rules to authenticated;
grant insert (conditions) on table public.rules to authenticated;
grant insert (enabled) on table public.rules to authenticated;
grant insert (event) on table public.rules to authenticated;
grant insert (match_all) on table public.rules to authenticated;
grant insert (name) on table public.rules to authenticated;
grant insert (wait_hours) on table public.rules to authenticated;
grant insert (wait_status) on table public.rules to authenticated;
grant insert (workspace_id) on table public.rules to authenticated;
grant update ("position") on table public.rules to authenticated;
grant update (actions) on table public.rules to authenticated;
grant update (conditions) on table public.rules to authenticated;
grant update (enabled) on table public.rules to authenticated;
grant update (event) on table public.rules to authenticated;
grant update (match_all) on table public.rules to authenticated;
grant update (name) on table public.rules to authenticated;
grant update (wait_hours) on table public.rules to authenticated;
grant update (wait_status) on table public.rules to authenticated;

-- Added by hand (db diff doesn't see scheduled jobs): the waiting rules' sweep, every minute (95_rules.sql).
select cron.schedule('waiting-rules', '* * * * *', 'select public.run_waiting_rules()');
