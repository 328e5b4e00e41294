-- Email both ways (issue 17; README "Email"): the notify function mails each public reply to the
-- other side of the conversation, inbound-email turns mail into requests and replies, close-solved
-- closes solved tickets hourly. The database calls the functions as hosted does: pg_net, pg_cron,
-- and Vault's `project_url` and `service_role_key` (written by the local stack; set once on hosted).
create extension if not exists pg_cron with schema pg_catalog;

-- One row per email and recipient: the key (Message-ID, address) makes a retried delivery send
-- nothing twice. The platform's bookkeeping: no API role but service_role reads it (RLS, no policy).
create table public.email_deliveries (
  message_id text not null,
  recipient extensions.citext not null,
  ticket_id uuid references public.tickets (id) on delete cascade,
  status text not null default 'sending' check (status in ('sending', 'sent', 'failed')),
  attempts integer not null default 1,
  last_error text,
  claimed_at timestamptz not null default now(),
  sent_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (message_id, recipient)
);
create index email_deliveries_ticket_idx on public.email_deliveries (ticket_id);
alter table public.email_deliveries enable row level security;
revoke all on public.email_deliveries from anon, authenticated;

-- Customers who asked for no more email (List-Unsubscribe). Agents' mail is their work: not here.
create table public.email_unsubscribes (
  user_id uuid primary key references auth.users (id) on delete cascade,
  created_at timestamptz not null default now()
);
alter table public.email_unsubscribes enable row level security;
revoke all on public.email_unsubscribes from anon, authenticated;

-- Inbound mail already turned into a message, by the provider's id: a replayed webhook finds it here.
create table public.inbound_emails (
  provider_message_id text primary key,
  message_id text,
  ticket_id uuid references public.tickets (id) on delete cascade,
  created_message_id uuid references public.messages (id) on delete set null,
  -- forward_reply: an outside party's answer to a forward (88_rich_mail.sql).
  outcome text not null check (outcome in ('reply', 'request', 'follow_up', 'forward_reply')),
  created_at timestamptz not null default now()
);
create index inbound_emails_ticket_idx on public.inbound_emails (ticket_id);
-- A deleted message (the Trash purge) clears its mail's link: found by index, not by reading all mail.
create index inbound_emails_created_message_idx on public.inbound_emails (created_message_id) where created_message_id is not null;
alter table public.inbound_emails enable row level security;
revoke all on public.inbound_emails from anon, authenticated;

-- The one-click sign-in link of each notification email (docs/decisions/035-email-sign-in-links.md): a
-- random token per email, of which only the SHA-256 is kept; it works once, for 24 hours, whatever
-- other emails or codes were sent since. notify makes them, the app spends them (both as service_role).
create table public.email_sign_in_links (
  token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  user_id uuid not null references auth.users (id) on delete cascade,
  -- Where it leads once signed in: a path of this app (the thread the email is about).
  next text not null check (next ~ '^/[^/\\]' and char_length(next) <= 500),
  expires_at timestamptz not null default now() + interval '24 hours',
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index email_sign_in_links_user_idx on public.email_sign_in_links (user_id, created_at);
alter table public.email_sign_in_links enable row level security;
revoke all on public.email_sign_in_links from anon, authenticated;

-- A new link for one email; the user's spent links (used, or expired a day ago) go. Returns when it expires.
create function public.create_email_sign_in_link(p_user_id uuid, p_next text, p_token_hash text) returns timestamptz
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.create_email_sign_in_link(uuid, text, text) from public, anon, authenticated;
grant execute on function public.create_email_sign_in_link(uuid, text, text) to service_role;

-- Spends a link: its user's email and where it leads, once. An unknown token is link_invalid, a spent
-- one link_used, an old one link_expired; none of them is marked.
create function public.use_email_sign_in_link(p_token text) returns table (email text, next text)
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.use_email_sign_in_link(text) from public, anon, authenticated;
grant execute on function public.use_email_sign_in_link(text) to service_role;

-- ---------------------------------------------------------------------------------------------
-- Whether the caller should send this email to this recipient now: never sent, and not being sent
-- by another call (a claim older than 2 minutes is taken to have died). Counts the attempts.
create function public.claim_email_delivery(p_message_id text, p_recipient text, p_ticket_id uuid) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  return private.claim_email_delivery(p_message_id, p_recipient, p_ticket_id);
end $$;
revoke execute on function public.claim_email_delivery(text, text, uuid) from public, anon, authenticated;
grant execute on function public.claim_email_delivery(text, text, uuid) to service_role;

-- The claim itself, for the platform's own functions that checked their caller once (notify's batch claims each
-- email of it here: private.notification_email).
create function private.claim_email_delivery(p_message_id text, p_recipient text, p_ticket_id uuid) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.email_deliveries as d (message_id, recipient, ticket_id) values (p_message_id, p_recipient, p_ticket_id)
  on conflict (message_id, recipient) do update set attempts = d.attempts + 1, claimed_at = now(), status = 'sending'
   where d.status = 'failed' or (d.status = 'sending' and d.claimed_at < now() - interval '2 minutes');
  return found;
