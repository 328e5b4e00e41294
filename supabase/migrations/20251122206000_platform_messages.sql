-- Messages written by the platform through the API (service_role: the inbound-email function turning
-- an email into a reply) follow the same rules as the people they write for: a closed ticket takes no
-- message (ticket_closed: open a follow-up instead), the requester's reply reopens a pending or solved
-- ticket, a team member's reply opens a new one. Only a direct database session (seed, imports,
-- migrations: no request claims at all) writes history as it is given.
create or replace function private.message_posted() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = new.ticket_id;
  new.workspace_id := t.workspace_id;
  if t.status = 'closed' and auth.role() is not null then
    raise exception using errcode = 'P0001', message = 'ticket_closed', detail = t.id::text;
  end if;
  return new;
end $$;

create or replace function private.message_bookkeeping() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t public.tickets;
  member boolean;
begin
  select * into t from public.tickets where id = new.ticket_id;
  member := exists (select 1 from public.memberships where workspace_id = t.workspace_id and user_id = new.author_id);
  update public.tickets
     set last_message_at = greatest(last_message_at, new.created_at),
         first_response_at = case when new.kind = 'reply' and new.author_id <> t.requester_id and member
                                  then coalesce(first_response_at, new.created_at) else first_response_at end,
         search = case when new.kind = 'reply' then search || to_tsvector('english', new.body) else search end
   where id = new.ticket_id;

  -- post_message decides the status itself (tend.posting); any other API write moves it here.
  if new.kind = 'reply' and coalesce(current_setting('tend.posting', true), '') <> 'on' and auth.role() is not null then
    if not member and t.status in ('pending', 'solved') then
      perform set_config('tend.reply_reopen', 'on', true);
      update public.tickets set status = 'open' where id = t.id;
      perform set_config('tend.reply_reopen', '', true);
    elsif member and t.status = 'new' then
      update public.tickets set status = 'open' where id = t.id;
    end if;
  end if;
  return null;
end $$;

revoke execute on function private.message_posted(), private.message_bookkeeping() from public, authenticated, service_role;
