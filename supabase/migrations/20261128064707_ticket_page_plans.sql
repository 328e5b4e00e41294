set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.requester_card_json(p_ticket_id uuid, p_workspace_id uuid, p_requester_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return jsonb_build_object(
    'user_id', p_requester_id,
    'name', coalesce((select p.display_name from public.profiles p where p.user_id = p_requester_id), 'Unknown'),
    'email', (select u.email from auth.users u where u.id = p_requester_id),
    'requests', (select count(*) from public.tickets o where o.requester_id = p_requester_id and o.workspace_id = p_workspace_id
                    and o.trashed_at is null),
    'recent', (select coalesce(jsonb_agg(jsonb_build_object('number', o.number, 'subject', o.subject, 'status', o.status, 'last_message_at', o.last_message_at)
                                         order by o.last_message_at desc), '[]')
                 from (select o.number, o.subject, o.status, o.last_message_at from public.tickets o
                        where o.requester_id = p_requester_id and o.workspace_id = p_workspace_id and o.id <> p_ticket_id
                          and o.trashed_at is null
                        order by o.last_message_at desc limit 5) o));
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_follower_rows(p_ticket_id uuid)
 RETURNS TABLE(user_id uuid, name text, email text, created_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  return query
  select f.user_id, coalesce(p.display_name, split_part(u.email, '@', 1)), u.email::text, f.created_at
    from public.ticket_followers f
    join auth.users u on u.id = f.user_id
    left join public.profiles p on p.user_id = f.user_id
   where f.ticket_id = p_ticket_id;
end $function$
;

CREATE OR REPLACE FUNCTION private.ticket_tags_json(p_ticket_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (select coalesce(jsonb_agg(jsonb_build_object('id', g.id, 'name', g.name, 'colour', g.colour) order by g.name), '[]')
            from public.ticket_tags tt join public.tags g on g.id = tt.tag_id
           where tt.ticket_id = p_ticket_id);
end $function$
;

CREATE OR REPLACE FUNCTION public.ticket_page(p_slug text, p_number integer, p_page integer DEFAULT 30, p_earlier_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_earlier_id uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
 SET enable_bitmapscan TO 'off'
AS $function$
declare
  member record;
  ws public.workspaces;
  me uuid := auth.uid();
  t record;
  thread jsonb;
  events jsonb;
  people uuid[];
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  select x.id, x.number, x.subject, x.status, x.priority, x.requester_id, x.assignee_id, x.created_at, x.first_response_at,
         x.solved_at, x.snoozed_until, x.merged_into_id, x.spam_at, x.trashed_at
    into t from public.tickets x where x.workspace_id = ws.id and x.number = p_number;
  if t.id is null then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'kind', m.kind, 'body', m.body, 'created_at', m.created_at,
                                               'author_id', m.author_id,
                                               'attachments', (select coalesce(jsonb_agg(jsonb_build_object(
                                                   'id', a.id, 'file_name', a.file_name, 'size', a.size, 'mime_type', a.mime_type)
                                                   order by a.created_at, a.file_name), '[]')
                                                 from public.attachments a where a.message_id = m.id))
                    order by m.created_at, m.id), '[]'),
         array_agg(distinct m.author_id) filter (where m.author_id is not null)
    into thread, people
    from ((select m.id, m.kind, m.body, m.created_at, m.author_id from public.messages m
            where m.ticket_id = t.id and p_earlier_at is not null
              and (m.created_at, m.id) >= (p_earlier_at, p_earlier_id))
          union all
          (select m.id, m.kind, m.body, m.created_at, m.author_id from public.messages m
            where m.ticket_id = t.id
              and (p_earlier_at is null or (m.created_at, m.id) < (p_earlier_at, p_earlier_id))
            order by m.created_at desc, m.id desc
            limit least(greatest(p_page, 1), 100) + 1)) m;
  -- The newest 100 changes; the people they name (who acted, and assignees before and after, former
  -- members included) get names.
  select coalesce(jsonb_agg(jsonb_build_object('id', e.id, 'actor_id', e.actor_id, 'type', e.type, 'from', e."from",
                                               'to', e."to", 'from_ticket', e.from_ticket, 'field', e.field,
                                               'created_at', e.created_at)
                            order by e.created_at desc, e.id desc), '[]'),
         people || array_agg(e.actor_id) filter (where e.actor_id is not null)
                || array_agg(e."from"::uuid) filter (where e.type = 'assignee' and e."from" ~ '^[0-9a-f-]{36}$')
                || array_agg(e."to"::uuid) filter (where e.type = 'assignee' and e."to" ~ '^[0-9a-f-]{36}$')
    into events, people
    from (select e.id, e.actor_id, e.type, e."from", e."to", e.from_ticket, e.field, e.created_at from public.ticket_events e
           where e.ticket_id = t.id order by e.created_at desc, e.id desc limit 100) e;
  -- And the requester, the assignee and the members. Gathered once: as an expression inside the names'
  -- query it was built again for every profile that query read.
  people := people || t.requester_id || t.assignee_id
            || array(select m.user_id from public.memberships m where m.workspace_id = ws.id);
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', member.role,
    'members', (select coalesce(jsonb_agg(jsonb_build_object('user_id', m.user_id, 'role', m.role) order by m.user_id), '[]')
                  from public.memberships m where m.workspace_id = ws.id),
    'ticket', jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status, 'priority', t.priority,
                                 'requester_id', t.requester_id, 'assignee_id', t.assignee_id, 'created_at', t.created_at,
                                 'first_response_at', t.first_response_at, 'solved_at', t.solved_at,
                                 'snoozed_until', t.snoozed_until, 'tags', private.ticket_tags_json(t.id),
                                 -- In Spam or Trash (54_spam_trash_split.sql).
                                 'spam_at', t.spam_at, 'trashed_at', t.trashed_at,
                                 -- Merged (52_triage.sql): the number of the ticket its page leads to.
                                 'merged_into', (select m.number from public.tickets m where m.id = t.merged_into_id)),
    -- The promise running, if any (90_promises.sql): the header's due-time badge.
    'sla', (select jsonb_build_object('target', s.target, 'due_at', s.due_at, 'warn_at', s.warn_at)
              from public.ticket_sla s where s.ticket_id = t.id and s.due_at is not null),
    'messages', thread,
    'mine', (select count(*) from public.messages m where m.ticket_id = t.id and m.author_id = me),
    'events', events,
    'names', (select coalesce(jsonb_object_agg(p.user_id, p.display_name), '{}')
                from public.profiles p where p.user_id = any (people)),
    'requester', private.requester_card_json(t.id, ws.id, t.requester_id),
    -- The composer's canned replies (45_canned_replies.sql; their titles, which the app sorts as people read)
    -- and my signature (86_signatures.sql), and the sidebar's custom fields with this ticket's values
    -- (58_ticket_fields.sql), as public.ticket_field_list answers.
    'canned', (select coalesce(jsonb_agg(jsonb_build_object('title', c.title)), '[]') from public.canned_replies c where c.workspace_id = ws.id),
    'signature', (select s.body from public.signatures s where s.user_id = me),
    'fields', (select coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'label', f.label, 'kind', f.kind, 'options', f.options,
                                                            'required_on_solve', f.required_on_solve, 'value', v.value)
                                         order by f.position, f.created_at, f.id), '[]')
                 from public.ticket_fields f
                 left join public.ticket_field_values v on v.ticket_id = t.id and v.field_id = f.id
                where f.workspace_id = ws.id),
    -- The requester's latest answer to a satisfaction survey (92_satisfaction.sql), if any.
    'rating', (select jsonb_build_object('rating', s.rating, 'comment', s.comment) from public.csat_surveys s
                where s.ticket_id = t.id and s.rating is not null order by s.created_at desc limit 1),
    -- The followers' card (54_followers.sql), as ticket_follower_list lists them.
    'followers', (select coalesce(jsonb_agg(jsonb_build_object('user_id', r.user_id, 'name', r.name, 'email', r.email)
                                            order by r.created_at, r.user_id), '[]')
                    from private.ticket_follower_rows(t.id) r)
  );
end $function$
;
