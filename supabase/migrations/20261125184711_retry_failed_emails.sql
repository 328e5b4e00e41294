set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.retry_failed_emails()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  message uuid;
  n integer := 0;
begin
  for message in
    select distinct substring(d.message_id from '^<m\.([0-9a-f-]{36})@')::uuid
      from public.email_deliveries d
     where d.message_id like '<m.%' and d.attempts < 5 and d.created_at > now() - interval '1 day'
       and (d.status = 'failed' or (d.status = 'sending' and d.claimed_at < now() - interval '2 minutes'))
  loop
    perform private.call_function('notify', jsonb_build_object('type', 'message', 'message_id', message));
    n := n + 1;
  end loop;
  return n;
end $function$
;

revoke execute on function private.retry_failed_emails() from public;

-- Added by hand: `db diff` compares schemas, not data (Supabase docs, declarative schemas caveats).
select cron.schedule('retry-emails', '*/10 * * * *', 'select private.retry_failed_emails()');
