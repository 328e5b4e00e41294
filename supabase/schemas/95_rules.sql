-- Rules (issue 28 item 5; docs/product.md#rules; docs/decisions/061-rules.md): what admins tell Tend to do
-- by itself. *When* a ticket is created, a customer replies, or a ticket has waited N business hours in a
-- status; *if* all (or any) of its conditions hold; *then* its actions, in order. Rules run in the
-- database, in their order: event rules at the end of the transaction that made the event (deferred
-- triggers), waiting rules from the scheduler (pg_cron, every minute). Each firing is written once
-- (rule_firings) and named in the ticket's history; what a rule does makes no event that rules answer.

-- A rule's event is checked text, not an enum: the app's enums travel to every page's browser code
-- (database.types.ts's Constants), and the event list is the rules page's alone (app/lib/rules/terms.ts).

-- What a rule's conditions and actions may say, checked as a whole (a check constraint, so every writer
-- gets the same answer): the problem, or null when the shape is right. References (a tag, a member, a
-- canned reply of the workspace) are the trigger's to check (private.rule_check), as they can go away.
--   conditions: [{"field": "subject"|"body", "op": "contains"|"not_contains", "value": "refund, money back"},
--                {"field": "requester_email"|"requester_domain"|"priority"|"status"|"tag"|"assignee"|"channel",
--                 "op": "is"|"is_not", "value": …}]  at most 5
--   actions:    [{"type": "set_priority"|"set_status"|"assign"|"assign_auto"|"add_tag"|"send_reply"|"add_note"|"notify",
--                 "value": …}]  1 to 5
-- The same lists as app/lib/rules/terms.ts (a unit test holds them equal).
create function private.rule_shape_problem(p_conditions jsonb, p_actions jsonb) returns text
language plpgsql immutable set search_path = '' as $$
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
end $$;
-- Check constraints run as the writer.
revoke all on function private.rule_shape_problem(jsonb, jsonb) from public;
grant execute on function private.rule_shape_problem(jsonb, jsonb) to authenticated, service_role;

create table public.rules (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 80),
  -- The order rules run in (set by the database: last on creation, moved by move_rule).
  position integer not null default 0,
  enabled boolean not null default true,
  event text not null check (event in ('ticket_created', 'customer_replied', 'ticket_waited')),
  -- A waiting rule's status and business hours (workspaces' hours, docs/decisions/040-business-time-and-sla.md).
  wait_status public.ticket_status,
  wait_hours integer,
  -- All conditions, or any of them; none at all: every ticket.
  match_all boolean not null default true,
  conditions jsonb not null default '[]',
  actions jsonb not null,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz,
  constraint rules_wait check (coalesce(
    case when event = 'ticket_waited'
         then wait_status <> 'closed' and wait_hours between 1 and 1000
         else wait_status is null and wait_hours is null end, false)),
    constraint rules_shape check (private.rule_shape_problem(conditions, actions) is null)
);
-- One name per workspace, whatever its case: the history names the rule.
create unique index rules_name_key on public.rules (workspace_id, lower(name));
-- What runs on an event, in order.
create index rules_run_idx on public.rules (workspace_id, event, position) where enabled;
create index rules_created_by_idx on public.rules (created_by);
create index rules_updated_by_idx on public.rules (updated_by);

-- Each firing, once: per rule, ticket and event ('created', the customer's message id, or the waiting
-- stint 'waited:<since, epoch seconds>'). A second attempt for the same event finds its row and does nothing.
create table public.rule_firings (
  rule_id uuid not null references public.rules (id) on delete cascade,
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  event_key text not null,
  fired_at timestamptz not null default now(),
  primary key (rule_id, ticket_id, event_key)
);
create index rule_firings_ticket_idx on public.rule_firings (ticket_id);
create index rule_firings_workspace_idx on public.rule_firings (workspace_id);

-- The tickets each waiting rule watches: one row per enabled waiting rule and ticket in its status, since
-- the ticket entered it. A status change replaces the ticket's rows; a firing (or a look that found the
-- conditions false) removes its row, so a rule acts once per stint and the sweep reads only what is due.
create table public.rule_waits (
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  rule_id uuid not null references public.rules (id) on delete cascade,
  since timestamptz not null,
  primary key (ticket_id, rule_id)
);
create index rule_waits_due_idx on public.rule_waits (rule_id, since);

-- ---------------------------------------------------------------------------------------------
-- A rule's references belong to its workspace (a tag, a member, a canned reply), a workspace holds at
-- most 50 rules, a new rule goes last, and an edit is stamped. Before the check constraints: a value that
-- is not a uuid is compared as text, and the shape's check refuses it after.
create function private.rule_check() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
create trigger rules_check before insert or update of name, event, wait_status, wait_hours, match_all, conditions, actions
  on public.rules for each row execute function private.rule_check();

