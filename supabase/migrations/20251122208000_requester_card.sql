-- The requester card on an agent's ticket page: who they are (name, and the email address that profiles
-- don't hold) and their other recent requests here — the context agents otherwise go looking for
-- (reference/helpdesk-anchors.md: "lost context"). Security definer to read auth.users; the explicit
-- check is membership of the ticket's workspace, so requesters and other workspaces get not_found.
create function public.requester_card(p_ticket_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  t public.tickets;
begin
  select * into t from public.tickets where id = p_ticket_id;
  if t.id is null or not private.is_member(t.workspace_id) then
    raise exception 'not_found' using errcode = 'P0001';
  end if;
  return jsonb_build_object(
    'user_id', t.requester_id,
    'name', coalesce((select p.display_name from public.profiles p where p.user_id = t.requester_id), 'Unknown'),
    'email', (select u.email from auth.users u where u.id = t.requester_id),
    'requests', (select count(*) from public.tickets o where o.requester_id = t.requester_id and o.workspace_id = t.workspace_id),
    'recent', (select coalesce(jsonb_agg(jsonb_build_object('number', o.number, 'subject', o.subject, 'status', o.status, 'last_message_at', o.last_message_at)
                                         order by o.last_message_at desc), '[]')
                 from (select o.number, o.subject, o.status, o.last_message_at from public.tickets o
                        where o.requester_id = t.requester_id and o.workspace_id = t.workspace_id and o.id <> t.id
                        order by o.last_message_at desc limit 5) o));
end $$;
revoke all on function public.requester_card(uuid) from public, anon;
grant execute on function public.requester_card(uuid) to authenticated;
