drop policy "members read the whole thread, requesters its replies" on "public"."messages";

drop policy "members read their workspace's followers" on "public"."ticket_followers";

drop policy "requesters and members read tickets" on "public"."tickets";

drop policy "members and requesters read their workspaces" on "public"."workspaces";

alter table "public"."ticket_events" drop constraint "ticket_events_type_check";

drop function if exists "public"."receive_email"(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb, p_recipient_id uuid, p_sender_verified boolean);

drop index if exists "public"."ticket_forwards_workspace_idx";

alter table "public"."workspaces" add column "cc_adds_followers" boolean not null default true;

CREATE INDEX ticket_forwards_agent_idx ON public.ticket_forwards USING btree (created_by, created_at);

CREATE INDEX ticket_forwards_workspace_idx ON public.ticket_forwards USING btree (workspace_id, created_at);

alter table "public"."ticket_events" add constraint "ticket_events_type_check" CHECK ((type = ANY (ARRAY['created'::text, 'status'::text, 'assignee'::text, 'priority'::text, 'tag_added'::text, 'tag_removed'::text, 'snoozed'::text, 'unsnoozed'::text, 'sla_breach'::text, 'merged_into'::text, 'merged_from'::text, 'follower_added'::text, 'follower_removed'::text]))) not valid;

alter table "public"."ticket_events" validate constraint "ticket_events_type_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.add_followers(p_ticket_id uuid, p_users uuid[])
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
  with added as (
    insert into public.ticket_followers (ticket_id, user_id, workspace_id)
    select t.id, x.u, t.workspace_id
      from (select distinct u from unnest(p_users) u) x
     where x.u <> t.requester_id
       and not exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = x.u)
       and not exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = x.u)
     limit greatest(private.followers_max() - (select count(*) from public.ticket_followers f where f.ticket_id = t.id), 0)
    on conflict do nothing
    returning user_id
  )
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  select t.id, t.workspace_id, auth.uid(), 'follower_added', u.email
    from added join auth.users u on u.id = added.user_id;
  get diagnostics n = row_count;
  return n;
end $function$
;

CREATE OR REPLACE FUNCTION private.follow_copied(p_ticket_id uuid, p_cc text[])
 RETURNS text[]
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  own text;
  addresses text[];
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.id is null or coalesce(cardinality(p_cc), 0) = 0
     or not (select w.cc_adds_followers from public.workspaces w where w.id = t.workspace_id) then
    return '{}';
  end if;
  select lower(s.sender_address) into own from public.workspace_email_settings s where s.workspace_id = t.workspace_id;
  select array_agg(distinct a) into addresses
    from (select lower(trim(x)) a from unnest(p_cc) x limit 10) c
   where a ~ '^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$' and char_length(a) <= 254 and a is distinct from own;
  perform private.add_followers(t.id, array(select u.id from auth.users u where u.email = any (addresses) and u.deleted_at is null));
  return array(select a from unnest(addresses) a
                where not exists (select 1 from auth.users u where u.email = a and u.deleted_at is null));
end $function$
;

CREATE OR REPLACE FUNCTION private.followed_tickets()
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query select f.ticket_id from public.ticket_followers f where f.user_id = (select auth.uid());
end $function$
;

CREATE OR REPLACE FUNCTION private.followers_max()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 20 $function$
;

CREATE OR REPLACE FUNCTION public.add_ticket_follower(p_ticket_id uuid, p_email text)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  address text := lower(trim(coalesce(p_email, '')));
  follower uuid;
begin
  select * into t from public.tickets where id = p_ticket_id for update;
  if t.id is null or auth.uid() is null or not private.is_member(t.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  if t.status = 'closed' then
    raise exception using errcode = 'P0001', message = 'ticket_closed', detail = t.id::text;
  end if;
  if address !~ '^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$' or char_length(address) > 254 then
    raise exception using errcode = 'P0001', message = 'email_invalid', detail = 'follower address';
  end if;
  select u.id into follower from auth.users u where u.email = address and u.deleted_at is null;
  if follower is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'follower';
  elsif follower = t.requester_id then
    raise exception using errcode = 'P0001', message = 'follower_is_requester';
  elsif exists (select 1 from public.memberships m where m.workspace_id = t.workspace_id and m.user_id = follower) then
    raise exception using errcode = 'P0001', message = 'follower_is_member';
  end if;
  if not exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = follower)
     and private.add_followers(t.id, array[follower]) = 0 then
    raise exception using errcode = 'P0001', message = 'followers_full', detail = private.followers_max()::text;
  end if;
  return follower;
