drop function if exists "public"."receive_email"(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb);

drop index if exists "public"."email_deliveries_recipient_idx";


  create table "public"."email_sign_in_links" (
    "token_hash" text not null,
    "user_id" uuid not null,
    "next" text not null,
    "expires_at" timestamp with time zone not null default (now() + '24:00:00'::interval),
    "used_at" timestamp with time zone,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."email_sign_in_links" enable row level security;


  create table "public"."invitation_sends" (
    "id" bigint generated always as identity not null,
    "workspace_id" uuid not null,
    "email" extensions.citext not null,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."invitation_sends" enable row level security;

CREATE UNIQUE INDEX email_sign_in_links_pkey ON public.email_sign_in_links USING btree (token_hash);

CREATE INDEX email_sign_in_links_user_idx ON public.email_sign_in_links USING btree (user_id, created_at);

CREATE INDEX invitation_sends_created_idx ON public.invitation_sends USING btree (created_at);

CREATE INDEX invitation_sends_email_idx ON public.invitation_sends USING btree (email, created_at);

CREATE UNIQUE INDEX invitation_sends_pkey ON public.invitation_sends USING btree (id);

CREATE INDEX invitation_sends_workspace_idx ON public.invitation_sends USING btree (workspace_id, created_at);

alter table "public"."email_sign_in_links" add constraint "email_sign_in_links_pkey" PRIMARY KEY using index "email_sign_in_links_pkey";

alter table "public"."invitation_sends" add constraint "invitation_sends_pkey" PRIMARY KEY using index "invitation_sends_pkey";

alter table "public"."email_sign_in_links" add constraint "email_sign_in_links_next_check" CHECK (((next ~ '^/[^/\\]'::text) AND (char_length(next) <= 500))) not valid;

alter table "public"."email_sign_in_links" validate constraint "email_sign_in_links_next_check";

alter table "public"."email_sign_in_links" add constraint "email_sign_in_links_token_hash_check" CHECK ((token_hash ~ '^[0-9a-f]{64}$'::text)) not valid;

alter table "public"."email_sign_in_links" validate constraint "email_sign_in_links_token_hash_check";

alter table "public"."email_sign_in_links" add constraint "email_sign_in_links_user_id_fkey" FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE not valid;

alter table "public"."email_sign_in_links" validate constraint "email_sign_in_links_user_id_fkey";

alter table "public"."invitation_sends" add constraint "invitation_sends_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."invitation_sends" validate constraint "invitation_sends_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.refuse_member_invitation()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if exists (select 1 from public.memberships m join auth.users u on u.id = m.user_id
              where m.workspace_id = new.workspace_id and lower(u.email) = lower(new.email::text)) then
    raise exception using errcode = 'P0001', message = 'already_member';
  end if;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION public.create_email_sign_in_link(p_user_id uuid, p_next text, p_token_hash text)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  expires timestamptz;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  delete from public.email_sign_in_links
   where user_id = p_user_id and (used_at is not null or expires_at < now() - interval '1 day');
  insert into public.email_sign_in_links (token_hash, user_id, next) values (p_token_hash, p_user_id, p_next)
  returning expires_at into expires;
  return expires;
end $function$
;

CREATE OR REPLACE FUNCTION public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb DEFAULT NULL::jsonb, p_recipient_id uuid DEFAULT NULL::uuid, p_sender_verified boolean DEFAULT false)
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
    return jsonb_build_object('outcome', seen.outcome, 'ticket_id', seen.ticket_id, 'message_id', seen.created_message_id,
                              'attachments', private.message_files(seen.created_message_id), 'duplicate', true);
  end if;
  select id into sender from auth.users where email = lower(p_from) and deleted_at is null;
  if sender is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'sender';
  end if;

  if p_ticket_id is not null then
    select * into t from public.tickets where id = p_ticket_id for update;
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
  if t.id is not null and ((actor = 'requester' and t.requester_id <> sender) or p_recipient_id <> sender) then
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
    values (ws, sender, left(coalesce(nullif(trim(p_subject), ''), '(no subject)'), 200), follows) returning * into t;
    insert into public.messages (ticket_id, author_id, kind, body) values (t.id, sender, 'reply', p_body) returning * into m;
    outcome := case when follows is null then 'request' else 'follow_up' end;
  end if;
  insert into public.inbound_emails (provider_message_id, message_id, ticket_id, created_message_id, outcome)
  values (p_provider_message_id, p_message_id, t.id, m.id, outcome);
  return jsonb_build_object('outcome', outcome, 'ticket_id', t.id, 'number', t.number, 'message_id', m.id,
                            'follow_up_of', follows, 'attachments', private.attach_received_files(m.id, p_attachments),
                            'duplicate', false);
end $function$
;

CREATE OR REPLACE FUNCTION public.use_email_sign_in_link(p_token text)
 RETURNS TABLE(email text, next text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  l public.email_sign_in_links;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  select * into l from public.email_sign_in_links
   where token_hash = encode(extensions.digest(coalesce(p_token, ''), 'sha256'), 'hex') for update;
  if l.token_hash is null then
    raise exception using errcode = 'P0001', message = 'link_invalid';
  elsif l.used_at is not null then
    raise exception using errcode = 'P0001', message = 'link_used';
  elsif l.expires_at <= now() then
    raise exception using errcode = 'P0001', message = 'link_expired';
  end if;
  update public.email_sign_in_links set used_at = now() where token_hash = l.token_hash;
  return query select u.email::text, l.next from auth.users u where u.id = l.user_id and u.deleted_at is null;
end $function$
;

CREATE OR REPLACE FUNCTION private.limit_invitations()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  free_at timestamptz;
begin
  perform pg_advisory_xact_lock(hashtextextended('invitation_sends:' || new.email::text, 0));
  perform pg_advisory_xact_lock(hashtextextended('invitation_sends:' || new.workspace_id::text, 0));
  delete from public.invitation_sends where created_at <= now() - interval '1 hour';
  -- When the 5th newest to the address (the 50th newest of the workspace) leaves the hour.
  select greatest(
           (select s.created_at from public.invitation_sends s where s.email = new.email
             order by s.created_at desc offset 4 limit 1),
           (select s.created_at from public.invitation_sends s where s.workspace_id = new.workspace_id
             order by s.created_at desc offset 49 limit 1)
         ) + interval '1 hour'
    into free_at;
  if free_at is not null then
    raise exception using errcode = 'P0001', message = 'too_many_attempts', detail = 'invitation emails',
      hint = ceil(greatest(extract(epoch from free_at - now()), 1))::text;
  end if;
  insert into public.invitation_sends (workspace_id, email) values (new.workspace_id, new.email);
  return new;
end $function$
;

CREATE TRIGGER invitations_existing_member BEFORE INSERT OR UPDATE OF email, token_hash ON public.invitations FOR EACH ROW WHEN ((CURRENT_USER = ANY (ARRAY['anon'::name, 'authenticated'::name]))) EXECUTE FUNCTION private.refuse_member_invitation();

revoke delete on table public.email_sign_in_links from anon;
revoke delete on table public.email_sign_in_links from authenticated;
revoke delete on table public.invitation_sends from anon;
revoke delete on table public.invitation_sends from authenticated;
revoke execute on function private.refuse_member_invitation() from public;
revoke execute on function public.create_email_sign_in_link(p_user_id uuid, p_next text, p_token_hash text) from anon;
revoke execute on function public.create_email_sign_in_link(p_user_id uuid, p_next text, p_token_hash text) from authenticated;
revoke execute on function public.create_email_sign_in_link(p_user_id uuid, p_next text, p_token_hash text) from public;
revoke execute on function public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb, p_recipient_id uuid, p_sender_verified boolean) from anon;
revoke execute on function public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb, p_recipient_id uuid, p_sender_verified boolean) from authenticated;
revoke execute on function public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb, p_recipient_id uuid, p_sender_verified boolean) from public;
revoke execute on function public.use_email_sign_in_link(p_token text) from anon;
revoke execute on function public.use_email_sign_in_link(p_token text) from authenticated;
revoke execute on function public.use_email_sign_in_link(p_token text) from public;
revoke insert on table public.email_sign_in_links from anon;
revoke insert on table public.email_sign_in_links from authenticated;
revoke insert on table public.invitation_sends from anon;
revoke insert on table public.invitation_sends from authenticated;
revoke maintain on table public.email_sign_in_links from anon;
revoke maintain on table public.email_sign_in_links from authenticated;
revoke maintain on table public.invitation_sends from anon;
revoke maintain on table public.invitation_sends from authenticated;
revoke references on table public.email_sign_in_links from anon;
revoke references on table public.email_sign_in_links from authenticated;
revoke references on table public.invitation_sends from anon;
revoke references on table public.invitation_sends from authenticated;
revoke select on table public.email_sign_in_links from anon;
revoke select on table public.email_sign_in_links from authenticated;
revoke select on table public.invitation_sends from anon;
revoke select on table public.invitation_sends from authenticated;
revoke trigger on table public.email_sign_in_links from anon;
revoke trigger on table public.email_sign_in_links from authenticated;
revoke trigger on table public.invitation_sends from anon;
revoke trigger on table public.invitation_sends from authenticated;
revoke truncate on table public.email_sign_in_links from anon;
revoke truncate on table public.email_sign_in_links from authenticated;
revoke truncate on table public.invitation_sends from anon;
revoke truncate on table public.invitation_sends from authenticated;
revoke update on table public.email_sign_in_links from anon;
revoke update on table public.email_sign_in_links from authenticated;
revoke update on table public.invitation_sends from anon;
revoke update on table public.invitation_sends from authenticated;