end $$;
revoke all on function private.claim_email_delivery(text, text, uuid) from public;

-- Everything notify's email of one notification shows, in one call, and its claim (it was nine requests
-- and an auth lookup: docs/decisions/089-email-cpu.md): the notification with the recipient's address,
-- the actor's name, its message with its author's name, its ticket with the followers and the public
-- messages' ids (oldest first), its workspace with its email settings, each as PostgREST embedded them;
-- `claimed` is claim_email_delivery's answer for (p_message_id, the recipient) when the notification is
-- to be emailed now (each time, on a ticket, to someone with an address). Null when it is gone.
-- (notify's batch, public.claim_notification_emails, takes the same for each notification it sends.)
create function public.notification_email(p_notification_id uuid, p_message_id text) returns jsonb
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  return private.notification_email(p_notification_id, p_message_id);
end $$;
revoke execute on function public.notification_email(uuid, text) from public, anon, authenticated;
grant execute on function public.notification_email(uuid, text) to service_role;

create function private.notification_email(p_notification_id uuid, p_message_id text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  found_one jsonb;
begin
  select jsonb_build_object(
      'id', n.id, 'kind', n.kind, 'recipient_id', n.recipient_id, 'actor_id', n.actor_id,
      'message_id', n.message_id, 'email', n.email, 'created_at', n.created_at,
      'recipient_email', (select u.email from auth.users u where u.id = n.recipient_id),
      'actor', (select jsonb_build_object('display_name', p.display_name) from public.profiles p where p.user_id = n.actor_id),
      'message', (
        select jsonb_build_object(
          'id', m.id, 'body', m.body, 'author_id', m.author_id, 'created_at', m.created_at,
          'author', (select jsonb_build_object('display_name', p.display_name) from public.profiles p where p.user_id = m.author_id))
          from public.messages m where m.id = n.message_id),
      'ticket', (
        select jsonb_build_object(
          'id', t.id, 'number', t.number, 'subject', t.subject, 'created_at', t.created_at, 'status', t.status,
          'requester_id', t.requester_id,
          'ticket_followers', coalesce(
            (select jsonb_agg(jsonb_build_object('user_id', f.user_id)) from public.ticket_followers f where f.ticket_id = t.id), '[]'),
          'replies', coalesce(
            (select jsonb_agg(jsonb_build_object('id', r.id) order by r.created_at, r.id)
               from public.messages r where r.ticket_id = t.id and r.kind = 'reply'), '[]'))
          from public.tickets t where t.id = n.ticket_id),
      'workspace', (
        select jsonb_build_object(
          'id', w.id, 'slug', w.slug, 'name', w.name, 'time_zone', w.time_zone,
          'workspace_email_settings', (
            select jsonb_build_object(
              'sender_name', s.sender_name, 'sender_address', s.sender_address, 'accent_color', s.accent_color,
              'logo_path', s.logo_path, 'footer', s.footer, 'verified_domain', s.verified_domain)
              from public.workspace_email_settings s where s.workspace_id = w.id))
          from public.workspaces w where w.id = n.workspace_id))
    into found_one
    from public.notifications n where n.id = p_notification_id;
  if found_one->>'email' = 'each' and jsonb_typeof(found_one->'ticket') = 'object'
     and found_one->>'recipient_email' is not null then
    found_one := found_one || jsonb_build_object('claimed', private.claim_email_delivery(
      p_message_id, found_one->>'recipient_email', (found_one->'ticket'->>'id')::uuid));
  end if;
  return found_one;
end $$;
revoke all on function private.notification_email(uuid, text) from public;

-- A notification's email went: its delivery sent and the notification emailed, in one call.
create function public.notification_emailed(p_notification_id uuid, p_message_id text, p_recipient text) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  update public.email_deliveries set status = 'sent', sent_at = now(), last_error = null
   where message_id = p_message_id and recipient = p_recipient;
  update public.notifications set emailed_at = now() where id = p_notification_id;
end $$;
revoke execute on function public.notification_emailed(uuid, text, text) from public, anon, authenticated;
grant execute on function public.notification_emailed(uuid, text, text) to service_role;

-- An inbound email in one transaction: the sender's reply on its thread, a follow-up request when
-- that thread is closed, or a new request in the workspace, with its files' rows (p_attachments, see
-- private.attach_received_files; the function stores the bytes at the paths returned). What it trusts
-- (docs/decisions/034-inbound-email-trust.md): p_ticket_id is the thread the function found (a reply+
-- address whose MAC it checked, else In-Reply-To/References), p_recipient_id whom that address was sent
-- to (null for a thread found otherwise), p_sender_verified whether the provider authenticated From's
-- domain. An unverified From never speaks as a member of the workspace the mail lands in (forbidden:
-- nothing is written). Only the thread's requester or team may answer it, and on a per-recipient address
-- only that recipient: anyone else's mail becomes a request of their own in that workspace. The message
-- moves the status as post_message's does, for the sender. A provider id seen before returns what it
-- made (with its files, which the function stores again if any is missing). A follower answers as the
-- requester does (their public message); the people the email copies (p_cc) follow the ticket, and
-- `cc_unknown` lists those without an account yet (54_followers.sql). A new request's subject comes cut
-- to fit (after a whole word, as the portal's is), the rest (p_subject_rest) at the top of its message.
create function public.receive_email(
  p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid,
  p_subject text, p_body text, p_attachments jsonb default null, p_recipient_id uuid default null,
  p_sender_verified boolean default false, p_cc text[] default null, p_subject_rest text default null
) returns jsonb
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.receive_email(text, text, text, text, uuid, text, text, jsonb, uuid, boolean, text[], text) from public, anon, authenticated;
grant execute on function public.receive_email(text, text, text, text, uuid, text, text, jsonb, uuid, boolean, text[], text) to service_role;

-- ---------------------------------------------------------------------------------------------
-- Calls an edge function once the transaction commits (pg_net), with Vault's project URL and service
-- key, as hosted's database webhooks do; nothing until Vault knows the project.
create function private.call_function(p_name text, p_body jsonb) returns void
language plpgsql security definer set search_path = '' as $$
declare
  project_url text := (select decrypted_secret from vault.decrypted_secrets where name = 'project_url');
  service_key text := (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key');
begin
  if project_url is null or service_key is null then
    return;
  end if;
  perform net.http_post(
    url := project_url || '/functions/v1/' || p_name,
    body := p_body,
    headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || service_key),
    timeout_milliseconds := 30000
  );
end $$;

-- Every public reply of the team written through the API (the app, inbound-email) goes to notify, which
-- mails it to the requester. What customers write reaches the team as notifications (85_notifications.sql).
-- Notes never leave the database. A direct database session (seed, imports) mails no one.
create function private.notify_message() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if auth.role() is not null
     and exists (select 1 from public.tickets t join public.memberships m on m.workspace_id = t.workspace_id
                  where t.id = new.ticket_id and m.user_id = new.author_id and t.requester_id <> new.author_id
                    -- Spam and Trash mail no one (54_spam_trash_split.sql).
                    and t.spam_at is null and t.trashed_at is null) then
    perform private.call_function('notify', jsonb_build_object('type', 'message', 'message_id', new.id));
  end if;
  return null;
end $$;
create trigger messages_notify after insert on public.messages
  for each row when (new.kind = 'reply') execute function private.notify_message();

-- An invitation, and each resend (a new token), emails the invitee through notify (the link to
-- /invite/<token>; docs/decisions/024-invitation-email-by-notify.md). The table keeps only the token's
-- SHA-256, so the app sends the token with its write in the header X-Invitation-Token (PostgREST's
-- request.headers); it goes on to notify through pg_net's queue, which forgets it once sent. No header,
-- or one that isn't this row's token: nothing is sent.
create function private.notify_invitation() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  token text := nullif(current_setting('request.headers', true), '')::jsonb ->> 'x-invitation-token';
begin
  if token is not null and encode(sha256(convert_to(token, 'UTF8')), 'hex') = new.token_hash then
    perform private.call_function('notify',
      jsonb_build_object('type', 'invitation', 'invitation_id', new.id, 'token', token));
  end if;
  return null;
end $$;
create trigger invitations_notify after insert or update of token_hash on public.invitations
  for each row execute function private.notify_invitation();

-- Invitation emails go to any address an admin types, and anyone may make a workspace: at most 5 to one
-- address an hour and 50 from a workspace an hour. Each invitation or resend written through the API is
-- counted here as it is written (notify sends later: counting its deliveries let quick resends through).
create table public.invitation_sends (
  id bigint generated always as identity primary key,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  email extensions.citext not null,
  created_at timestamptz not null default now()
);
create index invitation_sends_email_idx on public.invitation_sends (email, created_at);
create index invitation_sends_workspace_idx on public.invitation_sends (workspace_id, created_at);
create index invitation_sends_created_idx on public.invitation_sends (created_at);
alter table public.invitation_sends enable row level security;
revoke all on public.invitation_sends from anon, authenticated;

-- Past either limit the write is refused with too_many_attempts, its hint the seconds until one more may
-- go, and nothing is written. Writes for one address, and for one workspace, take turns (an advisory
-- lock), so parallel resends can't all pass the count.
create function private.limit_invitations() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
create trigger invitations_limit before insert or update of token_hash on public.invitations
  for each row when (current_user in ('anon', 'authenticated')) execute function private.limit_invitations();
revoke all on function private.call_function(text, jsonb), private.notify_message(), private.notify_invitation(),
  private.limit_invitations() from public;

-- Emails that didn't go (the SMTP server refused or was down through notify's back-off, or notify died
-- mid-send) are tried again every 10 minutes, up to 5 attempts within a day: notify sends only what
-- isn't sent yet. The Message-ID says what an email was: <m.<message>@…> a reply to the customer,
-- <n.<notification>@…> a notification, <d.<workspace>.<member>.<hash>@…> a digest, <s.<survey>@…> a
-- satisfaction survey (92_satisfaction.sql), <a.<ticket>@…> an acknowledgement outside business hours
-- (93_after_hours.sql). A failed invitation
-- email isn't retried (its token is not kept): the admin resends.
-- `db diff` doesn't see the cron.schedule below (data, not schema): the migration carries it by hand.
create function private.retry_failed_emails() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  id text;
  n integer := 0;
  uuid_re constant text := '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';
  parts text[];
begin
  for id in
    select distinct d.message_id
      from public.email_deliveries d
     where d.attempts < 5 and d.created_at > now() - interval '1 day'
       and (d.status = 'failed' or (d.status = 'sending' and d.claimed_at < now() - interval '2 minutes'))
  loop
    parts := regexp_match(id, '^<([mndsa])\.' || uuid_re || '(?:\.' || uuid_re || ')?[.@]');
    continue when parts is null;
    perform private.call_function('notify', case parts[1]
      when 'm' then jsonb_build_object('type', 'message', 'message_id', parts[2])
      when 'n' then jsonb_build_object('type', 'notification', 'notification_id', parts[2])
      when 's' then jsonb_build_object('type', 'survey', 'survey_id', parts[2])
      when 'a' then jsonb_build_object('type', 'acknowledgement', 'ticket_id', parts[2])
      else jsonb_build_object('type', 'digest', 'workspace_id', parts[2], 'recipient_id', parts[3]) end);
    n := n + 1;
  end loop;
  -- Notifications queued a minute ago and still waiting (their call was lost: notify or pg_net down).
  if exists (select 1 from private.notification_emails where queued_at < now() - interval '1 minute') then
    perform private.call_function('notify', '{"type": "notifications"}');
    n := n + 1;
  end if;
  return n;
end $$;
revoke all on function private.retry_failed_emails() from public;
select cron.schedule('retry-emails', '*/10 * * * *', 'select private.retry_failed_emails()');

-- Solved requests close after 7 days: the close-solved function, hourly, called as hosted's
-- scheduling guide does it (pg_cron + pg_net + Vault). `db diff` doesn't see this statement (data,
-- not schema): its migration carries it, added by hand below the generated part.
select cron.schedule(
  'close-solved',
  '0 * * * *',
  $job$
  select net.http_post(
    url := (select decrypted_secret from vault.decrypted_secrets where name = 'project_url') || '/functions/v1/close-solved',
    headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization',
                                  'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key')),
    body := '{}'::jsonb,
    timeout_milliseconds := 30000
  ) as request_id
  $job$
);

-- Files no message claims (40_attachments.sql) are swept hourly at half past by the sweep-attachments
-- function, called through pg_net with Vault's key as notify is (private.call_function). `db diff`
-- doesn't see this statement (data, not schema): its migration carries it by hand.
select cron.schedule('sweep-attachments', '30 * * * *', $$ select private.call_function('sweep-attachments', '{}') $$);

-- Snoozed tickets wake when due (52_triage.sql), checked every minute. `db diff` doesn't see this
-- statement (data, not schema): its migration carries it by hand.
select cron.schedule('wake-snoozed', '* * * * *', 'select private.wake_snoozed_tickets()');

-- Tickets in Trash for 30 days are deleted for good (54_spam_trash_split.sql), checked every minute. `db
-- diff` doesn't see this statement (data, not schema): its migration carries it by hand.
select cron.schedule('purge-trash', '* * * * *', 'select private.purge_trash()');

-- Words that became common in tickets' search text get their pairs kept (50_inbox.sql), nightly. `db diff` doesn't
-- see this statement (data, not schema): its migration carries it by hand.
select cron.schedule('keep-search-pairs', '40 3 * * *', 'call private.keep_common_search_pairs()');
