set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.refuse_used_workspace_slug()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if exists (select 1 from public.workspace_slug_history h where h.slug = new.slug and h.workspace_id <> new.id) then
    raise exception using errcode = 'P0001', message = 'slug_taken', detail = new.slug;
  end if;
  return new;
end $function$
;

CREATE TRIGGER workspaces_used_slug BEFORE INSERT OR UPDATE OF slug ON public.workspaces FOR EACH ROW EXECUTE FUNCTION private.refuse_used_workspace_slug();

revoke execute on function private.refuse_used_workspace_slug() from public;
