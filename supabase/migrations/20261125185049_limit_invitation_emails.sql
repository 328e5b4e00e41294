CREATE INDEX email_deliveries_recipient_idx ON public.email_deliveries USING btree (recipient, created_at);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.limit_invitations()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if (select count(*) from public.email_deliveries d
       where d.recipient = new.email and d.message_id like '<i.%' and d.created_at > now() - interval '1 hour') >= 5
     or (select count(*) from public.invitations i
          where i.workspace_id = new.workspace_id and i.expires_at > now() + interval '7 days' - interval '1 hour') >= 50
  then
    raise exception using errcode = 'P0001', message = 'too_many_attempts', detail = 'invitation emails';
  end if;
  return new;
end $function$
;

CREATE TRIGGER invitations_limit BEFORE INSERT OR UPDATE OF token_hash ON public.invitations FOR EACH ROW WHEN ((CURRENT_USER = ANY (ARRAY['anon'::name, 'authenticated'::name]))) EXECUTE FUNCTION private.limit_invitations();

revoke execute on function private.limit_invitations() from public;
