drop policy "members join the editing channel of their workspace's articles" on "realtime"."messages";


  create table "private"."help_article_images" (
    "article_id" bigint not null,
    "folder" text not null
      );


alter table "private"."help_article_images" enable row level security;


  create table "private"."help_collection_slugs" (
    "workspace_id" uuid not null,
    "slug" text not null,
    "collection_id" uuid not null
      );


alter table "private"."help_collection_slugs" enable row level security;

alter table "public"."help_articles" add column "title_search" tsvector not null default ''::tsvector;

CREATE INDEX help_article_images_folder_idx ON private.help_article_images USING btree (folder);

CREATE UNIQUE INDEX help_article_images_pkey ON private.help_article_images USING btree (article_id, folder);

CREATE INDEX help_collection_slugs_collection_idx ON private.help_collection_slugs USING btree (collection_id);

CREATE UNIQUE INDEX help_collection_slugs_pkey ON private.help_collection_slugs USING btree (workspace_id, slug);

CREATE INDEX help_articles_title_search_idx ON public.help_articles USING gin (title_search);

alter table "private"."help_article_images" add constraint "help_article_images_pkey" PRIMARY KEY using index "help_article_images_pkey";

alter table "private"."help_collection_slugs" add constraint "help_collection_slugs_pkey" PRIMARY KEY using index "help_collection_slugs_pkey";

alter table "private"."help_article_images" add constraint "help_article_images_article_id_fkey" FOREIGN KEY (article_id) REFERENCES help_articles(id) ON DELETE CASCADE not valid;

alter table "private"."help_article_images" validate constraint "help_article_images_article_id_fkey";

alter table "private"."help_collection_slugs" add constraint "help_collection_slugs_collection_id_workspace_id_fkey" FOREIGN KEY (collection_id, workspace_id) REFERENCES help_collections(id, workspace_id) ON DELETE CASCADE not valid;