end $function$
;

CREATE OR REPLACE FUNCTION public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb DEFAULT NULL::jsonb, p_recipient_id uuid DEFAULT NULL::uuid, p_sender_verified boolean DEFAULT false, p_cc text[] DEFAULT NULL::text[], p_subject_rest text DEFAULT NULL::text)
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
    -- The copied people added now (made accounts since the first call) are the sender's doing too.
    perform set_config('request.jwt.claim.sub',
                       coalesce((select id::text from auth.users where email = lower(p_from) and deleted_at is null), ''), true);
    return jsonb_build_object('outcome', seen.outcome, 'ticket_id', seen.ticket_id,
                              'number', (select x.number from public.tickets x where x.id = seen.ticket_id),
                              'message_id', seen.created_message_id,
                              'attachments', private.message_files(seen.created_message_id), 'duplicate', true,
                              'cc_unknown', private.follow_copied(seen.ticket_id, p_cc));
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
  -- A follower answers the thread as its requester does.
  if t.id is not null and ((actor = 'requester' and t.requester_id <> sender
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
    values (ws, sender, coalesce(nullif(trim(p_subject), ''), '(no subject)'), follows) returning * into t;
    insert into public.messages (ticket_id, author_id, kind, body)
    values (t.id, sender, 'reply', case when coalesce(p_subject_rest, '') = '' then p_body
                                        else left(p_subject_rest || E'\n\n' || p_body, 20000) end)
    returning * into m;
    outcome := case when follows is null then 'request' else 'follow_up' end;
  end if;
  insert into public.inbound_emails (provider_message_id, message_id, ticket_id, created_message_id, outcome)
  values (p_provider_message_id, p_message_id, t.id, m.id, outcome);
  return jsonb_build_object('outcome', outcome, 'ticket_id', t.id, 'number', t.number, 'message_id', m.id,
                            'follow_up_of', follows, 'attachments', private.attach_received_files(m.id, p_attachments),
                            'duplicate', false, 'cc_unknown', private.follow_copied(t.id, p_cc));
end $function$
;

CREATE OR REPLACE FUNCTION public.remove_ticket_follower(p_ticket_id uuid, p_user_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ws uuid := (select t.workspace_id from public.tickets t where t.id = p_ticket_id);
begin
  if ws is null or auth.uid() is null or not private.is_member(ws) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  with removed as (
    delete from public.ticket_followers where ticket_id = p_ticket_id and user_id = p_user_id returning user_id
  )
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "to")
  select p_ticket_id, ws, auth.uid(), 'follower_removed', u.email from removed join auth.users u on u.id = removed.user_id;
end $function$
;

CREATE OR REPLACE FUNCTION public.thread_customers(p_ticket_id uuid)
 RETURNS uuid[]
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(array_agg(x.id), '{}')
    from public.tickets t
    cross join lateral (select t.requester_id as id
                        union select f.user_id from public.ticket_followers f where f.ticket_id = t.id) x
   where t.id = p_ticket_id
     and (t.requester_id = (select auth.uid()) or private.is_member(t.workspace_id)
          or exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = (select auth.uid())))
$function$
;

CREATE OR REPLACE FUNCTION public.ticket_follower_list(p_slug text, p_number integer)
 RETURNS TABLE(user_id uuid, name text, email text, created_at timestamp with time zone)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select f.user_id, coalesce(p.display_name, split_part(u.email, '@', 1)), u.email::text, f.created_at
    from public.workspaces w
    join public.tickets t on t.workspace_id = w.id and t.number = p_number
    join public.ticket_followers f on f.ticket_id = t.id
    join auth.users u on u.id = f.user_id
    left join public.profiles p on p.user_id = f.user_id
   where w.slug = p_slug and private.is_member(w.id)
   order by f.created_at, f.user_id
$function$
;

CREATE OR REPLACE FUNCTION private.can_see_profile(uid uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  me uuid := (select auth.uid());
begin
  return uid = me
    -- a co-member
    or exists (select 1 from public.memberships mine join public.memberships theirs on theirs.workspace_id = mine.workspace_id
                where mine.user_id = me and theirs.user_id = uid)
    -- a requester in one of my workspaces
    or exists (select 1 from public.tickets t join public.memberships mine on mine.workspace_id = t.workspace_id and mine.user_id = me
                where t.requester_id = uid)
    -- the team of a workspace where I have requests
    or exists (select 1 from public.memberships theirs join public.tickets t on t.workspace_id = theirs.workspace_id and t.requester_id = me
                where theirs.user_id = uid)
    -- a follower of a ticket in one of my workspaces (docs/decisions/064-followers.md)
    or exists (select 1 from public.ticket_followers f join public.memberships mine on mine.workspace_id = f.workspace_id and mine.user_id = me
                where f.user_id = uid)
    -- the team of a workspace where I follow a ticket
    or exists (select 1 from public.memberships theirs join public.ticket_followers f on f.workspace_id = theirs.workspace_id and f.user_id = me
                where theirs.user_id = uid)
    -- the requester and the other followers of a ticket I follow, and the followers of my requests
    or exists (select 1 from public.ticket_followers f join public.tickets t on t.id = f.ticket_id
                where (f.user_id = me and t.requester_id = uid) or (t.requester_id = me and f.user_id = uid))
    or exists (select 1 from public.ticket_followers mine join public.ticket_followers theirs on theirs.ticket_id = mine.ticket_id
                where mine.user_id = me and theirs.user_id = uid);
end $function$
;

CREATE OR REPLACE FUNCTION private.may_upload_attachment(p_path text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  parts text[] := string_to_array(p_path, '/');
  uuid_re text := '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
  mine text := auth.uid()::text || '/';
  t public.tickets;
  held record;
begin
  if auth.uid() is null or coalesce(array_length(parts, 1), 0) <> 5 or parts[1] <> auth.uid()::text
     or parts[2] !~ uuid_re or parts[3] !~ uuid_re or parts[4] !~ uuid_re or parts[5] = '' then
    return false;
  end if;
  -- Keys from "<me>/" up to "<me>0" ('0' follows '/'): the caller's prefix, through the pattern index.
  select coalesce(sum((o.metadata->>'size')::bigint), 0) as bytes, count(*) as files into held
    from storage.objects o
   where o.bucket_id = 'attachments' and o.name ~>=~ mine and o.name ~<~ (auth.uid()::text || '0')
     and not exists (select 1 from public.attachments a where a.path = o.name);
  if held.bytes >= private.unrecorded_uploads_max_bytes() or held.files >= private.unrecorded_uploads_max_count() then
    return false;
  end if;
  select * into t from public.tickets where id = parts[3]::uuid;
  if t.id is null then
    return exists (select 1 from public.workspaces w where w.id = parts[2]::uuid);
  end if;
  return t.workspace_id = parts[2]::uuid and t.status <> 'closed'
     and (t.requester_id = auth.uid() or private.is_member(t.workspace_id) or t.id in (select private.followed_tickets()));
end $function$
;

CREATE OR REPLACE FUNCTION private.notify_members_of_message()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  member uuid;
begin
  if auth.role() is null then
    return null;
  end if;
  select * into t from public.tickets where id = new.ticket_id;
  -- A follower's message is a customer's too (54_followers.sql).
  if new.author_id <> t.requester_id
     and not exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = new.author_id) then
    return null;
  end if;
  if t.assignee_id is not null then
    perform private.notify_member(t.workspace_id, t.assignee_id, 'customer_reply', t.id, new.id, new.author_id);
  else
    for member in select user_id from public.memberships where workspace_id = t.workspace_id loop
      perform private.notify_member(t.workspace_id, member, 'new_request', t.id, new.id, new.author_id);
    end loop;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION public.forward_ticket(p_ticket_id uuid, p_to text, p_note text DEFAULT ''::text, p_message_id uuid DEFAULT NULL::uuid)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  f public.ticket_forwards;
  address text := lower(trim(p_to));
  free_at timestamptz;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.id is null or auth.uid() is null or not private.is_member(t.workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  -- Only what the customer saw leaves: a public message of this ticket, never a note.
  if p_message_id is not null
     and not exists (select 1 from public.messages m where m.id = p_message_id and m.ticket_id = t.id and m.kind = 'reply') then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'message';
  end if;
  if address !~ '^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$' or char_length(address) > 254 then
    raise exception using errcode = 'P0001', message = 'email_invalid', detail = 'forward address';
  end if;
  perform pg_advisory_xact_lock(hashtextextended('ticket_forwards:' || auth.uid()::text, 0));
  perform pg_advisory_xact_lock(hashtextextended('ticket_forwards:' || t.workspace_id::text, 0));
  -- When the 20th newest of the agent's (the 100th newest of the workspace's) leaves the hour.
  select greatest(
           (select x.created_at from public.ticket_forwards x
             where x.created_by = auth.uid() and x.created_at > now() - interval '1 hour'
             order by x.created_at desc offset 19 limit 1),
           (select x.created_at from public.ticket_forwards x
             where x.workspace_id = t.workspace_id and x.created_at > now() - interval '1 hour'
             order by x.created_at desc offset 99 limit 1)
         ) + interval '1 hour'
    into free_at;
  if free_at is not null then
    raise exception using errcode = 'P0001', message = 'too_many_attempts', detail = 'forwards',
      hint = ceil(greatest(extract(epoch from free_at - now()), 1))::text;
  end if;
  insert into public.ticket_forwards (ticket_id, workspace_id, message_id, to_address, note)
  values (t.id, t.workspace_id, p_message_id, address, coalesce(trim(p_note), '')) returning * into f;
  insert into public.messages (ticket_id, author_id, kind, body)
  values (t.id, auth.uid(), 'note',
          left('Forwarded ' || case when p_message_id is null then 'this conversation' else 'a message' end
               || ' to ' || address || case when f.note <> '' then E':\n\n' || f.note else '.' end, 20000));
  perform private.call_function('notify', jsonb_build_object('type', 'forward', 'forward_id', f.id));
  return f.id;
end $function$
;

CREATE OR REPLACE FUNCTION public.post_message(p_ticket_id uuid, p_body text, p_kind text DEFAULT 'reply'::text, p_new_status ticket_status DEFAULT NULL::ticket_status, p_last_seen_message_id uuid DEFAULT NULL::uuid, p_attachments jsonb DEFAULT NULL::jsonb, p_client_key uuid DEFAULT NULL::uuid)
 RETURNS messages
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  t public.tickets;
  m public.messages;
  actor private.ticket_actor;
  seen_at timestamptz;
  newest uuid;
  target public.ticket_status;
begin
  -- The row lock queues concurrent posts to one ticket, so the newest-message check below is exact.
  select * into t from public.tickets where id = p_ticket_id for update;
  actor := private.ticket_actor(t.workspace_id, auth.uid());
  -- What the policies let through: the ticket's team, its requester, or a follower (a customer's reply of theirs).
  if t.id is null or auth.uid() is null
     or (actor = 'requester' and t.requester_id <> auth.uid() and t.id not in (select private.followed_tickets())) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  -- A form sent twice (double click, resubmitted POST) posts once: the second gets the first's
  -- message, before the checks below would call the writer's own message news (ticket_changed).
  if p_client_key is not null then
    select * into m from public.messages where author_id = auth.uid() and client_key = p_client_key;
    if m.id is not null then
      return m;
    end if;
  end if;
  if t.status = 'closed' then
    raise exception using errcode = 'P0001', message = 'ticket_closed', detail = t.id::text;
  end if;
  if p_kind = 'note' and actor = 'requester' then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'notes are for agents';
  end if;
  -- The traffic cop: an agent's reply written against an older view of the thread is refused when a
  -- newer message arrived since. An id that is not a message of this ticket has seen nothing.
  if actor <> 'requester' and p_kind = 'reply' and p_last_seen_message_id is not null then
    select created_at into seen_at from public.messages where id = p_last_seen_message_id and ticket_id = t.id;
    select id into newest from public.messages
     where ticket_id = t.id and (seen_at is null or created_at > seen_at)
     order by created_at desc, id desc limit 1;
    if newest is not null then
      raise exception using errcode = 'P0001', message = 'ticket_changed', detail = newest::text;
    end if;
  end if;

  insert into public.messages (ticket_id, author_id, kind, body, client_key)
    values (t.id, auth.uid(), p_kind, p_body, p_client_key) returning * into m;
  -- Its files (uploaded first, 40_attachments.sql), in the same transaction.
  perform private.attach_files(m.id, p_attachments);

  -- The status after the message: the one asked for, else what a reply does.
  target := coalesce(p_new_status, case when p_kind = 'reply' then private.status_after_reply(t.status, actor) end);
  if target is not null then
    perform private.change_status(t.id, target, actor, 'reply');
  end if;
  return m;
end $function$
;

CREATE OR REPLACE FUNCTION public.receive_forward_reply(p_provider_message_id text, p_message_id text, p_forward_id uuid, p_from text, p_body text, p_attachments jsonb DEFAULT NULL::jsonb, p_sender_verified boolean DEFAULT false)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  seen public.inbound_emails;
  f public.ticket_forwards;
  sender uuid;
  m public.messages;
  t public.tickets;
  public_reply boolean;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  select * into seen from public.inbound_emails where provider_message_id = p_provider_message_id;
  if found then
    return jsonb_build_object('outcome', seen.outcome, 'ticket_id', seen.ticket_id, 'message_id', seen.created_message_id,
                              'attachments', private.message_files(seen.created_message_id), 'duplicate', true);
  end if;
  select * into f from public.ticket_forwards where id = p_forward_id;
  select id into sender from auth.users where email = lower(p_from) and deleted_at is null;
  if f.id is null or sender is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = case when f.id is null then 'forward' else 'sender' end;
  end if;
  if not coalesce(p_sender_verified, false)
     and exists (select 1 from public.memberships where workspace_id = f.workspace_id and user_id = sender) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'unverified member';
  end if;
  perform set_config('request.jwt.claim.sub', sender::text, true);
  select * into t from public.tickets where id = f.ticket_id for update;
  public_reply := t.requester_id = sender
    or exists (select 1 from public.ticket_followers x where x.ticket_id = t.id and x.user_id = sender);
  insert into public.messages (ticket_id, author_id, kind, body)
  values (f.ticket_id, sender, case when public_reply then 'reply' else 'note' end, p_body) returning * into m;
  if public_reply and private.status_after_reply(t.status, 'requester') is not null then
    perform private.change_status(t.id, private.status_after_reply(t.status, 'requester'), 'requester', 'reply');
  end if;
  insert into public.inbound_emails (provider_message_id, message_id, ticket_id, created_message_id, outcome)
  values (p_provider_message_id, p_message_id, f.ticket_id, m.id, 'forward_reply');
  return jsonb_build_object('outcome', 'forward_reply', 'ticket_id', f.ticket_id, 'message_id', m.id,
                            'attachments', private.attach_received_files(m.id, p_attachments), 'duplicate', false);
end $function$
;


  create policy "members read the thread, requesters and followers its replies"
  on "public"."messages"
  as permissive
  for select
  to authenticated
using (((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)) OR ((kind = 'reply'::text) AND ((ticket_id IN ( SELECT tickets.id
   FROM tickets
  WHERE (tickets.requester_id = ( SELECT auth.uid() AS uid)))) OR (ticket_id IN ( SELECT private.followed_tickets() AS followed_tickets))))));



  create policy "members read followers, followers read their own"
  on "public"."ticket_followers"
  as permissive
  for select
  to authenticated
