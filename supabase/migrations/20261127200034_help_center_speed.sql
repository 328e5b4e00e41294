create sequence "private"."help_version_seq";


  create table "private"."help_versions" (
    "workspace_id" uuid not null,
    "version" bigint not null
      );


alter table "private"."help_versions" enable row level security;

CREATE UNIQUE INDEX help_versions_pkey ON private.help_versions USING btree (workspace_id);

CREATE INDEX help_articles_collection_idx ON public.help_articles USING btree (collection_id, "position", title, id) WHERE (status = 'published'::help_article_status);

alter table "private"."help_versions" add constraint "help_versions_pkey" PRIMARY KEY using index "help_versions_pkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.help_bump_version()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  insert into private.help_versions as v (workspace_id, version)
  select ws, nextval('private.help_version_seq')
    from (select distinct ws from unnest(case
            when tg_op = 'INSERT' then array[new.workspace_id]
            when tg_op = 'DELETE' then array[old.workspace_id]
            else array[old.workspace_id, new.workspace_id] end) ws) w
  on conflict (workspace_id) do update set version = excluded.version;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.help_bump_workspace_version()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  insert into private.help_versions as v (workspace_id, version) values (new.id, nextval('private.help_version_seq'))
  on conflict (workspace_id) do update set version = excluded.version;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.record_help_search_miss(p_workspace_id uuid, p_query text, p_searches integer)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  q text := left(lower(btrim(regexp_replace(coalesce(p_query, ''), '[[:space:][:cntrl:]]+', ' ', 'g'))), 100);
  today date;
begin
  if p_workspace_id is null or q = '' or coalesce(p_searches, 0) < 1 then
    return;
  end if;
  today := (now() at time zone (select w.time_zone from public.workspaces w where w.id = p_workspace_id))::date;
  update public.help_search_misses m set searches = m.searches + p_searches
   where m.workspace_id = p_workspace_id and m.day = today and m.query = q;
  if not found and (select count(*) from public.help_search_misses m where m.workspace_id = p_workspace_id and m.day = today) < 200 then
    insert into public.help_search_misses as m (workspace_id, day, query, searches) values (p_workspace_id, today, q, p_searches)
    on conflict (workspace_id, day, query) do update set searches = m.searches + excluded.searches;
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION public.count_help_views(p_article_ids bigint[], p_views integer[])
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  perform set_config('synchronous_commit', 'off', true);
  insert into public.help_article_views as v (article_id, day, workspace_id, views)
  select a.id, (now() at time zone w.time_zone)::date, a.workspace_id, sum(greatest(c.n, 0))
    from unnest(p_article_ids[1:10000], p_views[1:10000]) c (id, n)
    join public.help_articles a on a.id = c.id and a.status = 'published'
    join public.workspaces w on w.id = a.workspace_id
   group by 1, 2, 3
  on conflict (article_id, day) do update set views = v.views + excluded.views;
end $function$
;

CREATE OR REPLACE FUNCTION public.help_versions(p_slugs text[])
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_object_agg(s.slug, coalesce(v.version, 0)), '{}')
    from (select distinct unnest(p_slugs[1:1000]) as slug) s
    join public.workspaces w on w.slug = lower(btrim(s.slug))
    left join private.help_versions v on v.workspace_id = w.id
$function$
;

CREATE OR REPLACE FUNCTION public.record_help_search_misses(p_slug text, p_queries text[], p_searches integer[])
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ws uuid := (select w.id from public.portal_workspace(p_slug) w);
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  perform set_config('synchronous_commit', 'off', true);
  perform private.record_help_search_miss(ws, c.q, c.n)
     from unnest(p_queries[1:1000], p_searches[1:1000]) with ordinality c (q, n, i) order by c.i;
end $function$
;

CREATE OR REPLACE FUNCTION public.record_help_search_miss(p_slug text, p_query text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform private.record_help_search_miss((select w.id from public.portal_workspace(p_slug) w), p_query, 1);
end $function$
;

CREATE TRIGGER help_articles_version AFTER INSERT OR DELETE OR UPDATE ON public.help_articles FOR EACH ROW EXECUTE FUNCTION private.help_bump_version();

CREATE TRIGGER help_collections_version AFTER INSERT OR DELETE OR UPDATE ON public.help_collections FOR EACH ROW EXECUTE FUNCTION private.help_bump_version();

CREATE TRIGGER help_settings_version AFTER INSERT OR DELETE OR UPDATE ON public.help_settings FOR EACH ROW EXECUTE FUNCTION private.help_bump_version();

CREATE TRIGGER workspaces_help_version AFTER UPDATE OF slug, name ON public.workspaces FOR EACH ROW EXECUTE FUNCTION private.help_bump_workspace_version();

revoke execute on function private.help_bump_version() from public;
revoke execute on function private.help_bump_workspace_version() from public;
revoke execute on function private.record_help_search_miss(p_workspace_id uuid, p_query text, p_searches integer) from public;
revoke execute on function public.count_help_views(p_article_ids bigint[], p_views integer[]) from anon;
revoke execute on function public.count_help_views(p_article_ids bigint[], p_views integer[]) from authenticated;
revoke execute on function public.count_help_views(p_article_ids bigint[], p_views integer[]) from public;
revoke execute on function public.help_versions(p_slugs text[]) from public;
revoke execute on function public.record_help_search_misses(p_slug text, p_queries text[], p_searches integer[]) from anon;
revoke execute on function public.record_help_search_misses(p_slug text, p_queries text[], p_searches integer[]) from authenticated;
revoke execute on function public.record_help_search_misses(p_slug text, p_queries text[], p_searches integer[]) from public;