-- When a ticket entered its status: its latest status event (or its creation). Waiting rules count from here.
create function private.status_since(p_ticket_id uuid) returns timestamptz
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce((select max(e.created_at) from public.ticket_events e
                    where e.ticket_id = p_ticket_id and e.type in ('created', 'status')),
                  (select t.created_at from public.tickets t where t.id = p_ticket_id));
end $$;

-- A ticket enters a status: the waiting rules for that status start watching it (its earlier rows go).
-- After tickets_history (name order), so the status event this stint is counted from is written. The
-- status is read from the row as it is now, not NEW: a trigger that fired first may have changed it.
create function private.rule_waits_follow() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
create trigger tickets_rule_waits after insert or update of status on public.tickets
  for each row execute function private.rule_waits_follow();

-- A waiting rule made, switched on or pointed at another status watches the workspace's tickets in that
-- status from when each entered it; switched off, it watches nothing. A ticket that fired in this stint
-- already keeps its firing, so switching a rule off and on doesn't fire it twice.
create function private.rule_waits_reset() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
create trigger rules_waits after insert or update of enabled, event, wait_status on public.rules
  for each row execute function private.rule_waits_reset();

-- ---------------------------------------------------------------------------------------------
-- The instant N business minutes before t: the latest moment from which t is N business minutes away
-- (null if the workspace was closed for a whole year). business_minutes_add walked backwards
-- (90_promises.sql): a waiting rule is due for every ticket that entered its status by then.
create function private.business_minutes_before(p_workspace_id uuid, p_at timestamptz, p_minutes numeric)
returns timestamptz
language plpgsql stable security definer set search_path = '' as $$
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
end $$;

-- Whether any of the comma-separated words or phrases is in the text, as English words (refund finds
-- "refunds" and "refunded"; "money back" is a phrase). A word English ignores ("the") finds nothing.
create function private.rule_words_match(p_text text, p_words text) returns boolean
language plpgsql stable set search_path = '' as $$
declare
  doc tsvector := to_tsvector('english', coalesce(p_text, ''));
begin
  return exists (select 1 from regexp_split_to_table(p_words, '\s*,\s*') w(word)
                  where btrim(w.word) <> '' and doc @@ phraseto_tsquery('english', w.word));
end $$;