alter table "private"."help_collection_slugs" validate constraint "help_collection_slugs_collection_id_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.help_claim_images()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'UPDATE' and new.body is not distinct from old.body then
    return null;
  end if;
  delete from private.help_article_images i where i.article_id = new.id;
  insert into private.help_article_images (article_id, folder)
  select distinct new.id, m[1]
    from regexp_matches(new.body, '/storage/v1/object/public/help/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/', 'g') m;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.help_remember_collection_slug()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from private.help_collection_slugs h where h.workspace_id = new.workspace_id and h.slug = new.slug;
  if tg_op = 'UPDATE' and old.slug <> new.slug then
    insert into private.help_collection_slugs (workspace_id, slug, collection_id)
    values (old.workspace_id, old.slug, new.id)
    on conflict (workspace_id, slug) do update set collection_id = excluded.collection_id;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION public.announce_help_editor(p_article_id bigint, p_presence_ref text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  topic text := 'help-article:' || p_article_id;
begin
  if coalesce(char_length(p_presence_ref), 0) not between 1 and 100 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'presence_ref';
  end if;
  if auth.uid() is null or not private.may_use_help_article_channel(topic) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'article';
  end if;
  perform realtime.send(jsonb_build_object('presence_ref', p_presence_ref, 'user_id', auth.uid()), 'editor', topic, true);
end $function$
;

CREATE OR REPLACE FUNCTION public.help_renamed_collection(p_workspace_id uuid, p_slug text)
 RETURNS uuid
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select h.collection_id from private.help_collection_slugs h where h.workspace_id = p_workspace_id and h.slug = p_slug
$function$
;

CREATE OR REPLACE FUNCTION public.unclaimed_help_images(p_limit integer DEFAULT 1000)
 RETURNS SETOF text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  return query
    select o.name from storage.objects o
     where o.bucket_id = 'help' and o.created_at < now() - interval '1 hour'
       and not exists (select 1 from private.help_article_images i
                        where i.folder = split_part(o.name, '/', 1) || '/' || split_part(o.name, '/', 2))
     order by o.created_at
     limit least(greatest(p_limit, 1), 1000);
end $function$
;

CREATE OR REPLACE FUNCTION private.help_language_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.help_articles a
     set title_search = to_tsvector(new.language::regconfig, a.title),
         search = setweight(to_tsvector(new.language::regconfig, a.title), 'A')
               || setweight(to_tsvector(new.language::regconfig, a.body_text), 'B')
   where a.workspace_id = new.workspace_id;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.help_stamp_article()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' or new.title is distinct from old.title or new.body is distinct from old.body then
    new.slug := private.help_slug(new.title);
    new.body_text := private.markdown_plain(new.body);
    new.title_search := to_tsvector(private.help_language(new.workspace_id), new.title);
    new.search := setweight(new.title_search, 'A')
               || setweight(to_tsvector(private.help_language(new.workspace_id), new.body_text), 'B');
  end if;
  if tg_op = 'UPDATE' then
    new.updated_at := now();
    new.updated_by := auth.uid();
  end if;
  if new.status = 'published' and (tg_op = 'INSERT' or old.status <> 'published') then
    new.published_at := now();
  end if;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION public.help_collection(p_slug text, p_collection text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  workspace jsonb;
  c public.help_collections;
begin
  select w.id, jsonb_build_object('slug', w.slug, 'name', w.name) into ws, workspace from public.portal_workspace(p_slug) w;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  select * into c from public.help_collections where workspace_id = ws and slug = p_collection;
  if c.id is null then
    -- An old slug: where the collection is now (the policies decide whether the reader may see it).
    select * into c from public.help_collections
     where id = public.help_renamed_collection(ws, p_collection) and workspace_id = ws;
    if c.id is not null then
      return jsonb_build_object('workspace', workspace, 'moved_to', c.slug);
    end if;
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'collection';
  end if;
  return jsonb_build_object(
    'workspace', workspace,
    'id', c.id, 'title', c.title, 'slug', c.slug, 'description', c.description,
    'articles', coalesce((
      select jsonb_agg(jsonb_build_object('id', a.id, 'title', a.title, 'slug', a.slug, 'updated_at', a.updated_at,
                                          'excerpt', left(a.body_text, 160)) order by a.position, a.title, a.id)
        from public.help_articles a where a.collection_id = c.id and a.status = 'published'), '[]'));
end $function$
;

CREATE OR REPLACE FUNCTION public.help_search(p_slug text, p_query text, p_limit integer DEFAULT 10, p_published_only boolean DEFAULT true)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
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
               and (a.status = 'published' or not coalesce(p_published_only, true))
             order by rank desc, a.id limit lim
          ), bodies as materialized (
            select a.id, false as in_title, ts_rank(a.search, q, 1) as rank
              from public.help_articles a
             where (select count(*) from titled) < lim
               and a.workspace_id = ws and a.search @@ q and not a.title_search @@ q
               and (a.status = 'published' or not coalesce(p_published_only, true))
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


  create policy "members join the editing channel of their workspace's articles"
  on "realtime"."messages"
  as permissive
  for select
  to authenticated
using (((extension = ANY (ARRAY['presence'::text, 'broadcast'::text])) AND ( SELECT private.may_use_help_article_channel(realtime.topic()) AS may_use_help_article_channel)));


CREATE TRIGGER help_articles_images AFTER INSERT OR UPDATE OF body ON public.help_articles FOR EACH ROW EXECUTE FUNCTION private.help_claim_images();

CREATE TRIGGER help_collections_slugs AFTER INSERT OR UPDATE OF title ON public.help_collections FOR EACH ROW EXECUTE FUNCTION private.help_remember_collection_slug();

grant select (title_search) on table public.help_articles to anon;
revoke execute on function private.help_claim_images() from public;
revoke execute on function private.help_remember_collection_slug() from public;
revoke execute on function public.announce_help_editor(p_article_id bigint, p_presence_ref text) from anon;
revoke execute on function public.announce_help_editor(p_article_id bigint, p_presence_ref text) from public;
revoke execute on function public.help_renamed_collection(p_workspace_id uuid, p_slug text) from public;
revoke execute on function public.unclaimed_help_images(p_limit integer) from anon;
revoke execute on function public.unclaimed_help_images(p_limit integer) from authenticated;
revoke execute on function public.unclaimed_help_images(p_limit integer) from public;

-- By hand (data): the titles' vectors of the articles written before this migration, without the stamp
-- trigger (which would make every article look edited now, by nobody).
alter table public.help_articles disable trigger help_articles_stamp;
update public.help_articles set title_search = to_tsvector(private.help_language(workspace_id), title);
alter table public.help_articles enable trigger help_articles_stamp;

-- By hand (data, which db diff doesn't see): the images the articles written before this migration
-- show, so the sweep keeps them (private.help_claim_images does this for every later write).
insert into private.help_article_images (article_id, folder)
select distinct a.id, m[1]
  from public.help_articles a
 cross join lateral regexp_matches(a.body, '/storage/v1/object/public/help/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/', 'g') m
on conflict do nothing;
