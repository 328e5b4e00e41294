drop policy "members signal on the live channel of their workspace's tickets" on "realtime"."messages";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.signal_ticket(p_ticket_id uuid, p_event text, p_payload jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  topic text := 'ticket:' || p_ticket_id;
begin
  if auth.uid() is null or not private.may_use_ticket_channel(topic) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'ticket';
  end if;
  perform realtime.send(p_payload || jsonb_build_object('user_id', auth.uid()), p_event, topic, true);
end $function$
;

CREATE OR REPLACE FUNCTION public.announce_ticket_viewer(p_ticket_id uuid, p_presence_ref text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if coalesce(char_length(p_presence_ref), 0) not between 1 and 100 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'presence_ref';
  end if;
  perform private.signal_ticket(p_ticket_id, 'viewer', jsonb_build_object('presence_ref', p_presence_ref));
end $function$
;

CREATE OR REPLACE FUNCTION public.signal_ticket_typing(p_ticket_id uuid, p_kind text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p_kind is null or p_kind not in ('reply', 'note') then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'kind';
  end if;
  perform private.signal_ticket(p_ticket_id, 'typing', jsonb_build_object('kind', p_kind));
end $function$
;


  create policy "members track presence on their workspace's ticket channels"
  on "realtime"."messages"
  as permissive
  for insert
  to authenticated
with check (((extension = 'presence'::text) AND ( SELECT private.may_use_ticket_channel(realtime.topic()) AS may_use_ticket_channel)));

revoke execute on function private.signal_ticket(p_ticket_id uuid, p_event text, p_payload jsonb) from public;
revoke execute on function public.announce_ticket_viewer(p_ticket_id uuid, p_presence_ref text) from anon;
revoke execute on function public.announce_ticket_viewer(p_ticket_id uuid, p_presence_ref text) from public;
revoke execute on function public.signal_ticket_typing(p_ticket_id uuid, p_kind text) from anon;
revoke execute on function public.signal_ticket_typing(p_ticket_id uuid, p_kind text) from public;