-- How the ticket came: 'email' when it arrived by email (inbound-email's request or follow-up) or the team
-- started it (a new conversation is an email to the customer, 88_rich_mail.sql); else 'portal'.
create function private.ticket_channel(t public.tickets) returns text
language plpgsql stable security definer set search_path = '' as $$
begin
  return case when exists (select 1 from public.inbound_emails e where e.ticket_id = t.id and e.outcome in ('request', 'follow_up'))
                or (select m.author_id from public.messages m where m.ticket_id = t.id order by m.created_at, m.id limit 1)
                   is distinct from t.requester_id
              then 'email' else 'portal' end;
end $$;

-- The text a rule's "body" conditions read: the request's first message for a new ticket, else the
-- customer's latest message (their reply, or what they last wrote before the wait).
create function private.rule_body(p_ticket_id uuid, p_event text) returns text
language plpgsql stable security definer set search_path = '' as $$
begin
  if p_event = 'ticket_created' then
    return (select m.body from public.messages m where m.ticket_id = p_ticket_id order by m.created_at, m.id limit 1);
  end if;
  return (select m.body from public.messages m join public.tickets t on t.id = m.ticket_id
           where m.ticket_id = p_ticket_id and m.kind = 'reply'
             and not exists (select 1 from public.memberships x where x.workspace_id = t.workspace_id and x.user_id = m.author_id)
           order by m.created_at desc, m.id desc limit 1);
end $$;

-- One condition, on the ticket as it is now (earlier rules' actions included).
create function private.rule_condition_holds(t public.tickets, p_body text, c jsonb) returns boolean
language plpgsql stable security definer set search_path = '' as $$
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
end $$;

-- All (or any) of a rule's conditions; a rule without conditions matches every ticket.
create function private.rule_matches(r public.rules, t public.tickets, p_body text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  if jsonb_array_length(r.conditions) = 0 then
    return true;
  end if;
  -- By index, not jsonb_array_elements: an expression per condition, not a query (docs/decisions/090-create-path-cpu.md).
  for i in 0 .. jsonb_array_length(r.conditions) - 1 loop
    if private.rule_condition_holds(t, p_body, r.conditions -> i) <> r.match_all then
      return not r.match_all;
    end if;
  end loop;
  return r.match_all;
end $$;

-- A canned reply's placeholders filled in for a ticket, as fillPlaceholders and placeholderValues do in
-- app/lib/helpdesk/canned-replies.ts (a test holds the two equal): a blank name falls back to the start
-- of the email address, then to "there" (the requester) or "the <workspace> team" (the agent); a name
-- that is not a placeholder stays as typed. One pass, so a value is never read as a placeholder.
create function private.fill_placeholders(p_body text, t public.tickets, p_agent_id uuid) returns text
language plpgsql stable security definer set search_path = '' as $$
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
end $$;

-- Whose name a rule's reply or note goes out in: the ticket's assignee, else the admin who last saved
-- the rule (while still a member); null: nobody, and the action is skipped.
create function private.rule_voice(r public.rules, t public.tickets) returns uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce(t.assignee_id,
    (select m.user_id from public.memberships m
      where m.workspace_id = t.workspace_id and m.user_id = coalesce(r.updated_by, r.created_by)));
end $$;

-- One action of a rule on a ticket. What can't be done now is skipped, never an error for the event that
-- ran the rule: a status move an agent couldn't make by hand (the state machine, a required field), a
-- member, tag or canned reply gone since, automatic assignment off or the ticket assigned already.
create function private.rule_act(r public.rules, p_ticket_id uuid, a jsonb) returns void
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  v text := a ->> 'value';
  voice uuid;
  body text;
begin
  select * into t from public.tickets where id = p_ticket_id;
  -- A new ticket is numbered before anyone hears of it: a reply or a note (its {{ticket.number}}, its email) and a
  -- status take the number first (20_tickets.sql); the automatic assignment takes it with the assignee, in one
  -- update (the counter before the settings' row, private.auto_assign). A tag, a priority, an assignment and a
  -- notice leave it provisional: a notice's email is queued once the ticket has its number
  -- (private.email_numbered_notices), so the rules before it hold the counter no longer
  -- (docs/decisions/108-rules-cpu.md).
  if t.number < 0 and a ->> 'type' not in ('add_tag', 'set_priority', 'assign', 'assign_auto', 'notify') then
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
end $$;

-- Fires one rule on a ticket for one event if its conditions hold and it hasn't fired for that event:
-- records the firing, writes "rule" (its name) in the history, runs the actions in order. Whether it
-- fired. A closed ticket runs nothing. What the actions write names no one: private.run_rules says Tend is
-- acting (the sweep is nobody's request: it names no one already).
create function private.rule_fire(r public.rules, p_ticket_id uuid, p_event_key text, p_body text) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
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
  for i in 0 .. jsonb_array_length(r.actions) - 1 loop
    perform private.rule_act(r, t.id, r.actions -> i);
  end loop;
  return true;
end $$;

-- The workspace's enabled rules for an event, in order, on one ticket: the number that fired.
-- What the rules write there is Tend's doing, not the person's whose request ran them: while they run, Tend
-- says it is acting on the ticket (private.tend_act), and the history lines and the "assigned" notice they
-- write name no one (docs/decisions/102-tend-says-so.md).
create function private.run_rules(p_ticket_id uuid, p_event text, p_event_key text) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  r public.rules;
  body text;
  said text;
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
    if said is null then
      said := private.tend_act(p_ticket_id, 'rules');
    end if;
    if private.rule_fire(r, p_ticket_id, p_event_key, body) then
      n := n + 1;
    end if;
  end loop;
  if said is not null then
    perform private.tend_done(said);
  end if;
  return n;
end $$;

-- The events, at the end of the transaction that made them (deferred), so rules see the ticket as it
-- is committed: its first message, a reopening by the customer's reply (and its automatic assignment), the
-- inbound email it came by. A direct database session (seed, imports) runs no rule, as it tells no one.
-- A new ticket's rules run first; then, in every session, what follows them
-- (docs/decisions/085-rules-before-assignment.md): its SLA clocks (private.sla_start), so a rule's
-- priority is the one its due time is computed for (new and open run the same clocks: the assignment's
-- opening moves none); automatic assignment if no rule assigned it (90_promises.sql, private.assign_new); its
-- number, if create_ticket left it a provisional one (20_tickets.sql: what comes before, the workspace's other
-- creations don't wait for; an automatic assignment takes it first, with the assignee); the emails of the
-- notices the rules made meanwhile (85_notifications.sql); and the notice of the request to its final assignee
-- or, while nobody has it, every member.
create function private.rules_on_ticket_created() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if auth.role() is not null then
    perform private.run_rules(new.id, 'ticket_created', 'created');
  end if;
  perform private.sla_start(new.id);
  perform private.assign_new(new.id);
  perform private.number_ticket(new.id);
  perform private.email_numbered_notices(new.id);
  perform private.notify_request(new.id);
  return null;
end $$;
create constraint trigger tickets_rules after insert on public.tickets deferrable initially deferred
  for each row execute function private.rules_on_ticket_created();

-- A customer's reply (anyone but the team; not the request's first message, which is the creation's).
-- The team's replies, and the replies and notes rules write, run nothing: rules can't loop.
create function private.rules_on_customer_reply() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
create constraint trigger messages_rules after insert on public.messages deferrable initially deferred
  for each row when (new.kind = 'reply') execute function private.rules_on_customer_reply();

-- The waiting rules' sweep (pg_cron, every minute): per enabled waiting rule, in order, the tickets that
-- entered its status at least its business hours ago; each is looked at once per stint (its row goes,
-- whether the conditions held or not). At most 1 000 tickets a run (0.7–0.8 s of database CPU at the
-- 0.7 ms a ticket bench:rules measured, docs/decisions/069-rules-cost.md); tickets someone holds wait for the
-- next run. It acts as the platform does through the API (service_role), so a reply it sends is emailed and an
-- assignment notified, as inbound-email's are. The number of tickets looked at.
create function public.run_waiting_rules() returns integer
language plpgsql security definer set search_path = '' as $$
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
                                case when r.conditions @> '[{"field": "body"}]' then private.rule_body(w.ticket_id, 'ticket_waited') end);
      n := n + 1;
    end loop;
    exit when n >= 1000;
  end loop;
  return n;
end $$;
revoke all on function public.run_waiting_rules() from public, anon, authenticated;
grant execute on function public.run_waiting_rules() to service_role;
-- `db diff` doesn't see this statement (data, not schema): its migration carries it by hand.
select cron.schedule('waiting-rules', '* * * * *', 'select public.run_waiting_rules()');

-- ---------------------------------------------------------------------------------------------
-- "Test this rule": the latest tickets (by activity, among the workspace's newest 2 000) that the rule's
-- conditions match now, at most 20: the body as the event would read it; a waiting rule also needs the
-- ticket in its status for its hours. Admins; nothing is written.
create function public.rule_preview(
  p_workspace_id uuid, p_event text, p_match_all boolean, p_conditions jsonb,
  p_wait_status public.ticket_status default null, p_wait_hours integer default null
) returns table (id uuid, number integer, subject text, status public.ticket_status, last_message_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke all on function public.rule_preview(uuid, text, boolean, jsonb, public.ticket_status, integer) from public, anon;
grant execute on function public.rule_preview(uuid, text, boolean, jsonb, public.ticket_status, integer)
  to authenticated, service_role;

-- Moves a rule one place earlier (p_up) or later; the workspace's order is renumbered 0, 1, 2, … As the
-- caller: row-level security lets admins only (not_found for anyone else).
create function public.move_rule(p_rule_id uuid, p_up boolean) returns void
language plpgsql security invoker set search_path = '' as $$
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
end $$;
revoke all on function public.move_rule(uuid, boolean) from public, anon;
grant execute on function public.move_rule(uuid, boolean) to authenticated, service_role;

revoke all on function private.rule_check(), private.status_since(uuid), private.rule_waits_follow(), private.rule_waits_reset(),
  private.business_minutes_before(uuid, timestamptz, numeric), private.rule_words_match(text, text),
  private.ticket_channel(public.tickets), private.rule_body(uuid, text),
  private.rule_condition_holds(public.tickets, text, jsonb), private.rule_matches(public.rules, public.tickets, text),
  private.fill_placeholders(text, public.tickets, uuid), private.rule_voice(public.rules, public.tickets),
  private.rule_act(public.rules, uuid, jsonb), private.rule_fire(public.rules, uuid, text, text),
  private.run_rules(uuid, text, text), private.rules_on_ticket_created(), private.rules_on_customer_reply()
  from public;

-- ---------------------------------------------------------------------------------------------
-- Admins write rules; every member reads them (an agent can see why a ticket was tagged or moved, and
-- which rule the history names); customers nothing. The order is move_rule's; who and when, the database's.
alter table public.rules enable row level security;
alter table public.rule_firings enable row level security;
alter table public.rule_waits enable row level security;
revoke all on public.rules, public.rule_firings, public.rule_waits from anon;
revoke insert, update on public.rules from authenticated;
grant insert (workspace_id, name, enabled, event, wait_status, wait_hours, match_all, conditions, actions) on public.rules to authenticated;
grant update (name, enabled, event, wait_status, wait_hours, match_all, conditions, actions, position) on public.rules to authenticated;
create policy "members read their workspace's rules" on public.rules for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins add rules" on public.rules for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins edit rules" on public.rules for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins delete rules" on public.rules for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));
-- Firings are the database's record; members read them. What the sweep watches is the platform's alone.
revoke insert, update, delete on public.rule_firings from authenticated;
revoke all on public.rule_waits from authenticated;
create policy "members read their workspace's rule firings" on public.rule_firings for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
