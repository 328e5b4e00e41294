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

CREATE OR REPLACE FUNCTION public.help_center(p_slug text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  workspace jsonb;
begin
  select w.id, jsonb_build_object('slug', w.slug, 'name', w.name) into ws, workspace from public.portal_workspace(p_slug) w;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  return jsonb_build_object(
    'workspace', workspace,
    'collections', coalesce((
      -- Counted per collection through its index: the policies make the planner expect one collection,
      -- and a join it then chose counted the whole workspace's articles once per collection.
      select jsonb_agg(jsonb_build_object('id', c.id, 'title', c.title, 'slug', c.slug, 'description', c.description,
                                          'articles', n.articles) order by c.position, c.title)
        from public.help_collections c
        cross join lateral (select count(*) as articles from public.help_articles a
                             where a.collection_id = c.id and a.status = 'published') n
       where c.workspace_id = ws and n.articles > 0), '[]'),
    'popular', coalesce((
      select jsonb_agg(jsonb_build_object('id', a.id, 'title', a.title, 'slug', a.slug) order by p.n)
        from public.help_popular_articles(ws) with ordinality p (id, n)
        join public.help_articles a on a.id = p.id), '[]'),
    'published', (select count(*) from public.help_articles a where a.workspace_id = ws and a.status = 'published'));
end $function$
;

CREATE OR REPLACE FUNCTION public.help_search(p_slug text, p_query text, p_limit integer DEFAULT 10, p_published_only boolean DEFAULT true)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  drafts boolean;
  workspace jsonb;
  cfg regconfig;
  -- Not trimmed at the end: a space after the last word says it is finished (no prefix).
  query text := left(ltrim(regexp_replace(coalesce(p_query, ''), '[[:cntrl:]]+', ' ', 'g')), 200);
  lim integer := least(greatest(coalesce(p_limit, 10), 1), 50);
  marks text := 'StartSel=' || chr(57344) || ', StopSel=' || chr(57345);
  corrected text;
  last_word text;
  head text;
  q tsquery;
  prefix tsquery;
  hits jsonb := '[]';
begin
  select w.id, jsonb_build_object('slug', w.slug, 'name', w.name) into ws, workspace from public.portal_workspace(p_slug) w;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  drafts := not coalesce(p_published_only, true) and private.is_member(ws);
  cfg := coalesce((select s.language from public.help_settings s where s.workspace_id = ws), 'english')::regconfig;
  for attempt in 1..2 loop
    exit when btrim(query) = '';
    last_word := substring(query from '(?:^|[^-[:alnum:]])([[:alnum:]]{2,})$');
    head := case when last_word is null then query else left(query, -char_length(last_word)) end;
    -- websearch_to_tsquery and to_tsquery of nothing, or of stop words only, log a notice: asked only for words.
    q := case when head ~ '[[:alnum:]]' then websearch_to_tsquery(cfg, head) end;
    if last_word is not null and length(to_tsvector(cfg, last_word)) > 0 then
      prefix := to_tsquery(cfg, quote_literal(last_word) || ':*');
      q := case when q is null or numnode(q) = 0 then prefix else q && prefix end;
    end if;
    if numnode(q) > 0 then
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', h.id, 'title', h.title, 'slug', h.slug, 'status', h.status,
               'title_marked', ts_headline(cfg, h.title, q, marks || ', HighlightAll=true'),
               -- From the first 3 000 characters: ts_headline parses all it is given, and a long article's
               -- whole text made the snippets most of a search's time (bench:help).
               'snippet', ts_headline(cfg, left(h.body_text, 3000), q, marks || ', MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "'))
             order by h.in_title desc, h.rank desc, h.id), '[]')
        into hits
        from (
          -- Title matches first (found through the titles' own index, so a common word's thousands of
          -- body matches aren't read), ranked among themselves; then, only if they don't fill the page,
          -- the other matches. Ranking reads a match's whole vector (TOASTed): this bounds how many.
          with titled as materialized (
            select a.id, true as in_title, ts_rank(a.search, q, 1) as rank
              from public.help_articles a
             where a.workspace_id = ws and a.title_search @@ q and a.search @@ q
               and (a.status = 'published' or drafts)
             order by rank desc, a.id limit lim
          ), bodies as materialized (
            select a.id, false as in_title, ts_rank(a.search, q, 1) as rank
              from public.help_articles a
             where (select count(*) from titled) < lim
               and a.workspace_id = ws and a.search @@ q and not a.title_search @@ q
               and (a.status = 'published' or drafts)
             order by rank desc, a.id limit lim
          )
          select a.id, a.title, a.slug, a.status, a.body_text, r.in_title, r.rank
            from (select * from titled union all select * from bodies order by in_title desc, rank desc, id limit lim) r
            join public.help_articles a on a.id = r.id
        ) h;
    end if;
    exit when jsonb_array_length(hits) > 0 or attempt = 2;
    corrected := public.help_spelling(ws, query);
    exit when corrected is null;
    query := corrected;
  end loop;
  return jsonb_build_object('workspace', workspace, 'results', hits, 'corrected', case when jsonb_array_length(hits) > 0 then corrected end);
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
