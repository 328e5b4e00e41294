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
-- Invitation emails per address (private.limit_invitations).
create index email_deliveries_recipient_idx on public.email_deliveries (recipient, created_at);
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
  outcome text not null check (outcome in ('reply', 'request', 'follow_up')),
  created_at timestamptz not null default now()
);
create index inbound_emails_ticket_idx on public.inbound_emails (ticket_id);
alter table public.inbound_emails enable row level security;
revoke all on public.inbound_emails from anon, authenticated;

-- ---------------------------------------------------------------------------------------------
-- Whether the caller should send this email to this recipient now: never sent, and not being sent
-- by another call (a claim older than 2 minutes is taken to have died). Counts the attempts.
create function public.claim_email_delivery(p_message_id text, p_recipient text, p_ticket_id uuid) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  insert into public.email_deliveries as d (message_id, recipient, ticket_id) values (p_message_id, p_recipient, p_ticket_id)
  on conflict (message_id, recipient) do update set attempts = d.attempts + 1, claimed_at = now(), status = 'sending'
   where d.status = 'failed' or (d.status = 'sending' and d.claimed_at < now() - interval '2 minutes');
  return found;
end $$;
revoke execute on function public.claim_email_delivery(text, text, uuid) from public, anon, authenticated;
grant execute on function public.claim_email_delivery(text, text, uuid) to service_role;

-- An inbound email in one transaction: the sender's reply on its thread, a follow-up request when
-- that thread is closed, or a new request in the workspace, with its files' rows (p_attachments, see
-- private.attach_received_files; the function stores the bytes at the paths returned). p_ticket_id is
-- the thread the function found (Reply-To token, In-Reply-To/References); only its requester and its
-- team may reply there, anyone else's mail becomes a request of their own. A provider id seen before
-- returns what it made (with its files, which the function stores again if any is missing).
create function public.receive_email(
  p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid,
  p_subject text, p_body text, p_attachments jsonb default null
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  seen public.inbound_emails;
  sender uuid;
  t public.tickets;
  ws uuid;
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
    if t.id is not null and t.requester_id <> sender and private.ticket_actor(t.workspace_id, sender) = 'requester' then
      t := null; -- not theirs to answer: a request of their own in that workspace
      select w.id into ws from public.workspaces w join public.tickets x on x.workspace_id = w.id where x.id = p_ticket_id;
    end if;
  end if;
  if t.id is not null and t.status <> 'closed' then
    insert into public.messages (ticket_id, author_id, kind, body) values (t.id, sender, 'reply', p_body) returning * into m;
    outcome := 'reply';
  else
    if t.id is not null then
      ws := t.workspace_id;
      follows := t.id;
    elsif ws is null then
      select w.id into ws from public.workspaces w where w.slug = lower(p_workspace_slug);
    end if;
    if ws is null then
      raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
    end if;
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
end $$;
revoke execute on function public.receive_email(text, text, text, text, uuid, text, text, jsonb) from public, anon, authenticated;
grant execute on function public.receive_email(text, text, text, text, uuid, text, text, jsonb) to service_role;

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

-- Every public reply written through the API (the app, the portal, inbound-email) goes to notify.
-- Notes never leave the database. A direct database session (seed, imports) mails no one.
create function private.notify_message() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if auth.role() is not null then
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
-- address an hour (what notify sent or is sending) and 50 a workspace an hour (invitations sent or
-- resent). More is refused with too_many_attempts, and nothing is written.
create function private.limit_invitations() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if (select count(*) from public.email_deliveries d
       where d.recipient = new.email and d.message_id like '<i.%' and d.created_at > now() - interval '1 hour') >= 5
     or (select count(*) from public.invitations i
          where i.workspace_id = new.workspace_id and i.expires_at > now() + interval '7 days' - interval '1 hour') >= 50
  then
    raise exception using errcode = 'P0001', message = 'too_many_attempts', detail = 'invitation emails';
  end if;
  return new;
end $$;
create trigger invitations_limit before insert or update of token_hash on public.invitations
  for each row when (current_user in ('anon', 'authenticated')) execute function private.limit_invitations();
revoke all on function private.call_function(text, jsonb), private.notify_message(), private.notify_invitation(),
  private.limit_invitations() from public;

-- Emails that didn't go (the SMTP server refused or was down through notify's back-off, or notify died
-- mid-send) are tried again every 10 minutes, up to 5 attempts within a day: notify sends only what
-- isn't sent yet. A failed invitation email isn't retried (its token is not kept): the admin resends.
-- `db diff` doesn't see the cron.schedule below (data, not schema): the migration carries it by hand.
create function private.retry_failed_emails() returns integer
language plpgsql security definer set search_path = '' as $$
declare
  message uuid;
  n integer := 0;
begin
  for message in
    select distinct substring(d.message_id from '^<m\.([0-9a-f-]{36})@')::uuid
      from public.email_deliveries d
     where d.message_id like '<m.%' and d.attempts < 5 and d.created_at > now() - interval '1 day'
       and (d.status = 'failed' or (d.status = 'sending' and d.claimed_at < now() - interval '2 minutes'))
  loop
    perform private.call_function('notify', jsonb_build_object('type', 'message', 'message_id', message));
    n := n + 1;
  end loop;
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