using ((private.is_member(workspace_id) OR (user_id = ( SELECT auth.uid() AS uid))));



  create policy "requesters, followers and members read tickets"
  on "public"."tickets"
  as permissive
  for select
  to authenticated
using (((requester_id = ( SELECT auth.uid() AS uid)) OR (workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)) OR (id IN ( SELECT private.followed_tickets() AS followed_tickets))));



  create policy "members, requesters and followers read their workspaces"
  on "public"."workspaces"
  as permissive
  for select
  to authenticated
using (((id IN ( SELECT private.member_workspaces() AS member_workspaces)) OR (id IN ( SELECT t.workspace_id
   FROM tickets t
  WHERE ((t.requester_id = ( SELECT auth.uid() AS uid)) OR (t.id IN ( SELECT private.followed_tickets() AS followed_tickets)))))));

grant execute on function private.followed_tickets() to authenticated;
grant execute on function private.followed_tickets() to service_role;
grant select (cc_adds_followers) on table public.workspaces to authenticated;
grant update (cc_adds_followers) on table public.workspaces to authenticated;
revoke execute on function private.add_followers(p_ticket_id uuid, p_users uuid[]) from public;
revoke execute on function private.follow_copied(p_ticket_id uuid, p_cc text[]) from public;
revoke execute on function private.followed_tickets() from public;
revoke execute on function private.followers_max() from public;
revoke execute on function public.add_ticket_follower(p_ticket_id uuid, p_email text) from anon;
revoke execute on function public.add_ticket_follower(p_ticket_id uuid, p_email text) from public;
revoke execute on function public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb, p_recipient_id uuid, p_sender_verified boolean, p_cc text[], p_subject_rest text) from anon;
revoke execute on function public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb, p_recipient_id uuid, p_sender_verified boolean, p_cc text[], p_subject_rest text) from authenticated;
revoke execute on function public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb, p_recipient_id uuid, p_sender_verified boolean, p_cc text[], p_subject_rest text) from public;
revoke execute on function public.remove_ticket_follower(p_ticket_id uuid, p_user_id uuid) from anon;
revoke execute on function public.remove_ticket_follower(p_ticket_id uuid, p_user_id uuid) from public;
revoke execute on function public.thread_customers(p_ticket_id uuid) from anon;
revoke execute on function public.thread_customers(p_ticket_id uuid) from public;
revoke execute on function public.ticket_follower_list(p_slug text, p_number integer) from anon;
revoke execute on function public.ticket_follower_list(p_slug text, p_number integer) from public;
