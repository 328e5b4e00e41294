-- An agent's ticket page in one call (it made five, in three rounds): the workspace and my role, the
-- members, the ticket, its thread (notes included), its latest 100 events, the display names of
-- everyone involved, and the requester card. Security definer for the same reason as public.inbox,
-- with the same check: the caller must be a member of the workspace, and everything returned belongs
-- to one ticket of that workspace — what the members' policies let them read.
create function public.ticket_page(p_slug text, p_number integer) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  member record;
  ws public.workspaces;
  my_role text;
  t public.tickets;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  my_role := member.role;
  select * into t from public.tickets x where x.workspace_id = ws.id and x.number = p_number;
  if t.id is null then
    raise exception 'not_found' using errcode = 'P0001';
  end if;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
    'role', my_role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role) order by m.user_id), '[]')
                  from public.memberships m where m.workspace_id = ws.id),
    'ticket', jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                                 'requester_id', t.requester_id, 'assignee_id', t.assignee_id, 'created_at', t.created_at,
                                 'first_response_at', t.first_response_at, 'solved_at', t.solved_at),
    'messages', (select coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'kind', m.kind, 'body', m.body, 'created_at', m.created_at,
                                                              'author_id', m.author_id) order by m.created_at, m.id), '[]')
                   from public.messages m where m.ticket_id = t.id),
    'events', (select coalesce(jsonb_agg(jsonb_build_object('id', e.id, 'actor_id', e.actor_id, 'type', e.type, 'from', e."from",
                                                            'to', e."to", 'created_at', e.created_at) order by e.created_at desc, e.id desc), '[]')
                 from (select * from public.ticket_events e where e.ticket_id = t.id order by e.created_at desc, e.id desc limit 100) e),
    'names', (select coalesce(jsonb_object_agg(p.user_id, p.display_name), '{}')
                from public.profiles p
               where p.user_id in (select m.user_id from public.memberships m where m.workspace_id = ws.id)
                  or p.user_id = t.requester_id
                  or p.user_id in (select m.author_id from public.messages m where m.ticket_id = t.id)
                  or p.user_id in (select e.actor_id from public.ticket_events e where e.ticket_id = t.id)
                  -- assignees in the history, former members included
                  or p.user_id::text in (select unnest(array[e."from", e."to"]) from public.ticket_events e
                                          where e.ticket_id = t.id and e.type = 'assignee')),
    'requester', public.requester_card(t.id)
  );
end $$;
revoke all on function public.ticket_page(text, integer) from public, anon;
grant execute on function public.ticket_page(text, integer) to authenticated;
