-- New conversations and forwards (issue 29 item 5; docs/decisions/057-new-conversations-and-forwards.md).
-- An agent starts a ticket for a customer by their email address: the ticket is theirs (the requester),
-- its first message the agent's reply, which notify emails them (80_email.sql), and their answer threads
-- back through inbound-email as any reply does. An agent forwards a ticket, or one of its public
-- messages, to an outside address with a note: notify sends it with a Reply-To of the forward's own
-- (fwd+<token>@…), and the outside party's answer comes back into the ticket as an internal note.

-- ---------------------------------------------------------------------------------------------
-- The customer must have an account first (the ensure-customer function makes one, as inbound-email
-- does for an unknown sender). Files uploaded first to <agent>/<workspace>/<p_ticket_id>/… as a new
-- request's are (40_attachments.sql). The ticket waits on the customer (pending) and is the agent's.
create function public.start_conversation(
  p_workspace_id uuid, p_requester_email text, p_subject text, p_body text, p_attachments jsonb default null,
  p_ticket_id uuid default null, p_client_key uuid default null
)
returns table (id uuid, number integer)
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.start_conversation(uuid, text, text, text, jsonb, uuid, uuid) from public, anon;
grant execute on function public.start_conversation(uuid, text, text, text, jsonb, uuid, uuid) to authenticated;

-- ---------------------------------------------------------------------------------------------
create table public.ticket_forwards (
  id uuid primary key default gen_random_uuid(),
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- One public message, or the whole conversation (null).
  message_id uuid references public.messages (id) on delete cascade,
  to_address text not null check (to_address ~ '^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$' and char_length(to_address) <= 254),
  note text not null default '' check (char_length(note) <= 20000),
  created_by uuid not null default auth.uid() references auth.users (id),
  created_at timestamptz not null default now()
);
create index ticket_forwards_ticket_idx on public.ticket_forwards (ticket_id);
-- A deleted message (the Trash purge) takes its forwards along: found by index.
create index ticket_forwards_message_idx on public.ticket_forwards (message_id) where message_id is not null;
create index ticket_forwards_workspace_idx on public.ticket_forwards (workspace_id, created_at);
create index ticket_forwards_agent_idx on public.ticket_forwards (created_by, created_at);
alter table public.ticket_forwards enable row level security;
-- Written by forward_ticket only; read by the team.
revoke insert, update, delete on public.ticket_forwards from anon, authenticated;
create policy "Members read their workspace's forwards" on public.ticket_forwards
  for select to authenticated using ((select private.is_member(workspace_id)));

-- The forward, the note that says so in the thread, and notify's call, in one transaction. A forward mails
-- any address an agent types: at most 20 an hour from one agent and 100 from a workspace (as invitations
-- are held, 80_email.sql), past which it is too_many_attempts with the seconds to wait as its hint; an
-- agent's forwards, and a workspace's, take turns (advisory locks), so parallel ones can't all pass the count.
create function public.forward_ticket(p_ticket_id uuid, p_to text, p_note text default '', p_message_id uuid default null)
returns uuid
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.forward_ticket(uuid, text, text, uuid) from public, anon;
grant execute on function public.forward_ticket(uuid, text, text, uuid) to authenticated;

-- The outside party's answer to a forward (inbound-email, service_role, after checking the fwd+
-- address's MAC): an internal note of theirs on the ticket, with its files; from someone who follows the
-- ticket (or its requester), their public message, which moves the status as their reply would
-- (docs/decisions/064-followers.md). A provider id seen before
-- returns what it made. Mail to a closed ticket is refused (ticket_closed), as a reply is. As in
-- receive_email, an unverified From never speaks as a member of the workspace (forbidden).
create function public.receive_forward_reply(
  p_provider_message_id text, p_message_id text, p_forward_id uuid, p_from text, p_body text, p_attachments jsonb default null,
  p_sender_verified boolean default false
) returns jsonb
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke execute on function public.receive_forward_reply(text, text, uuid, text, text, jsonb, boolean) from public, anon, authenticated;
grant execute on function public.receive_forward_reply(text, text, uuid, text, text, jsonb, boolean) to service_role;
