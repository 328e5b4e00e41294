drop function if exists "public"."ticket_page"(p_slug text, p_number integer);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.ticket_page(p_slug text, p_number integer, p_page integer DEFAULT 30, p_earlier_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_earlier_id uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', my_role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role) order by m.user_id), '[]')
                  from public.memberships m where m.workspace_id = ws.id),
    'ticket', jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                                 'requester_id', t.requester_id, 'assignee_id', t.assignee_id, 'created_at', t.created_at,
                                 'first_response_at', t.first_response_at, 'solved_at', t.solved_at),
    -- The promise running, if any (90_promises.sql): the header's due-time badge.
    'sla', (select jsonb_build_object('target', s.target, 'due_at', s.due_at, 'warn_at', s.warn_at)
              from public.ticket_sla s where s.ticket_id = t.id and s.due_at is not null),
    'messages', (select coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'kind', m.kind, 'body', m.body, 'created_at', m.created_at,
                                                              'author_id', m.author_id,
                                                              'attachments', (select coalesce(jsonb_agg(jsonb_build_object(
                                                                  'id', a.id, 'file_name', a.file_name, 'size', a.size, 'mime_type', a.mime_type)
                                                                  order by a.created_at, a.file_name), '[]')
                                                                from public.attachments a where a.message_id = m.id))
                                                   order by m.created_at, m.id), '[]')
                   from ((select * from public.messages m
                           where m.ticket_id = t.id and p_earlier_at is not null
                             and (m.created_at, m.id) >= (p_earlier_at, p_earlier_id))
                         union all
                         (select * from public.messages m
                           where m.ticket_id = t.id
                             and (p_earlier_at is null or (m.created_at, m.id) < (p_earlier_at, p_earlier_id))
                           order by m.created_at desc, m.id desc
                           limit least(greatest(p_page, 1), 100) + 1)) m),
    'mine', (select count(*) from public.messages m where m.ticket_id = t.id and m.author_id = auth.uid()),
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
end $function$
;

revoke execute on function public.ticket_page(p_slug text, p_number integer, p_page integer, p_earlier_at timestamp with time zone, p_earlier_id uuid) from anon;
revoke execute on function public.ticket_page(p_slug text, p_number integer, p_page integer, p_earlier_at timestamp with time zone, p_earlier_id uuid) from public;
