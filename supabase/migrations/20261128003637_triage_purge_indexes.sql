CREATE INDEX inbound_emails_created_message_idx ON public.inbound_emails USING btree (created_message_id) WHERE (created_message_id IS NOT NULL);

CREATE INDEX ticket_forwards_message_idx ON public.ticket_forwards USING btree (message_id) WHERE (message_id IS NOT NULL);

CREATE INDEX tickets_follow_up_idx ON public.tickets USING btree (follow_up_of) WHERE (follow_up_of IS NOT NULL);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.purge_batch()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 100 $function$
;

CREATE OR REPLACE FUNCTION private.purge_trash()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return private.delete_tickets(array(
    select t.id from public.tickets t
     where t.trashed_at < now() - make_interval(days => private.trash_days())
     order by t.trashed_at limit private.purge_batch()
     for update skip locked));
end $function$
;

revoke execute on function private.purge_batch() from public;
