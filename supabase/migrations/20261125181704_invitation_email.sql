set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.call_function(p_name text, p_body jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  project_url text := (select decrypted_secret from vault.decrypted_secrets where name = 'project_url');
  service_key text := (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key');
begin
  if project_url is null or service_key is null then
    return;
  end if;
  perform net.http_post(
    url := project_url || '/functions/v1/' || p_name,
    body := p_body,
    headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || service_key),
    timeout_milliseconds := 30000
  );
end $function$
;

CREATE OR REPLACE FUNCTION private.notify_invitation()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  token text := nullif(current_setting('request.headers', true), '')::jsonb ->> 'x-invitation-token';
begin
  if token is not null and encode(sha256(convert_to(token, 'UTF8')), 'hex') = new.token_hash then
    perform private.call_function('notify',
      jsonb_build_object('type', 'invitation', 'invitation_id', new.id, 'token', token));
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.notify_message()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if auth.role() is not null then
    perform private.call_function('notify', jsonb_build_object('type', 'message', 'message_id', new.id));
  end if;
  return null;
end $function$
;

CREATE TRIGGER invitations_notify AFTER INSERT OR UPDATE OF token_hash ON public.invitations FOR EACH ROW EXECUTE FUNCTION private.notify_invitation();

revoke execute on function private.call_function(p_name text, p_body jsonb) from public;
revoke execute on function private.notify_invitation() from public;
