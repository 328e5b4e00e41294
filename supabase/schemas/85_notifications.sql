-- Notifications for the team (docs/product.md#notifications; docs/decisions/045-notifications.md): one table of
-- what happened to whom, each member's choice per event kind (in the app's bell, by email each time or
-- in a daily digest, or not at all), the team's defaults that admins set, and ONE function that every
-- feature calls to tell a member something: private.notify_member. Customers get no notifications:
-- their emails are the thread's (80_email.sql).

-- What a member may hear of (notifications.kind, and the settings' kind): checked text, so a new event
-- is one more name in private.notification_kinds() (and its line in private.notification_builtin and
-- app/lib/notifications/kinds.ts), not a type change.
--   new_request     a customer writes on an unassigned ticket (a new request, or a reply while nobody has it)
--   assigned        someone else assigned a ticket to me
--   customer_reply  the requester wrote on a ticket assigned to me
--   mention         someone mentioned me (the triage issue)
--   sla_warning     a ticket assigned to me missed an SLA target (record_sla_breaches, 90_promises.sql)
--   rule            a rule asked for me on a ticket (95_rules.sql)
-- How a notification reaches a member by email (the settings' email): 'each' time, a daily 'digest', or 'off'.
create function private.notification_kinds() returns text[]
language sql immutable set search_path = '' as $$
  select array['new_request', 'assigned', 'customer_reply', 'mention', 'sla_warning', 'rule']
$$;

create table public.notifications (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  recipient_id uuid not null references auth.users (id) on delete cascade,
  kind text not null check (kind = any (private.notification_kinds())),
  ticket_id uuid references public.tickets (id) on delete cascade,
  message_id uuid references public.messages (id) on delete cascade,
  -- Who did it (null: the platform); also a profile, so PostgREST can embed the name.
  actor_id uuid references auth.users (id) on delete set null
    constraint notifications_actor_profile_fkey references public.profiles (user_id) on delete set null,
  -- As the recipient's settings said when it was made: shown in the bell, and how it is emailed.
  in_app boolean not null,
  email text not null check (email in ('each', 'digest', 'off')),
  emailed_at timestamptz,
  read_at timestamptz,
  created_at timestamptz not null default now(),
  -- Someone who leaves a workspace takes its notifications along.
  constraint notifications_membership_fkey foreign key (workspace_id, recipient_id)
    references public.memberships (workspace_id, user_id) on delete cascade
);
create index notifications_recipient_idx on public.notifications (recipient_id, created_at desc) where in_app;
create index notifications_unread_idx on public.notifications (recipient_id) where in_app and read_at is null;
create index notifications_digest_idx on public.notifications (workspace_id, recipient_id)
  where email = 'digest' and emailed_at is null;
create index notifications_membership_idx on public.notifications (workspace_id, recipient_id);
create index notifications_ticket_idx on public.notifications (ticket_id);
create index notifications_message_idx on public.notifications (message_id);
create index notifications_actor_idx on public.notifications (actor_id);

-- A member's own choices, one row per event kind they changed; the rest follow the team's defaults.
create table public.notification_settings (
  workspace_id uuid not null,
  user_id uuid not null,
  kind text not null check (kind = any (private.notification_kinds())),
  email text not null check (email in ('each', 'digest', 'off')),
  in_app boolean not null,
  updated_at timestamptz not null default now(),
  primary key (workspace_id, user_id, kind),
  constraint notification_settings_membership_fkey foreign key (workspace_id, user_id)
    references public.memberships (workspace_id, user_id) on delete cascade
);
create index notification_settings_user_idx on public.notification_settings (user_id);

-- The team's defaults, set by admins, one row per event kind they changed; the rest are built in.
create table public.notification_defaults (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  kind text not null check (kind = any (private.notification_kinds())),
  email text not null check (email in ('each', 'digest', 'off')),
  in_app boolean not null,
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz not null default now(),
  primary key (workspace_id, kind)
);
create index notification_defaults_updated_by_idx on public.notification_defaults (updated_by);

-- ---------------------------------------------------------------------------------------------
-- Tend's own defaults: everything in the app; by email each time, except new requests, which email only
-- those who choose it (a busy team would otherwise all get every request).
create function private.notification_builtin(p_kind text,
  out email text, out in_app boolean)
language sql immutable set search_path = '' as $$
  select case p_kind when 'new_request' then 'off' else 'each' end, true
$$;

-- What applies to one member for one kind: their own choice, else the team's default, else Tend's.
create function private.notification_setting(p_workspace_id uuid, p_user_id uuid, p_kind text,
  out email text, out in_app boolean)
language sql stable security definer set search_path = '' as $$
  select coalesce(s.email, d.email, b.email), coalesce(s.in_app, d.in_app, b.in_app)
    from private.notification_builtin(p_kind) b
    left join public.notification_defaults d on d.workspace_id = p_workspace_id and d.kind = p_kind
    left join public.notification_settings s on s.workspace_id = p_workspace_id and s.user_id = p_user_id and s.kind = p_kind
$$;

-- Tells a member of a workspace that something happened: the one way any feature notifies anyone. It
-- follows their settings (in the app, by email each time or in the digest, or not at all: then nothing
-- is stored), never tells people what they did themselves (p_actor_id), tells nobody outside the
-- workspace, and says one thing per person, ticket and transaction (an assignment and a mention in one
-- change: the first one; a rule's call besides). An email "each time" goes through notify once the transaction commits.
-- Returns the notification's id, or null when nothing was stored.
create function private.notify_member(
  p_workspace_id uuid, p_recipient_id uuid, p_kind text, p_ticket_id uuid default null,
  p_message_id uuid default null, p_actor_id uuid default auth.uid()
) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  setting record;
  made uuid;
  t record;
begin
  if p_recipient_id is null or p_recipient_id = p_actor_id
     or not exists (select 1 from public.memberships where workspace_id = p_workspace_id and user_id = p_recipient_id) then
    return null;
  end if;
  select x.spam_at, x.trashed_at, x.number into t from public.tickets x where x.id = p_ticket_id;
  -- Nobody hears of a ticket in Spam or Trash (54_spam_trash_split.sql).
  if t.spam_at is not null or t.trashed_at is not null then
    return null;
  end if;
  -- now() is the transaction's start: rows made by this transaction share it. A rule's call (95_rules.sql)
  -- is an admin's standing order: it is heard besides any other notice of the same change, before or after it.
  if p_ticket_id is not null and p_kind <> 'rule' and exists (
    select 1 from public.notifications
     where recipient_id = p_recipient_id and ticket_id = p_ticket_id and created_at = now() and kind <> 'rule'
  ) then
    return null;
  end if;
  select * into setting from private.notification_setting(p_workspace_id, p_recipient_id, p_kind);
  if not setting.in_app and setting.email = 'off' then
    return null;
  end if;
  insert into public.notifications (workspace_id, recipient_id, kind, ticket_id, message_id, actor_id, in_app, email)
  values (p_workspace_id, p_recipient_id, p_kind, p_ticket_id, p_message_id, p_actor_id, setting.in_app, setting.email)
  returning id into made;
  -- A new ticket's notices are emailed once it has its number (private.email_numbered_notices): create_ticket
  -- numbers it late, after its rules, and a rule's assignment needn't take the counter before its notice takes
  -- the email queue's lock (docs/decisions/108-rules-cpu.md).
  if setting.email = 'each' and (t.number is null or t.number > 0) then
    perform private.email_notification(made);
  end if;
  return made;
end $$;

-- ---------------------------------------------------------------------------------------------
-- Notifications emailed "each time" are sent by notify in batches, as a helpdesk's queue worker sends
-- them (docs/decisions/101-notification-emails-in-batches.md): each is queued here, and one call of
-- notify ({"type":"notifications"}) sends every queued one, read and claimed in one call
-- (public.claim_notification_emails) and recorded sent in one more (public.notification_emails_sent).
create table private.notification_emails (
  notification_id uuid primary key references public.notifications (id) on delete cascade,
  queued_at timestamptz not null default now()
);
create index notification_emails_queued_idx on private.notification_emails (queued_at);

-- The calls to notify queued and not yet answered: a transaction that sees one made within its timeout
-- (30 s, private.call_function) queues no call of its own; the batch deletes the calls it answers.
create table private.notification_email_calls (
  queued_at timestamptz not null default now()
);
revoke all on private.notification_emails, private.notification_email_calls from public, anon, authenticated, service_role;

-- Queues a notification's email, and asks notify to send the queue once this transaction commits, unless a
-- call already queued will take it. That call's batch deletes the calls it answers, then waits for every
-- transaction holding this lock shared (those that counted on a call) before it reads the queue: so a notice
-- committed while a batch runs is in that batch, or in the batch of a call of its own. Taken only if no batch
-- is reading (try: never a wait on a creating transaction's path); else a call of its own.
create function private.email_notification(p_notification_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
begin
  -- The lock first, the calls then in a statement of their own: its snapshot is taken after the lock, so it
  -- can't show a call whose batch committed (and released the lock) between the two.
  if pg_try_advisory_xact_lock_shared(hashtextextended('notification emails', 0)) then
    if exists (select 1 from private.notification_email_calls where queued_at > now() - interval '30 seconds') then
      insert into private.notification_emails (notification_id) values (p_notification_id);
      return;
    end if;
  end if;
  -- Nothing until Vault knows the project, as private.call_function.
  if exists (select 1 from vault.decrypted_secrets where name = 'project_url') then
    insert into private.notification_emails (notification_id) values (p_notification_id);
    insert into private.notification_email_calls default values;
    perform private.call_function('notify', '{"type": "notifications"}');
  end if;
end $$;

-- The emails of the notices of a new ticket made while it had a provisional number (private.notify_member),
-- queued once create_ticket has numbered it (private.rules_on_ticket_created, 95_rules.sql), before the commit
-- as every notice's.
create function private.email_numbered_notices(p_ticket_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
begin
  perform private.email_notification(n.id)
     from public.notifications n
    where n.ticket_id = p_ticket_id and n.created_at = now() and n.email = 'each'
      and not exists (select 1 from private.notification_emails q where q.notification_id = n.id)
    order by n.id;
end $$;

-- notify's batch: the queued notifications' emails, oldest first, at most p_limit, each as
-- public.notification_email returns it (with its claim, for Message-ID <n.<id>@p_domain>); their queue rows
-- go. Another batch running at once takes other rows (skip locked).
create function public.claim_notification_emails(p_domain text, p_limit integer default 50) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  ids uuid[];
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  -- The calls this batch answers; then the transactions that counted on them, until they end.
  delete from private.notification_email_calls;
  perform pg_advisory_xact_lock(hashtextextended('notification emails', 0));
  with taken as (
    select q.notification_id, q.queued_at from private.notification_emails q
     order by q.queued_at limit greatest(p_limit, 1) for update skip locked
  ), gone as (
    delete from private.notification_emails q using taken where q.notification_id = taken.notification_id
    returning taken.notification_id, taken.queued_at
  )
  select array_agg(notification_id order by queued_at) into ids from gone;
  return coalesce((
    select jsonb_agg(e order by o)
      from unnest(ids) with ordinality as x(id, o),
           private.notification_email(x.id, '<n.' || x.id || '@' || p_domain || '>') e
     where e is not null), '[]');
end $$;
revoke execute on function public.claim_notification_emails(text, integer) from public, anon, authenticated;
grant execute on function public.claim_notification_emails(text, integer) to service_role;

-- A batch's emails went: each (Message-ID, recipient) delivery sent, and the notifications emailed (those an
-- earlier call had sent too).
create function public.notification_emails_sent(p_message_ids text[], p_recipients text[], p_notification_ids uuid[])
returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  update public.email_deliveries d set status = 'sent', sent_at = now(), last_error = null
    from unnest(p_message_ids, p_recipients) as x(message_id, recipient)
   where d.message_id = x.message_id and d.recipient = x.recipient;
  update public.notifications set emailed_at = now() where id = any(p_notification_ids);
end $$;
revoke execute on function public.notification_emails_sent(text[], text[], uuid[]) from public, anon, authenticated;
grant execute on function public.notification_emails_sent(text[], text[], uuid[]) to service_role;

-- A customer writes (the requester's new request or reply, or a follower's, from the app, the portal or email): the
-- assignee hears of it, or, while nobody has the ticket, every member. The team's own replies tell no
-- member anything (the customer's email is notify's, 80_email.sql). A direct database session (seed,
-- imports) tells no one.
create function private.notify_of_message(t public.tickets, p_message_id uuid, p_author_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  member uuid;
begin
  -- A follower's message is a customer's too (54_followers.sql).
  if auth.role() is null or p_author_id is distinct from t.requester_id
     and not exists (select 1 from public.ticket_followers f where f.ticket_id = t.id and f.user_id = p_author_id) then
    return;
  end if;
  if t.assignee_id is not null then
    perform private.notify_member(t.workspace_id, t.assignee_id, 'customer_reply', t.id, p_message_id, p_author_id);
  else
    for member in select user_id from public.memberships where workspace_id = t.workspace_id loop
      perform private.notify_member(t.workspace_id, member, 'new_request', t.id, p_message_id, p_author_id);
    end loop;
  end if;
end $$;

-- Whether a message is the request of a ticket this transaction created: that one is told at the end of the
-- transaction, after the ticket's rules and automatic assignment (private.notify_request), so only whoever
-- has it then hears of it, once (docs/decisions/085-rules-before-assignment.md).
create function private.is_new_request(t public.tickets, p_message_id uuid) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  if t.created_at is distinct from now() then
    return false;
  end if;
  return p_message_id = (select m.id from public.messages m where m.ticket_id = t.id order by m.created_at, m.id limit 1);
end $$;

create function private.notify_members_of_message() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
begin
  if auth.role() is null then
    return null;
  end if;
  select * into t from public.tickets where id = new.ticket_id;
  if not private.is_new_request(t, new.id) then
    perform private.notify_of_message(t, new.id, new.author_id);
  end if;
  return null;
end $$;
create trigger messages_notify_members after insert on public.messages
  for each row when (new.kind = 'reply') execute function private.notify_members_of_message();

-- A new ticket's request, told at the end of its creating transaction (95_rules.sql, after the rules and
-- automatic assignment): its assignee hears of it, or, while nobody has it, every member.
create function private.notify_request(p_ticket_id uuid) returns void
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  m public.messages;
begin
  if auth.role() is null then
    return;
  end if;
  select * into t from public.tickets where id = p_ticket_id;
  -- The messages trigger left it here when the ticket is this transaction's (private.is_new_request).
  if t.created_at = now() then
    select * into m from public.messages x where x.ticket_id = p_ticket_id order by x.created_at, x.id limit 1;
    if m.kind = 'reply' then
      perform private.notify_of_message(t, m.id, m.author_id);
    end if;
  end if;
end $$;

-- A ticket given to someone: they hear of it, unless they took it themselves (or Tend gave it to the one whose
-- request it acts in). Given by Tend (its rules, the automatic assignment: private.tend_acting), from no one.
create function private.notify_assignee() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if auth.role() is not null and new.assignee_id is not null
     and (tg_op = 'INSERT' or new.assignee_id is distinct from old.assignee_id) then
    if (private.tend_acting()).ticket_id is distinct from new.id then
      perform private.notify_member(new.workspace_id, new.assignee_id, 'assigned', new.id);
    elsif new.assignee_id is distinct from auth.uid() then
      perform private.notify_member(new.workspace_id, new.assignee_id, 'assigned', new.id, null, null);
    end if;
  end if;
  return null;
end $$;
create trigger tickets_notify_assignee after insert or update of assignee_id on public.tickets
  for each row execute function private.notify_assignee();

-- read_at is the database's clock: a notification is marked read now (or unread again), never at a
-- time the client names.
create function private.notification_read() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new.read_at := case when new.read_at is null then null else coalesce(old.read_at, now()) end;
  return new;
end $$;
create trigger notifications_read before update of read_at on public.notifications
  for each row execute function private.notification_read();

-- Who changed a default, and when; a member's setting, when.
create function private.notification_setting_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new.updated_at := now();
  if tg_table_name = 'notification_defaults' then
    new.updated_by := auth.uid();
  end if;
  return new;
end $$;
create trigger notification_defaults_changed before insert or update on public.notification_defaults
  for each row execute function private.notification_setting_changed();
create trigger notification_settings_changed before insert or update on public.notification_settings
  for each row execute function private.notification_setting_changed();

revoke all on function private.notification_kinds(), private.notification_builtin(text),
  private.notification_setting(uuid, uuid, text),
  private.notify_member(uuid, uuid, text, uuid, uuid, uuid), private.email_notification(uuid), private.email_numbered_notices(uuid),
  private.notify_of_message(public.tickets, uuid, uuid), private.is_new_request(public.tickets, uuid),
  private.notify_members_of_message(), private.notify_request(uuid), private.notify_assignee(), private.notification_read(),
  private.notification_setting_changed() from public;

-- ---------------------------------------------------------------------------------------------
-- The bell: how many unread notifications the caller has in the app, or null for someone who belongs to
-- no workspace (a customer: no bell). Counted up to 100 (the bell says 99+). plpgsql: its plan is kept for
-- the connection (every page asks, through public.viewer_state; docs/decisions/087-inbox-call-overhead.md).
create function public.unread_notifications() returns integer
language plpgsql stable security invoker set search_path = '' as $$
begin
  return (select case when exists (select 1 from public.memberships where user_id = (select auth.uid()))
    then (select count(*)::integer from (
            select 1 from public.notifications
             where recipient_id = (select auth.uid()) and in_app and read_at is null limit 100) n)
  end);
end $$;
revoke execute on function public.unread_notifications() from public, anon;
grant execute on function public.unread_notifications() to authenticated;

-- What applies to the caller in one workspace, per kind, beside the team's default (the account page);
-- for an admin's defaults page, `mine` is the team's. Members only.
create function public.notification_preferences(p_workspace_id uuid)
returns table (kind text, email text, in_app boolean, own boolean,
               team_email text, team_in_app boolean)
language plpgsql stable security invoker set search_path = '' as $$
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  return query
  select k.kind, coalesce(s.email, d.email, b.email), coalesce(s.in_app, d.in_app, b.in_app), s.kind is not null,
         coalesce(d.email, b.email), coalesce(d.in_app, b.in_app)
    from unnest(private.notification_kinds()) as k (kind)
    cross join lateral private.notification_builtin(k.kind) b
    left join public.notification_defaults d on d.workspace_id = p_workspace_id and d.kind = k.kind
    left join public.notification_settings s on s.workspace_id = p_workspace_id and s.user_id = (select auth.uid()) and s.kind = k.kind
   order by k.kind;
end $$;
revoke execute on function public.notification_preferences(uuid) from public, anon;
grant execute on function public.notification_preferences(uuid) to authenticated;
grant execute on function private.notification_builtin(text) to authenticated;
-- The tables' checks call it, for whoever writes them (members, notify as service_role).
grant execute on function private.notification_kinds() to authenticated, service_role;

-- Saves the caller's choices in one workspace (p_settings: [{kind, email, in_app}]), or with p_team the
-- team's defaults (admins: the policies below decide). A member's choice equal to the team's default is
-- not kept as their own, so they follow the team's later changes; a default equal to Tend's, likewise.
create function public.save_notification_settings(p_workspace_id uuid, p_settings jsonb, p_team boolean default false)
returns void
language plpgsql security invoker set search_path = '' as $$
declare
  s record;
  base record;
begin
  if not private.is_member(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  if p_team and not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  for s in select * from jsonb_to_recordset(p_settings)
             as x (kind text, email text, in_app boolean) loop
    if s.kind is null or s.email is null or s.in_app is null then
      raise exception using errcode = 'P0001', message = 'bad_request', detail = 'kind, email and in_app';
    end if;
    if p_team then
      select * into base from private.notification_builtin(s.kind);
      if (s.email, s.in_app) = (base.email, base.in_app) then
        delete from public.notification_defaults where workspace_id = p_workspace_id and kind = s.kind;
      else
        insert into public.notification_defaults (workspace_id, kind, email, in_app)
        values (p_workspace_id, s.kind, s.email, s.in_app)
        on conflict (workspace_id, kind) do update set email = excluded.email, in_app = excluded.in_app;
      end if;
    else
      select p.team_email as email, p.team_in_app as in_app into base
        from public.notification_preferences(p_workspace_id) p where p.kind = s.kind;
      if (s.email, s.in_app) = (base.email, base.in_app) then
        delete from public.notification_settings
         where workspace_id = p_workspace_id and user_id = (select auth.uid()) and kind = s.kind;
      else
        insert into public.notification_settings (workspace_id, user_id, kind, email, in_app)
        values (p_workspace_id, (select auth.uid()), s.kind, s.email, s.in_app)
        on conflict (workspace_id, user_id, kind) do update set email = excluded.email, in_app = excluded.in_app;
      end if;
    end if;
  end loop;
end $$;
revoke execute on function public.save_notification_settings(uuid, jsonb, boolean) from public, anon;
grant execute on function public.save_notification_settings(uuid, jsonb, boolean) to authenticated;

-- ---------------------------------------------------------------------------------------------
-- Each member sees and marks their own notifications, and only those shown in the app; nobody writes
-- one through the API (private.notify_member does). A member chooses their own settings; members read
-- the team's defaults, admins set them.
alter table public.notifications enable row level security;
alter table public.notification_settings enable row level security;
alter table public.notification_defaults enable row level security;

revoke all on public.notifications from anon, authenticated;
grant select on public.notifications to authenticated;
grant update (read_at) on public.notifications to authenticated;
create policy "members read their notifications" on public.notifications for select to authenticated
  using (recipient_id = (select auth.uid()) and in_app);
create policy "members mark their notifications read" on public.notifications for update to authenticated
  using (recipient_id = (select auth.uid()) and in_app) with check (recipient_id = (select auth.uid()) and in_app);

revoke all on public.notification_settings from anon, authenticated;
grant select, delete on public.notification_settings to authenticated;
grant insert (workspace_id, user_id, kind, email, in_app), update (email, in_app) on public.notification_settings to authenticated;
create policy "members read their notification settings" on public.notification_settings for select to authenticated
  using (user_id = (select auth.uid()));
create policy "members choose their notification settings" on public.notification_settings for insert to authenticated
  with check (user_id = (select auth.uid()) and workspace_id in (select private.member_workspaces()));
create policy "members change their notification settings" on public.notification_settings for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy "members reset their notification settings" on public.notification_settings for delete to authenticated
  using (user_id = (select auth.uid()));

revoke all on public.notification_defaults from anon, authenticated;
grant select, delete on public.notification_defaults to authenticated;
grant insert (workspace_id, kind, email, in_app), update (email, in_app) on public.notification_defaults to authenticated;
create policy "members read their team's notification defaults" on public.notification_defaults for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins set the team's notification defaults" on public.notification_defaults for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins change the team's notification defaults" on public.notification_defaults for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins reset the team's notification defaults" on public.notification_defaults for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

-- The bell listens to its own rows (Realtime applies the policy above to each change).
alter publication supabase_realtime add table public.notifications;

-- ---------------------------------------------------------------------------------------------
-- The daily digest: at 08:00 in each workspace's time zone, one email per member with what waited for
-- it (notify, {"type":"digest"}), for every member with notifications to send that way; the cron job runs
-- hourly and picks the workspaces where it is 8 o'clock. p_now for tests. Read notifications older than
-- 90 days go at the same time. `db diff` doesn't see the cron.schedule below: the migration carries it.
create function private.send_digests(p_now timestamptz default now()) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  r record;
  n integer := 0;
begin
  for r in
    select distinct nt.workspace_id, nt.recipient_id
      from public.notifications nt join public.workspaces w on w.id = nt.workspace_id
     where nt.email = 'digest' and nt.emailed_at is null
       and extract(hour from p_now at time zone w.time_zone) = 8
  loop
    perform private.call_function('notify',
      jsonb_build_object('type', 'digest', 'workspace_id', r.workspace_id, 'recipient_id', r.recipient_id));
    n := n + 1;
  end loop;
  delete from public.notifications where read_at < p_now - interval '90 days';
  return n;
end $$;
revoke all on function private.send_digests(timestamptz) from public;
select cron.schedule('notification-digests', '0 * * * *', 'select private.send_digests()');
