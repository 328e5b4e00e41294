set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.email_notification(p_notification_id uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  -- The lock first, the calls then in a statement of their own: its snapshot is taken after the lock, so it
  -- can't show a call whose batch committed (and released the lock) between the two.
  if pg_try_advisory_xact_lock_shared(hashtextextended('notification emails', 0)) then
    if exists (select 1 from private.notification_email_calls where queued_at > now() - interval '30 seconds') then
      insert into private.notification_emails (notification_id) values (p_notification_id);
      return;
    end if;
  end if;
  -- Nothing until Vault knows the project, as private.call_function.
  if exists (select 1 from vault.decrypted_secrets where name = 'project_url') then
    insert into private.notification_emails (notification_id) values (p_notification_id);
    insert into private.notification_email_calls default values;
    perform private.call_function('notify', '{"type": "notifications"}');
  end if;
end $function$
;
