drop function if exists "public"."create_ticket"(p_workspace_slug text, p_subject text, p_body text, p_attachments jsonb, p_ticket_id uuid);

drop function if exists "public"."post_message"(p_ticket_id uuid, p_body text, p_kind text, p_new_status ticket_status, p_last_seen_message_id uuid, p_attachments jsonb);

alter table "public"."messages" add column "client_key" uuid;

alter table "public"."tickets" add column "client_key" uuid;

CREATE UNIQUE INDEX messages_author_client_key ON public.messages USING btree (author_id, client_key);

CREATE UNIQUE INDEX tickets_requester_client_key ON public.tickets USING btree (requester_id, client_key);

alter table "public"."messages" add constraint "messages_author_client_key" UNIQUE using index "messages_author_client_key";

alter table "public"."tickets" add constraint "tickets_requester_client_key" UNIQUE using index "tickets_requester_client_key";

set check_function_bodies = off;

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
  insert into public.tickets (id, workspace_id, requester_id, subject, client_key)
  values (coalesce(p_ticket_id, gen_random_uuid()), ws, auth.uid(), trim(p_subject), p_client_key) returning * into t;
  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), 'reply', p_body)
  returning public.messages.id into message_id;
  perform private.attach_files(message_id, p_attachments);
  return query select t.id, t.number;
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
  -- What the policies let through: the ticket's team, or its requester.
  if t.id is null or auth.uid() is null or (actor = 'requester' and t.requester_id <> auth.uid()) then
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

revoke execute on function public.create_ticket(p_workspace_slug text, p_subject text, p_body text, p_attachments jsonb, p_ticket_id uuid, p_client_key uuid) from anon;
revoke execute on function public.create_ticket(p_workspace_slug text, p_subject text, p_body text, p_attachments jsonb, p_ticket_id uuid, p_client_key uuid) from public;
revoke execute on function public.post_message(p_ticket_id uuid, p_body text, p_kind text, p_new_status ticket_status, p_last_seen_message_id uuid, p_attachments jsonb, p_client_key uuid) from anon;
revoke execute on function public.post_message(p_ticket_id uuid, p_body text, p_kind text, p_new_status ticket_status, p_last_seen_message_id uuid, p_attachments jsonb, p_client_key uuid) from public;
