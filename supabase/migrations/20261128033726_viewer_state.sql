set check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.viewer_state()
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'unread', public.unread_notifications(),
    'time_zone', (select s.time_zone from public.user_settings s where s.user_id = (select auth.uid())))
$function$
;

revoke execute on function public.viewer_state() from anon;
revoke execute on function public.viewer_state() from public;
