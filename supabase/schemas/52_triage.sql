-- Triage (issue 27, docs/product.md#tags, docs/product.md#snooze,
-- docs/product.md#bulk-changes): tags on tickets, snoozing a ticket, and changing many
-- tickets at once.
--
-- Tags are the team's: members read them and tag tickets, admins manage them (rename, colour, merge,
-- delete), and agents create new ones while tagging unless the workspace turns that off
-- (workspaces.agents_create_tags). Customers never read a tag or a ticket's tags: every policy here is
-- for members. A tag's name is an identifier (lower case, letters, digits, - and _), so `tag:billing`
-- in a search and `?tag=billing` in a link name it exactly.

create table public.tags (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- The same pattern as TAG_NAME_RE in app/lib/helpdesk/tags.ts.
  name text not null check (name ~ '^[a-z0-9][a-z0-9_-]{0,39}$'),
  -- The app's palette, TAG_COLOURS in app/lib/helpdesk/tags.ts (a unit test holds them equal).
  colour text not null default 'grey'
    check (colour in ('grey', 'red', 'orange', 'yellow', 'green', 'teal', 'blue', 'purple', 'pink')),
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  constraint tags_name_key unique (workspace_id, name)
);

create table public.ticket_tags (
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  tag_id uuid not null references public.tags (id) on delete cascade,
  -- The ticket's (set by ticket_tags_workspace): what the policies filter by.
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  -- The ticket's last_message_at (set by ticket_tags_workspace, kept by tickets_tag_activity): the inbox
  -- lists a rare tag's tickets in its order from ticket_tags_activity_idx, fetching a page's worth of them
  -- rather than every one (docs/decisions/093-rare-tag-page-in-order.md).
  last_message_at timestamptz not null,
  primary key (ticket_id, tag_id)
);
-- The inbox's tag filter and a tag's merge and count start from the tag.
create index ticket_tags_tag_idx on public.ticket_tags (tag_id, ticket_id);
-- A tag's tickets in the inbox's order (newest activity first; oldest first read backwards).
create index ticket_tags_activity_idx on public.ticket_tags (tag_id, last_message_at desc, ticket_id desc);
create index ticket_tags_workspace_idx on public.ticket_tags (workspace_id);

