drop policy "requesters, followers and members read tickets" on "public"."tickets";

alter table "public"."ticket_events" drop constraint "ticket_events_type_check";

alter table "public"."ticket_events" add constraint "ticket_events_type_check" CHECK ((type = ANY (ARRAY['created'::text, 'status'::text, 'assignee'::text, 'priority'::text, 'tag_added'::text, 'tag_removed'::text, 'snoozed'::text, 'unsnoozed'::text, 'sla_breach'::text, 'merged_into'::text, 'merged_from'::text, 'spam'::text, 'not_spam'::text, 'trashed'::text, 'restored'::text, 'split_to'::text, 'split_from'::text, 'field'::text, 'follower_added'::text, 'follower_removed'::text]))) not valid;

alter table "public"."ticket_events" validate constraint "ticket_events_type_check";

set check_function_bodies = off;

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
  -- A follower answers the thread as its requester does. A thread in Trash is gone for its requester
  -- and followers (54_spam_trash_split.sql): their mail is a new request.
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


  create policy "requesters, followers and members read tickets"
  on "public"."tickets"
  as permissive
  for select
  to authenticated
using (((((requester_id = ( SELECT auth.uid() AS uid)) OR (id IN ( SELECT private.followed_tickets() AS followed_tickets))) AND (trashed_at IS NULL)) OR (workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces))));
