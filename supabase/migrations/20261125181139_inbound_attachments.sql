drop function if exists "public"."receive_email"(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.attach_received_files(p_message_id uuid, p_files jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  m public.messages;
  b storage.buckets;
  f jsonb;
begin
  select * into m from public.messages where id = p_message_id;
  select * into b from storage.buckets where id = 'attachments';
  if coalesce(jsonb_array_length(p_files), 0) > 5 then
    raise exception using errcode = 'P0001', message = 'too_many_attachments';
  end if;
  for f in select value from jsonb_array_elements(coalesce(p_files, '[]')) loop
    if coalesce(f->>'storage_name', '') = '' or strpos(f->>'storage_name', '/') > 0 then
      raise exception using errcode = 'P0001', message = 'bad_request', detail = 'attachment name';
    end if;
    if (f->>'size')::bigint > coalesce(b.file_size_limit, (f->>'size')::bigint) then
      raise exception using errcode = 'P0001', message = 'attachment_too_large';
    end if;
    if b.allowed_mime_types is not null and not (f->>'mime_type' = any (b.allowed_mime_types)) then
      raise exception using errcode = 'P0001', message = 'attachment_type';
    end if;
    insert into public.attachments (id, message_id, ticket_id, workspace_id, uploader_id, path, file_name, size, mime_type)
    values ((f->>'id')::uuid, m.id, m.ticket_id, m.workspace_id, m.author_id,
            m.workspace_id || '/' || m.ticket_id || '/' || (f->>'id')::uuid || '/' || (f->>'storage_name'),
            left(coalesce(nullif(f->>'file_name', ''), f->>'storage_name'), 255), (f->>'size')::bigint, f->>'mime_type');
  end loop;
  return private.message_files(p_message_id);
end $function$
;

CREATE OR REPLACE FUNCTION private.message_files(p_message_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('id', a.id, 'path', a.path) order by a.created_at, a.path), '[]')
    from public.attachments a where a.message_id = p_message_id
$function$
;

CREATE OR REPLACE FUNCTION public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb DEFAULT NULL::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

revoke execute on function private.attach_received_files(p_message_id uuid, p_files jsonb) from public;
revoke execute on function private.message_files(p_message_id uuid) from public;
revoke execute on function public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb) from anon;
revoke execute on function public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb) from authenticated;
revoke execute on function public.receive_email(p_provider_message_id text, p_message_id text, p_from text, p_workspace_slug text, p_ticket_id uuid, p_subject text, p_body text, p_attachments jsonb) from public;
