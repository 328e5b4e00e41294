set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.claim_email_delivery(p_message_id text, p_recipient text, p_ticket_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  insert into public.email_deliveries as d (message_id, recipient, ticket_id) values (p_message_id, p_recipient, p_ticket_id)
  on conflict (message_id, recipient) do update set attempts = d.attempts + 1, claimed_at = now(), status = 'sending'
   where d.status = 'failed' or (d.status = 'sending' and d.claimed_at < now() - interval '2 minutes');
  return found;
end $function$
;

CREATE OR REPLACE FUNCTION private.is_system()
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  return coalesce(auth.role() = 'service_role', false)
      or (auth.role() is null and coalesce(current_setting('role', true), 'none') not in ('anon', 'authenticated'));
end $function$
;

CREATE OR REPLACE FUNCTION private.notification_email(p_notification_id uuid, p_message_id text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  found_one jsonb;
begin
  select jsonb_build_object(
      'id', n.id, 'kind', n.kind, 'recipient_id', n.recipient_id, 'actor_id', n.actor_id,
      'message_id', n.message_id, 'email', n.email, 'created_at', n.created_at,
      'recipient_email', (select u.email from auth.users u where u.id = n.recipient_id),
      'actor', (select jsonb_build_object('display_name', p.display_name) from public.profiles p where p.user_id = n.actor_id),
      'message', (
        select jsonb_build_object(
          'id', m.id, 'body', m.body, 'author_id', m.author_id, 'created_at', m.created_at,
          'author', (select jsonb_build_object('display_name', p.display_name) from public.profiles p where p.user_id = m.author_id))
          from public.messages m where m.id = n.message_id),
      'ticket', (
        select jsonb_build_object(
          'id', t.id, 'number', t.number, 'subject', t.subject, 'created_at', t.created_at, 'status', t.status,
          'requester_id', t.requester_id,
          'ticket_followers', coalesce(
            (select jsonb_agg(jsonb_build_object('user_id', f.user_id)) from public.ticket_followers f where f.ticket_id = t.id), '[]'),
          'replies', coalesce(
            (select jsonb_agg(jsonb_build_object('id', r.id) order by r.created_at, r.id)
               from public.messages r where r.ticket_id = t.id and r.kind = 'reply'), '[]'))
          from public.tickets t where t.id = n.ticket_id),
      'workspace', (
        select jsonb_build_object(
          'id', w.id, 'slug', w.slug, 'name', w.name, 'time_zone', w.time_zone,
          'workspace_email_settings', (
            select jsonb_build_object(
              'sender_name', s.sender_name, 'sender_address', s.sender_address, 'accent_color', s.accent_color,
              'logo_path', s.logo_path, 'footer', s.footer, 'verified_domain', s.verified_domain)
              from public.workspace_email_settings s where s.workspace_id = w.id))
          from public.workspaces w where w.id = n.workspace_id))
    into found_one
    from public.notifications n where n.id = p_notification_id;
  if found_one->>'email' = 'each' and jsonb_typeof(found_one->'ticket') = 'object'
     and found_one->>'recipient_email' is not null then
    found_one := found_one || jsonb_build_object('claimed', private.claim_email_delivery(
      p_message_id, found_one->>'recipient_email', (found_one->'ticket'->>'id')::uuid));
  end if;
  return found_one;
end $function$
;

CREATE OR REPLACE FUNCTION public.claim_email_delivery(p_message_id text, p_recipient text, p_ticket_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  return private.claim_email_delivery(p_message_id, p_recipient, p_ticket_id);
end $function$
;

revoke execute on function private.claim_email_delivery(p_message_id text, p_recipient text, p_ticket_id uuid) from public;
