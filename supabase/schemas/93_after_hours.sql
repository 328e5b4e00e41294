-- Outside business hours (issue 28 item 7; docs/decisions/055-after-hours-acknowledgement.md): a request
-- that arrives while the team is closed gets an acknowledgement by email, the canned reply the admins
-- picked (at /w/:slug/settings/hours) and when the team will answer (private.next_opening, 90_promises.sql).
-- No reply picked: no acknowledgement (today's behaviour).

create table public.after_hours_replies (
  workspace_id uuid primary key references public.workspaces (id) on delete cascade,
  -- A removed canned reply takes the choice along.
  canned_reply_id uuid not null references public.canned_replies (id) on delete cascade,
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz not null default now()
);
create index after_hours_replies_canned_reply_idx on public.after_hours_replies (canned_reply_id);
create index after_hours_replies_updated_by_idx on public.after_hours_replies (updated_by);

-- The acknowledgement's reply (admins): one of the workspace's canned replies, or none (null). Another
-- workspace's reply, or one that doesn't exist, is not_found.
create function public.save_after_hours_reply(p_workspace_id uuid, p_canned_reply_id uuid default null) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if p_canned_reply_id is null then
    delete from public.after_hours_replies where workspace_id = p_workspace_id;
    return;
  end if;
  if not exists (select 1 from public.canned_replies where id = p_canned_reply_id and workspace_id = p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'canned reply';
  end if;
  insert into public.after_hours_replies (workspace_id, canned_reply_id, updated_by) values (p_workspace_id, p_canned_reply_id, auth.uid())
  on conflict (workspace_id) do update set canned_reply_id = excluded.canned_reply_id, updated_by = excluded.updated_by, updated_at = now();
end $$;
revoke all on function public.save_after_hours_reply(uuid, uuid) from public, anon;
grant execute on function public.save_after_hours_reply(uuid, uuid) to authenticated, service_role;

-- A new request while the team is closed: notify acknowledges it after the commit. Not for a request a
-- member opened, for themselves or with a customer (start_conversation, 88_rich_mail.sql: the customer
-- gets the member's message, not "we got your request"), nor for a direct database session's (seed,
-- imports mail no one).
create function private.acknowledge_after_hours() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if auth.role() is null
     or not exists (select 1 from public.after_hours_replies where workspace_id = new.workspace_id)
     or exists (select 1 from public.memberships where workspace_id = new.workspace_id
                                                  and user_id in (new.requester_id, auth.uid()))
     or private.next_opening(new.workspace_id, new.created_at) <= new.created_at then
    return null;
  end if;
  perform private.call_function('notify', jsonb_build_object('type', 'acknowledgement', 'ticket_id', new.id));
  return null;
end $$;
create trigger tickets_acknowledge_after_hours after insert on public.tickets
  for each row execute function private.acknowledge_after_hours();
revoke all on function private.acknowledge_after_hours() from public;

alter table public.after_hours_replies enable row level security;
-- Written through save_after_hours_reply; members read it (notify reads it as service_role).
revoke all on public.after_hours_replies from anon;
revoke insert, update, delete on public.after_hours_replies from authenticated;
create policy "members read the after-hours reply" on public.after_hours_replies for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
