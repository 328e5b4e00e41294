drop policy "help images: members upload to their workspace" on "storage"."objects";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.help_images_max_per_day()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 100 $function$
;

CREATE OR REPLACE FUNCTION private.help_images_max_unclaimed_bytes()
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 50::bigint * 1024 * 1024 $function$
;

CREATE OR REPLACE FUNCTION private.help_images_max_unclaimed_count()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$ select 20 $function$
;

CREATE OR REPLACE FUNCTION private.may_upload_help_image(p_name text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  parts text[] := string_to_array(p_name, '/');
  uuid_re text := '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
  held record;
begin
  if auth.uid() is null or coalesce(array_length(parts, 1), 0) <> 3 or parts[1] !~ uuid_re or parts[2] !~ uuid_re
     or parts[3] = '' or not private.is_member(parts[1]::uuid) then
    return false;
  end if;
  -- Keys from "<workspace>/" up to "<workspace>0" ('0' follows '/'), through the pattern index.
  select count(*) filter (where o.created_at > now() - interval '24 hours') as today,
         count(*) filter (where i.folder is null) as unclaimed,
         coalesce(sum((o.metadata->>'size')::bigint) filter (where i.folder is null), 0) as unclaimed_bytes
    into held
    from storage.objects o
    left join lateral (select h.folder from private.help_article_images h
                        where h.folder = split_part(o.name, '/', 1) || '/' || split_part(o.name, '/', 2) limit 1) i on true
   where o.bucket_id = 'help' and o.name ~>=~ (parts[1] || '/') and o.name ~<~ (parts[1] || '0')
     and o.owner_id = auth.uid()::text;
  return held.today < private.help_images_max_per_day()
     and held.unclaimed < private.help_images_max_unclaimed_count()
     and held.unclaimed_bytes < private.help_images_max_unclaimed_bytes();
end $function$
;


  create policy "help images: members upload within their limits"
  on "storage"."objects"
  as permissive
  for insert
  to authenticated
with check (((bucket_id = 'help'::text) AND (owner_id = (( SELECT auth.uid() AS uid))::text) AND private.may_upload_help_image(name)));

grant execute on function private.may_upload_help_image(p_name text) to authenticated;
revoke execute on function private.help_images_max_per_day() from public;
revoke execute on function private.help_images_max_unclaimed_bytes() from public;
revoke execute on function private.help_images_max_unclaimed_count() from public;
revoke execute on function private.may_upload_help_image(p_name text) from public;
