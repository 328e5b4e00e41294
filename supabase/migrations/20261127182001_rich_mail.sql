alter table "public"."inbound_emails" drop constraint "inbound_emails_outcome_check";


  create table "public"."ticket_forwards" (
    "id" uuid not null default gen_random_uuid(),
    "ticket_id" uuid not null,
    "workspace_id" uuid not null,
    "message_id" uuid,
    "to_address" text not null,
    "note" text not null default ''::text,
    "created_by" uuid not null default auth.uid(),
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."ticket_forwards" enable row level security;

CREATE UNIQUE INDEX ticket_forwards_pkey ON public.ticket_forwards USING btree (id);

CREATE INDEX ticket_forwards_ticket_idx ON public.ticket_forwards USING btree (ticket_id);

CREATE INDEX ticket_forwards_workspace_idx ON public.ticket_forwards USING btree (workspace_id);

alter table "public"."ticket_forwards" add constraint "ticket_forwards_pkey" PRIMARY KEY using index "ticket_forwards_pkey";

alter table "public"."ticket_forwards" add constraint "ticket_forwards_created_by_fkey" FOREIGN KEY (created_by) REFERENCES auth.users(id) not valid;

alter table "public"."ticket_forwards" validate constraint "ticket_forwards_created_by_fkey";

alter table "public"."ticket_forwards" add constraint "ticket_forwards_message_id_fkey" FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_forwards" validate constraint "ticket_forwards_message_id_fkey";

alter table "public"."ticket_forwards" add constraint "ticket_forwards_note_check" CHECK ((char_length(note) <= 20000)) not valid;

alter table "public"."ticket_forwards" validate constraint "ticket_forwards_note_check";

alter table "public"."ticket_forwards" add constraint "ticket_forwards_ticket_id_fkey" FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_forwards" validate constraint "ticket_forwards_ticket_id_fkey";

alter table "public"."ticket_forwards" add constraint "ticket_forwards_to_address_check" CHECK (((to_address ~ '^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$'::text) AND (char_length(to_address) <= 254))) not valid;

alter table "public"."ticket_forwards" validate constraint "ticket_forwards_to_address_check";

alter table "public"."ticket_forwards" add constraint "ticket_forwards_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_forwards" validate constraint "ticket_forwards_workspace_id_fkey";

alter table "public"."inbound_emails" add constraint "inbound_emails_outcome_check" CHECK ((outcome = ANY (ARRAY['reply'::text, 'request'::text, 'follow_up'::text, 'forward_reply'::text]))) not valid;

alter table "public"."inbound_emails" validate constraint "inbound_emails_outcome_check";

set check_function_bodies = off;

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
  insert into public.messages (ticket_id, author_id, kind, body) values (f.ticket_id, sender, 'note', p_body) returning * into m;
  insert into public.inbound_emails (provider_message_id, message_id, ticket_id, created_message_id, outcome)
  values (p_provider_message_id, p_message_id, f.ticket_id, m.id, 'forward_reply');
  return jsonb_build_object('outcome', 'forward_reply', 'ticket_id', f.ticket_id, 'message_id', m.id,
                            'attachments', private.attach_received_files(m.id, p_attachments), 'duplicate', false);
end $function$
;

CREATE OR REPLACE FUNCTION public.start_conversation(p_workspace_id uuid, p_requester_email text, p_subject text, p_body text, p_attachments jsonb DEFAULT NULL::jsonb, p_ticket_id uuid DEFAULT NULL::uuid, p_client_key uuid DEFAULT NULL::uuid)
 RETURNS TABLE(id uuid, number integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  requester uuid;
  t public.tickets;
  message_id uuid;
begin
  if auth.uid() is null or not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  select u.id into requester from auth.users u where u.email = lower(trim(p_requester_email)) and u.deleted_at is null;
  if requester is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'requester';
  end if;
  if requester = auth.uid() then
    raise exception using errcode = 'P0001', message = 'requester_is_you', detail = 'a conversation with yourself';
  end if;
  -- A form sent twice opens one conversation: the second gets the first (the lock queues the two).
  if p_client_key is not null then
    perform pg_advisory_xact_lock(hashtextextended(requester::text || p_client_key::text, 0));
    select * into t from public.tickets tk where tk.requester_id = requester and tk.client_key = p_client_key;
    if t.id is not null then
      if t.workspace_id <> p_workspace_id then
        raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
      end if;
      return query select t.id, t.number;
      return;
    end if;
  end if;
  insert into public.tickets (id, workspace_id, requester_id, subject, client_key, status, assignee_id)
  values (coalesce(p_ticket_id, gen_random_uuid()), p_workspace_id, requester, trim(p_subject), p_client_key,
          'pending', auth.uid())
  returning * into t;
  insert into public.messages (ticket_id, author_id, kind, body) values (t.id, auth.uid(), 'reply', p_body)
  returning public.messages.id into message_id;
  perform private.attach_files(message_id, p_attachments);
  return query select t.id, t.number;
end $function$
;


  create policy "Members read their workspace's forwards"
  on "public"."ticket_forwards"
  as permissive
  for select
  to authenticated
using (( SELECT private.is_member(ticket_forwards.workspace_id) AS is_member));

revoke delete on table public.ticket_forwards from anon;
revoke delete on table public.ticket_forwards from authenticated;
revoke execute on function public.forward_ticket(p_ticket_id uuid, p_to text, p_note text, p_message_id uuid) from anon;
revoke execute on function public.forward_ticket(p_ticket_id uuid, p_to text, p_note text, p_message_id uuid) from public;
revoke execute on function public.receive_forward_reply(p_provider_message_id text, p_message_id text, p_forward_id uuid, p_from text, p_body text, p_attachments jsonb, p_sender_verified boolean) from anon;
revoke execute on function public.receive_forward_reply(p_provider_message_id text, p_message_id text, p_forward_id uuid, p_from text, p_body text, p_attachments jsonb, p_sender_verified boolean) from authenticated;
revoke execute on function public.receive_forward_reply(p_provider_message_id text, p_message_id text, p_forward_id uuid, p_from text, p_body text, p_attachments jsonb, p_sender_verified boolean) from public;
revoke execute on function public.start_conversation(p_workspace_id uuid, p_requester_email text, p_subject text, p_body text, p_attachments jsonb, p_ticket_id uuid, p_client_key uuid) from anon;
revoke execute on function public.start_conversation(p_workspace_id uuid, p_requester_email text, p_subject text, p_body text, p_attachments jsonb, p_ticket_id uuid, p_client_key uuid) from public;
revoke insert on table public.ticket_forwards from anon;
revoke insert on table public.ticket_forwards from authenticated;
revoke update on table public.ticket_forwards from anon;
revoke update on table public.ticket_forwards from authenticated;