-- May the caller create tags here: admins always, agents while the workspace lets them.
create function private.may_create_tags(p_workspace_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select private.is_admin(p_workspace_id)
      or (private.is_agent(p_workspace_id)
          and (select w.agents_create_tags from public.workspaces w where w.id = p_workspace_id))
$$;
revoke all on function private.may_create_tags(uuid) from public;
grant execute on function private.may_create_tags(uuid) to authenticated, service_role;

-- A ticket's tag belongs to the ticket's workspace; the row takes the ticket's workspace and its
-- last_message_at. The ticket's row is locked as an update would lock it: a reply committing meanwhile
-- (tickets_tag_activity) can't miss this row, nor this row its time; two taggers of one ticket queue
-- here rather than both holding a share lock and deadlocking on the ticket's updated_at
-- (ticket_tag_history).
create function private.ticket_tag_workspace() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  select t.workspace_id, t.last_message_at into new.workspace_id, new.last_message_at
    from public.tickets t where t.id = new.ticket_id for no key update;
  if not exists (select 1 from public.tags g where g.id = new.tag_id and g.workspace_id = new.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'tag of another workspace';
  end if;
  return new;
end $$;
create trigger ticket_tags_workspace before insert on public.ticket_tags
  for each row execute function private.ticket_tag_workspace();

-- A ticket's new activity time reaches its tags' rows (their copy, above), in the same transaction. Not
-- an update of no rows for an untagged ticket: it would still run ticket_tags' statement triggers.
create function private.ticket_tags_activity() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if exists (select 1 from public.ticket_tags tt where tt.ticket_id = new.id) then
    update public.ticket_tags tt set last_message_at = new.last_message_at where tt.ticket_id = new.id;
  end if;
  return null;
end $$;
create trigger tickets_tag_activity after update of last_message_at on public.tickets
  for each row when (old.last_message_at is distinct from new.last_message_at)
  execute function private.ticket_tags_activity();

-- The history says who added or removed which tag (the name it had then), and the ticket's updated_at
-- moves, so the pages that show it (live inbox, ticket page) reload. A tag deleted or merged by an admin,
-- and a ticket being deleted, write nothing: the tag, or the ticket, is gone. Once per statement: a bulk
-- tagging of 1 000 tickets writes its events in one insert and moves the tickets in one update
-- (docs/decisions/073-bulk-change-per-statement.md), each ticket's events in the order its tags came.
create function private.ticket_tag_history() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  actor uuid := auth.uid();
  tend record := private.tend_acting();
begin
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  -- A rule's tag is Tend's (private.tend_acting).
  select r.ticket_id, r.workspace_id, case when r.ticket_id = tend.ticket_id then null else actor end,
         case when tg_op = 'INSERT' then 'tag_added' else 'tag_removed' end, g.name
    from (select x.*, row_number() over () as i from changed_tags x) r
    join public.tags g on g.id = r.tag_id
   where exists (select 1 from public.tickets t where t.id = r.ticket_id)
   order by r.i;
  -- Not when this transaction changed the ticket already (its updated_at is now(): a new ticket a rule
  -- tags, a second tag): that change reloads the pages at the same commit. Nor the statement at all then:
  -- an update of no rows still runs the tickets' statement triggers (docs/decisions/090-create-path-cpu.md).
  if exists (select 1 from changed_tags x join public.tickets t on t.id = x.ticket_id where t.updated_at <> now()) then
    update public.tickets t set updated_at = now()
     where t.id in (select x.ticket_id from changed_tags x join public.tags g on g.id = x.tag_id) and t.updated_at <> now();
  end if;
  return null;
end $$;
create trigger ticket_tags_history after insert on public.ticket_tags
  referencing new table as changed_tags for each statement execute function private.ticket_tag_history();
create trigger ticket_tags_history_removed after delete on public.ticket_tags
  referencing old table as changed_tags for each statement execute function private.ticket_tag_history();

revoke all on function private.ticket_tag_workspace(), private.ticket_tags_activity(), private.ticket_tag_history() from public;

-- ---------------------------------------------------------------------------------------------
-- The id of the tag named p_name in a workspace the caller is a member of, creating it if the caller may
-- (tag_create_forbidden if not; tag_invalid for a name that isn't one). Security invoker: the tag is
-- created under the caller's policies.
create function private.tag_named(p_workspace_id uuid, p_name text) returns uuid
language plpgsql security invoker set search_path = '' as $$
declare
  tag uuid;
  tag_name text := lower(btrim(coalesce(p_name, '')));
begin
  if tag_name !~ '^[a-z0-9][a-z0-9_-]{0,39}$' then
    raise exception using errcode = 'P0001', message = 'tag_invalid';
  end if;
  select g.id into tag from public.tags g where g.workspace_id = p_workspace_id and g.name = tag_name;
  if tag is null then
    if not private.may_create_tags(p_workspace_id) then
      raise exception using errcode = 'P0001', message = 'tag_create_forbidden', detail = tag_name;
    end if;
    -- Two agents creating the same tag at once: the second finds the first's.
    insert into public.tags (workspace_id, name) values (p_workspace_id, tag_name)
    on conflict (workspace_id, name) do nothing returning id into tag;
    if tag is null then
      select g.id into tag from public.tags g where g.workspace_id = p_workspace_id and g.name = tag_name;
    end if;
  end if;
  return tag;
end $$;
revoke all on function private.tag_named(uuid, text) from public;
grant execute on function private.tag_named(uuid, text) to authenticated, service_role;

-- Tag a ticket by the tag's name, creating the tag if the caller may. Tagging twice changes nothing.
-- Returns the tag's id.
create function public.add_ticket_tag(p_ticket_id uuid, p_name text) returns uuid
language plpgsql security invoker set search_path = '' as $$
declare
  ws uuid;
  tag uuid;
begin
  select t.workspace_id into ws from public.tickets t where t.id = p_ticket_id;
  if ws is null or not private.is_member(ws) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  tag := private.tag_named(ws, p_name);
  insert into public.ticket_tags (ticket_id, tag_id) values (p_ticket_id, tag) on conflict do nothing;
  return tag;
end $$;
revoke all on function public.add_ticket_tag(uuid, text) from public, anon;
grant execute on function public.add_ticket_tag(uuid, text) to authenticated, service_role;

-- Admins fold one tag into another: every ticket with p_from gets p_into (if it hasn't it yet), and
-- p_from goes. The tickets' histories are left alone (they name the tags as they were).
create function public.merge_tags(p_from uuid, p_into uuid) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  a public.tags;
  b public.tags;
  n integer;
begin
  select * into a from public.tags where id = p_from for update;
  select * into b from public.tags where id = p_into for update;
  if a.id is null or b.id is null or a.workspace_id <> b.workspace_id or not private.is_member(a.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'tag';
  end if;
  if not private.is_admin(a.workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if a.id = b.id then
    raise exception using errcode = 'P0001', message = 'tag_merge_same';
  end if;
  -- An update, not an insert: the history trigger (insert or delete) stays out of it; the rows left
  -- (tickets that had both) go with the tag, when no tag name is left to write.
  update public.ticket_tags tt set tag_id = b.id
   where tt.tag_id = a.id and not exists (select 1 from public.ticket_tags x where x.ticket_id = tt.ticket_id and x.tag_id = b.id);
  get diagnostics n = row_count;
  delete from public.tags where id = a.id;
  return n;
end $$;
revoke all on function public.merge_tags(uuid, uuid) from public, anon;
grant execute on function public.merge_tags(uuid, uuid) to authenticated, service_role;

-- The workspace's tags with how many tickets carry each, for the admins' page and the pickers.
create function public.workspace_tags(p_slug text) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  member record;
begin
  select * into member from private.membership(p_slug);
  return (select coalesce(jsonb_agg(jsonb_build_object('id', g.id, 'name', g.name, 'colour', g.colour,
                                                       'tickets', (select count(*) from public.ticket_tags tt where tt.tag_id = g.id))
                                    order by g.name), '[]')
            from public.tags g where g.workspace_id = (member.workspace).id);
end $$;
revoke all on function public.workspace_tags(text) from public, anon;
grant execute on function public.workspace_tags(text) to authenticated, service_role;

-- Tickets' tags as the pages show them: per ticket that has any, [{id, name, colour}] by name. A set-returning SQL
-- function without settings, so Postgres inlines it into the caller's statement: the inbox dresses its page's
-- tickets with one join (ticket_tags_pkey) and keeps its generic plan, where a call per row cost a function
-- call, a search_path switch and a statement each (docs/decisions/087-inbox-call-overhead.md).
create function private.ticket_tags_rows(p_ticket_ids uuid[]) returns table (ticket_id uuid, tags jsonb)
language sql stable as $$
  select tt.ticket_id, jsonb_agg(jsonb_build_object('id', g.id, 'name', g.name, 'colour', g.colour) order by g.name)
    from public.ticket_tags tt join public.tags g on g.id = tt.tag_id
   where tt.ticket_id = any (p_ticket_ids)
   group by tt.ticket_id
$$;
revoke all on function private.ticket_tags_rows(uuid[]) from public;

-- One ticket's tags ([] for none). plpgsql keeps the statement's plan for the connection; a SQL function
-- that can't be inlined is planned at every call (docs/decisions/084-ticket-page-cost.md).
create function private.ticket_tags_json(p_ticket_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce((select r.tags from private.ticket_tags_rows(array[p_ticket_id]) r), '[]');
end $$;
revoke all on function private.ticket_tags_json(uuid) from public;

-- ---------------------------------------------------------------------------------------------
alter table public.tags enable row level security;
alter table public.ticket_tags enable row level security;

revoke all on public.tags, public.ticket_tags from anon;
revoke insert, update on public.tags from authenticated;
grant insert (workspace_id, name, colour) on public.tags to authenticated;
grant update (name, colour) on public.tags to authenticated;
create policy "members read tags" on public.tags for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins, and agents if allowed, add tags" on public.tags for insert to authenticated
  with check (private.may_create_tags(workspace_id));
create policy "admins edit tags" on public.tags for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins delete tags" on public.tags for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

revoke insert, update on public.ticket_tags from authenticated;
grant insert (ticket_id, tag_id) on public.ticket_tags to authenticated;
create policy "members read ticket tags" on public.ticket_tags for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members tag tickets" on public.ticket_tags for insert to authenticated
  with check (workspace_id in (select private.member_workspaces()));
create policy "members untag tickets" on public.ticket_tags for delete to authenticated
  using (workspace_id in (select private.member_workspaces()));

-- ---------------------------------------------------------------------------------------------
-- Snooze (docs/product.md#snooze): a ticket not yet solved leaves the views of work to do
-- (private.inbox_view_filter) until a time, then comes back — pending as open — by the wake-up job
-- below, or at once when its requester replies (private.message_bookkeeping). tickets.snoozed_until
-- holds it; the history records each snooze and wake (private.ticket_history).

-- When "later today", "tomorrow" and "Monday" are, in the workspace's time zone: later today is 3
-- hours from now, the others 9:00 there. Null for a preset that isn't one.
create function private.snooze_preset(p_preset text, p_time_zone text, p_now timestamptz) returns timestamptz
language sql immutable set search_path = '' as $$
  select case p_preset
    when 'later' then p_now + interval '3 hours'
    when 'tomorrow' then ((p_now at time zone p_time_zone)::date + 1 + time '09:00') at time zone p_time_zone
    -- The next Monday (a week on, on a Monday).
    when 'monday' then ((p_now at time zone p_time_zone)::date
                        + (7 - (extract(isodow from p_now at time zone p_time_zone)::int - 1)) + time '09:00') at time zone p_time_zone
  end
$$;
revoke all on function private.snooze_preset(text, text, timestamptz) from public;

-- Snooze a ticket until a preset (later, tomorrow, monday) or p_at, a date and time in the workspace's
-- time zone; p_preset 'wake' ends the snooze. Members only (not_found otherwise); a solved or closed
-- ticket can't be snoozed (ticket_not_snoozable); the time must be in the future and within a year
-- (snooze_invalid). Returns the time it sleeps until (null: awake).
create function public.snooze_ticket(p_ticket_id uuid, p_preset text default null, p_at timestamp default null)
returns timestamptz
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  tz text;
  until timestamptz;
begin
  select * into t from public.tickets where id = p_ticket_id for no key update;
  if t.id is null or not private.is_member(t.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  if p_preset is distinct from 'wake' then
    select w.time_zone into tz from public.workspaces w where w.id = t.workspace_id;
    until := coalesce(private.snooze_preset(p_preset, tz, now()), case when p_preset is null then p_at at time zone tz end);
    if until is null or until <= now() or until > now() + interval '1 year' then
      raise exception using errcode = 'P0001', message = 'snooze_invalid';
    end if;
    if not private.is_backlog(t.status) then
      raise exception using errcode = 'P0001', message = 'ticket_not_snoozable', detail = t.status::text;
    end if;
  end if;
  update public.tickets set snoozed_until = until where id = t.id;
  return until;
end $$;
revoke all on function public.snooze_ticket(uuid, text, timestamp) from public, anon;
grant execute on function public.snooze_ticket(uuid, text, timestamp) to authenticated, service_role;

-- The wake-up job, every minute (pg_cron, 80_email.sql): due snoozes end, and a pending ticket comes back
-- open (a move the team may make: private.check_transition, 'system'). Rows someone holds right now
-- are skipped; the next run wakes them. The history records the wake with no actor (Tend).
create function private.wake_snoozed_tickets() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  perform private.check_transition('pending', 'open', 'system', 'edit');
  update public.tickets set snoozed_until = null, status = case when status = 'pending' then 'open' else status end
   where id in (select t.id from public.tickets t where t.snoozed_until <= now() for no key update skip locked);
  get diagnostics n = row_count;
  return n;
end $$;
revoke all on function private.wake_snoozed_tickets() from public;
-- Scheduled with the other jobs, once pg_cron is there (80_email.sql).

-- ---------------------------------------------------------------------------------------------
-- Bulk changes (docs/product.md#bulk-changes): one call changes up to 1 000 tickets of one workspace — assign
-- ('me' is not a value: the app sends the id; 'none' unassigns), status, priority, add_tag, remove_tag,
-- merge (into p_value, one of the tickets) — in one short transaction. Security invoker: the caller's policies and column grants apply, and each
-- row passes the same triggers as a single change (ticket_transition: the state machine for the
-- caller). A ticket the change doesn't apply to is skipped, by reason: `unchanged` (it is so already),
-- a status it can't leave for the target (`closed`, …: private.check_transition for this caller),
-- `not_found` (not a ticket of this workspace the caller can see). Answer:
-- { updated: n, skipped: { reason: n } }. Tickets are locked in id order, so two batches (or a batch
-- and a single change) touching the same tickets queue instead of deadlocking.
create function public.bulk_update_tickets(p_ticket_ids uuid[], p_action text, p_value text default null)
returns jsonb
language plpgsql security invoker set search_path = '' as $$
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
end $$;
revoke all on function public.bulk_update_tickets(uuid[], text, text) from public, anon;
grant execute on function public.bulk_update_tickets(uuid[], text, text) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Merge (docs/product.md#merge, docs/decisions/053-merge-and-split.md): a duplicate (the secondary) folds
-- into another ticket of the workspace (the primary). Its messages, notes, files and history join the
-- primary's (in time order: they keep their times); it is closed as "merged into #N" and its links lead
-- to the primary (merged_into_id). A secondary requester other than the primary's is recorded as a
-- follower of the primary (ticket_followers, 54_followers.sql); the inbound mail to the secondary's
-- address lands on the primary (receive_email, 80_email.sql).

-- Who follows a ticket besides its requester: a merge writes it (the secondary's requester), members add
-- and remove followers, and inbound mail adds the people it copies (54_followers.sql). Members read it;
-- a follower reads their own rows.
create table public.ticket_followers (
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  primary key (ticket_id, user_id)
);
create index ticket_followers_user_idx on public.ticket_followers (user_id);
create index ticket_followers_workspace_idx on public.ticket_followers (workspace_id);
alter table public.ticket_followers enable row level security;
revoke insert, update, delete on public.ticket_followers from anon, authenticated;
create policy "members read followers, followers read their own" on public.ticket_followers
  for select to authenticated using (private.is_member(workspace_id) or user_id = (select auth.uid()));

-- Merges p_ticket_id (the secondary) into p_into (the primary), for a member of their one workspace, in
-- one transaction. Refused: another workspace's or an unseen ticket (not_found), the same ticket
-- (merge_same), a ticket merged already on either side (ticket_merged), a closed one (merge_closed). Both
-- rows are locked in id order first, so two merges of the same pair (either way round) queue and the
-- second finds the first done. Answer: { number: the primary's, merged: the secondary's }.
create function public.merge_tickets(p_ticket_id uuid, p_into uuid) returns jsonb
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke all on function public.merge_tickets(uuid, uuid) from public, anon;
grant execute on function public.merge_tickets(uuid, uuid) to authenticated, service_role;
