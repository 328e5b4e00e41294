-- pg_trgm comes with the local stack and not with every hosted project.
create extension if not exists "pg_trgm" with schema "extensions";

create extension if not exists "btree_gist" with schema "extensions";

create extension if not exists "fuzzystrmatch" with schema "extensions";

create type "public"."help_article_status" as enum ('draft', 'published');


  create table "private"."help_words" (
    "workspace_id" uuid not null,
    "word" text not null
      );


alter table "private"."help_words" enable row level security;


  create table "public"."help_article_views" (
    "article_id" bigint not null,
    "day" date not null,
    "workspace_id" uuid not null,
    "views" integer not null default 0
      );


alter table "public"."help_article_views" enable row level security;


  create table "public"."help_article_votes" (
    "article_id" bigint not null,
    "visitor_id" uuid not null,
    "workspace_id" uuid not null,
    "helpful" boolean not null,
    "voted_at" timestamp with time zone not null default now()
      );


alter table "public"."help_article_votes" enable row level security;


  create table "public"."help_articles" (
    "id" bigint generated always as identity not null,
    "workspace_id" uuid not null,
    "collection_id" uuid,
    "title" text not null,
    "slug" text not null default ''::text,
    "body" text not null default ''::text,
    "status" help_article_status not null default 'draft'::help_article_status,
    "position" integer not null default 0,
    "author_id" uuid default auth.uid(),
    "created_at" timestamp with time zone not null default now(),
    "updated_by" uuid,
    "updated_at" timestamp with time zone not null default now(),
    "published_at" timestamp with time zone,
    "body_text" text not null default ''::text,
    "search" tsvector not null default ''::tsvector
      );


alter table "public"."help_articles" enable row level security;


  create table "public"."help_collections" (
    "id" uuid not null default gen_random_uuid(),
    "workspace_id" uuid not null,
    "title" text not null,
    "description" text not null default ''::text,
    "slug" text not null default ''::text,
    "position" integer not null default 0,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."help_collections" enable row level security;


  create table "public"."help_search_misses" (
    "workspace_id" uuid not null,
    "day" date not null,
    "query" text not null,
    "searches" integer not null default 1
      );


alter table "public"."help_search_misses" enable row level security;


  create table "public"."help_settings" (
    "workspace_id" uuid not null,
    "language" text not null default 'english'::text
      );


alter table "public"."help_settings" enable row level security;


  create table "public"."help_suggestion_events" (
    "id" bigint generated always as identity not null,
    "workspace_id" uuid not null,
    "article_id" bigint,
    "user_id" uuid not null,
    "kind" text not null,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."help_suggestion_events" enable row level security;

CREATE UNIQUE INDEX help_words_pkey ON private.help_words USING btree (workspace_id, word);

CREATE INDEX help_words_trgm_idx ON private.help_words USING gist (workspace_id, word extensions.gist_trgm_ops);

CREATE UNIQUE INDEX help_article_views_pkey ON public.help_article_views USING btree (article_id, day);

CREATE INDEX help_article_views_workspace_idx ON public.help_article_views USING btree (workspace_id, day);

CREATE UNIQUE INDEX help_article_votes_pkey ON public.help_article_votes USING btree (article_id, visitor_id);

CREATE INDEX help_article_votes_recent_idx ON public.help_article_votes USING btree (article_id, voted_at);

CREATE INDEX help_article_votes_workspace_idx ON public.help_article_votes USING btree (workspace_id, voted_at);

CREATE UNIQUE INDEX help_articles_pkey ON public.help_articles USING btree (id);

CREATE INDEX help_articles_search_idx ON public.help_articles USING gin (search);

CREATE INDEX help_articles_updated_idx ON public.help_articles USING btree (workspace_id, updated_at DESC, id DESC);

CREATE INDEX help_articles_workspace_idx ON public.help_articles USING btree (workspace_id, status, collection_id, "position", id);

CREATE UNIQUE INDEX help_collections_id_workspace_id_key ON public.help_collections USING btree (id, workspace_id);

CREATE UNIQUE INDEX help_collections_pkey ON public.help_collections USING btree (id);

CREATE UNIQUE INDEX help_collections_slug_key ON public.help_collections USING btree (workspace_id, slug);

CREATE UNIQUE INDEX help_collections_title_key ON public.help_collections USING btree (workspace_id, lower(title));

CREATE UNIQUE INDEX help_search_misses_pkey ON public.help_search_misses USING btree (workspace_id, day, query);

CREATE UNIQUE INDEX help_settings_pkey ON public.help_settings USING btree (workspace_id);

CREATE UNIQUE INDEX help_suggestion_events_pkey ON public.help_suggestion_events USING btree (id);

CREATE INDEX help_suggestion_events_user_idx ON public.help_suggestion_events USING btree (user_id, workspace_id, created_at);

CREATE INDEX help_suggestion_events_workspace_idx ON public.help_suggestion_events USING btree (workspace_id, created_at);

alter table "private"."help_words" add constraint "help_words_pkey" PRIMARY KEY using index "help_words_pkey";

alter table "public"."help_article_views" add constraint "help_article_views_pkey" PRIMARY KEY using index "help_article_views_pkey";

alter table "public"."help_article_votes" add constraint "help_article_votes_pkey" PRIMARY KEY using index "help_article_votes_pkey";

alter table "public"."help_articles" add constraint "help_articles_pkey" PRIMARY KEY using index "help_articles_pkey";

alter table "public"."help_collections" add constraint "help_collections_pkey" PRIMARY KEY using index "help_collections_pkey";

alter table "public"."help_search_misses" add constraint "help_search_misses_pkey" PRIMARY KEY using index "help_search_misses_pkey";

alter table "public"."help_settings" add constraint "help_settings_pkey" PRIMARY KEY using index "help_settings_pkey";

alter table "public"."help_suggestion_events" add constraint "help_suggestion_events_pkey" PRIMARY KEY using index "help_suggestion_events_pkey";

alter table "private"."help_words" add constraint "help_words_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "private"."help_words" validate constraint "help_words_workspace_id_fkey";

alter table "public"."help_article_views" add constraint "help_article_views_article_id_fkey" FOREIGN KEY (article_id) REFERENCES help_articles(id) ON DELETE CASCADE not valid;

alter table "public"."help_article_views" validate constraint "help_article_views_article_id_fkey";

alter table "public"."help_article_views" add constraint "help_article_views_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."help_article_views" validate constraint "help_article_views_workspace_id_fkey";

alter table "public"."help_article_votes" add constraint "help_article_votes_article_id_fkey" FOREIGN KEY (article_id) REFERENCES help_articles(id) ON DELETE CASCADE not valid;

alter table "public"."help_article_votes" validate constraint "help_article_votes_article_id_fkey";

alter table "public"."help_article_votes" add constraint "help_article_votes_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."help_article_votes" validate constraint "help_article_votes_workspace_id_fkey";

alter table "public"."help_articles" add constraint "help_articles_author_id_fkey" FOREIGN KEY (author_id) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."help_articles" validate constraint "help_articles_author_id_fkey";

alter table "public"."help_articles" add constraint "help_articles_body_check" CHECK ((char_length(body) <= 50000)) not valid;

alter table "public"."help_articles" validate constraint "help_articles_body_check";

alter table "public"."help_articles" add constraint "help_articles_collection_id_workspace_id_fkey" FOREIGN KEY (collection_id, workspace_id) REFERENCES help_collections(id, workspace_id) ON DELETE SET NULL (collection_id) not valid;

alter table "public"."help_articles" validate constraint "help_articles_collection_id_workspace_id_fkey";

alter table "public"."help_articles" add constraint "help_articles_slug_check" CHECK (((slug ~ '^([a-z0-9]+(-[a-z0-9]+)*)?$'::text) AND (char_length(slug) <= 80))) not valid;

alter table "public"."help_articles" validate constraint "help_articles_slug_check";

alter table "public"."help_articles" add constraint "help_articles_title_check" CHECK (((char_length(title) >= 1) AND (char_length(title) <= 150))) not valid;

alter table "public"."help_articles" validate constraint "help_articles_title_check";

alter table "public"."help_articles" add constraint "help_articles_updated_by_fkey" FOREIGN KEY (updated_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."help_articles" validate constraint "help_articles_updated_by_fkey";

alter table "public"."help_articles" add constraint "help_articles_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."help_articles" validate constraint "help_articles_workspace_id_fkey";

alter table "public"."help_collections" add constraint "help_collections_description_check" CHECK ((char_length(description) <= 300)) not valid;

alter table "public"."help_collections" validate constraint "help_collections_description_check";

alter table "public"."help_collections" add constraint "help_collections_id_workspace_id_key" UNIQUE using index "help_collections_id_workspace_id_key";

alter table "public"."help_collections" add constraint "help_collections_slug_check" CHECK (((slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'::text) AND (char_length(slug) <= 80) AND (slug <> ALL (ARRAY['search'::text, 'articles'::text, 'suggest'::text, 'vote'::text])))) not valid;

alter table "public"."help_collections" validate constraint "help_collections_slug_check";

alter table "public"."help_collections" add constraint "help_collections_title_check" CHECK (((char_length(title) >= 1) AND (char_length(title) <= 80))) not valid;

alter table "public"."help_collections" validate constraint "help_collections_title_check";

alter table "public"."help_collections" add constraint "help_collections_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."help_collections" validate constraint "help_collections_workspace_id_fkey";

alter table "public"."help_search_misses" add constraint "help_search_misses_query_check" CHECK (((char_length(query) >= 1) AND (char_length(query) <= 100))) not valid;

alter table "public"."help_search_misses" validate constraint "help_search_misses_query_check";

alter table "public"."help_search_misses" add constraint "help_search_misses_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."help_search_misses" validate constraint "help_search_misses_workspace_id_fkey";

alter table "public"."help_settings" add constraint "help_settings_language_check" CHECK ((language = ANY (ARRAY['simple'::text, 'danish'::text, 'dutch'::text, 'english'::text, 'finnish'::text, 'french'::text, 'german'::text, 'hungarian'::text, 'italian'::text, 'norwegian'::text, 'portuguese'::text, 'romanian'::text, 'russian'::text, 'spanish'::text, 'swedish'::text, 'turkish'::text]))) not valid;

alter table "public"."help_settings" validate constraint "help_settings_language_check";

alter table "public"."help_settings" add constraint "help_settings_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."help_settings" validate constraint "help_settings_workspace_id_fkey";

alter table "public"."help_suggestion_events" add constraint "help_suggestion_events_article_id_fkey" FOREIGN KEY (article_id) REFERENCES help_articles(id) ON DELETE SET NULL not valid;

alter table "public"."help_suggestion_events" validate constraint "help_suggestion_events_article_id_fkey";

alter table "public"."help_suggestion_events" add constraint "help_suggestion_events_kind_check" CHECK ((kind = ANY (ARRAY['click'::text, 'answered'::text]))) not valid;

alter table "public"."help_suggestion_events" validate constraint "help_suggestion_events_kind_check";

alter table "public"."help_suggestion_events" add constraint "help_suggestion_events_user_id_fkey" FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE not valid;

alter table "public"."help_suggestion_events" validate constraint "help_suggestion_events_user_id_fkey";

alter table "public"."help_suggestion_events" add constraint "help_suggestion_events_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."help_suggestion_events" validate constraint "help_suggestion_events_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.help_language(p_workspace_id uuid)
 RETURNS regconfig
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce((select s.language from public.help_settings s where s.workspace_id = p_workspace_id), 'english')::regconfig
$function$
;

CREATE OR REPLACE FUNCTION private.help_language_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.help_articles a
     set search = setweight(to_tsvector(new.language::regconfig, a.title), 'A')
               || setweight(to_tsvector(new.language::regconfig, a.body_text), 'B')
   where a.workspace_id = new.workspace_id;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.help_learn_words()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if new.status = 'published' and (tg_op = 'INSERT' or new.title is distinct from old.title
                                   or new.body_text is distinct from old.body_text or old.status <> 'published') then
    insert into private.help_words (workspace_id, word)
    select new.workspace_id, w.lexeme
      from unnest(to_tsvector('simple'::regconfig, new.title || ' ' || new.body_text)) w
     where char_length(w.lexeme) between 3 and 30 and w.lexeme !~ '[0-9]'
    on conflict do nothing;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.help_slug(p_title text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select coalesce(nullif(pg_catalog.rtrim(left(pg_catalog.btrim(
    regexp_replace(lower(p_title), '[^a-z0-9]+', '-', 'g'), '-'), 80), '-'), ''), 'article')
$function$
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
    new.search := setweight(to_tsvector(private.help_language(new.workspace_id), new.title), 'A')
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

CREATE OR REPLACE FUNCTION private.help_stamp_collection()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  new.slug := private.help_slug(new.title);
  if new.slug in ('search', 'articles', 'suggest', 'vote') then
    new.slug := new.slug || '-1';
  end if;
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION private.markdown_plain(p_markdown text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select btrim(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
    p_markdown,
    '!\[([^\]]*)\]\([^)]*\)', '\1', 'g'),                        -- images: their alt text
    '\[([^\]]*)\]\([^)]*\)', '\1', 'g'),                         -- links: their text
    '<[^>]*>', ' ', 'g'),                                        -- HTML tags (never rendered)
    '(^|\n)[ \t]{0,3}(#{1,6}|>|[-*+]|[0-9]+[.)])[ \t]+', '\1', 'g'),  -- headings, quotes, list items
    '```[^\n]*|[*_`~|]+|(^|\n)[ \t]*[-=:| ]{3,}(\n|$)', ' ', 'g'),    -- fences, emphasis, table rules
    '\s+', ' ', 'g'))
$function$
;

CREATE OR REPLACE FUNCTION private.may_use_help_article_channel(topic text)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select exists (
    select 1 from public.help_articles a
     where a.id = case when topic ~ '^help-article:[0-9]{1,18}$' then substr(topic, 14)::bigint end
       and a.workspace_id in (select private.member_workspaces())
  )
$function$
;

CREATE OR REPLACE FUNCTION public.count_help_view(p_article_id bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  perform set_config('synchronous_commit', 'off', true);
  insert into public.help_article_views as v (article_id, day, workspace_id, views)
  select a.id, (now() at time zone w.time_zone)::date, a.workspace_id, 1
    from public.help_articles a join public.workspaces w on w.id = a.workspace_id
   where a.id = p_article_id and a.status = 'published'
  on conflict (article_id, day) do update set views = v.views + 1;
end $function$
;

CREATE OR REPLACE FUNCTION public.help_article(p_slug text, p_id bigint, p_count_view boolean DEFAULT false)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  workspace jsonb;
  -- The columns anon may read (not who wrote it).
  a record;
  c public.help_collections;
begin
  select w.id, jsonb_build_object('slug', w.slug, 'name', w.name) into ws, workspace from public.portal_workspace(p_slug) w;
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  select h.id, h.collection_id, h.title, h.slug, h.body, h.status, h.body_text, h.updated_at, h.published_at into a
    from public.help_articles h where h.id = p_id and h.workspace_id = ws;
  if a.id is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'article';
  end if;
  if p_count_view and a.status = 'published' then
    perform public.count_help_view(a.id);
  end if;
  select * into c from public.help_collections where id = a.collection_id;
  return jsonb_build_object(
    'workspace', workspace,
    'id', a.id, 'title', a.title, 'slug', a.slug, 'body', a.body, 'status', a.status,
    'description', left(a.body_text, 300), 'updated_at', a.updated_at, 'published_at', a.published_at,
    'collection', case when c.id is not null then jsonb_build_object('id', c.id, 'title', c.title, 'slug', c.slug) end,
    'siblings', coalesce((
      select jsonb_agg(jsonb_build_object('id', s.id, 'title', s.title, 'slug', s.slug) order by s.position, s.title, s.id)
        from (select s.id, s.title, s.slug, s.position from public.help_articles s
               where s.collection_id = a.collection_id and s.status = 'published' and s.id <> a.id
               order by s.position, s.title, s.id limit 10) s), '[]'));
end $function$
;

CREATE OR REPLACE FUNCTION public.help_article_list(p_slug text, p_status help_article_status DEFAULT NULL::help_article_status, p_collection text DEFAULT NULL::text, p_offset integer DEFAULT 0, p_limit integer DEFAULT 50)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
begin
  select m.workspace_id into ws from public.memberships m join public.workspaces w on w.id = m.workspace_id
   where w.slug = p_slug and m.user_id = (select auth.uid());
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  return jsonb_build_object(
    'total', (select count(*) from public.help_articles a
               where a.workspace_id = ws and (p_status is null or a.status = p_status)
                 and (p_collection is null or (p_collection = 'none' and a.collection_id is null)
                      or a.collection_id::text = p_collection)),
    'articles', coalesce((
      select jsonb_agg(jsonb_build_object(
               'id', a.id, 'title', a.title, 'slug', a.slug, 'status', a.status, 'updated_at', a.updated_at,
               'collection', c.title,
               'views', coalesce((select sum(v.views) from public.help_article_views v
                                   where v.article_id = a.id and v.day > current_date - 30), 0),
               'helpful', (select count(*) filter (where o.helpful) from public.help_article_votes o where o.article_id = a.id),
               'votes', (select count(*) from public.help_article_votes o where o.article_id = a.id))
             order by a.updated_at desc, a.id desc)
        from (select * from public.help_articles a
               where a.workspace_id = ws and (p_status is null or a.status = p_status)
                 and (p_collection is null or (p_collection = 'none' and a.collection_id is null)
                      or a.collection_id::text = p_collection)
               order by a.updated_at desc, a.id desc
               offset greatest(coalesce(p_offset, 0), 0) limit least(greatest(coalesce(p_limit, 50), 1), 100)) a
        left join public.help_collections c on c.id = a.collection_id), '[]'));
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
      select jsonb_agg(jsonb_build_object('id', c.id, 'title', c.title, 'slug', c.slug, 'description', c.description,
                                          'articles', n.articles) order by c.position, c.title)
        from public.help_collections c
        join (select a.collection_id, count(*) as articles from public.help_articles a
               where a.workspace_id = ws and a.status = 'published' and a.collection_id is not null
               group by 1) n on n.collection_id = c.id
       where c.workspace_id = ws), '[]'),
    'popular', coalesce((
      select jsonb_agg(jsonb_build_object('id', a.id, 'title', a.title, 'slug', a.slug) order by p.n)
        from public.help_popular_articles(ws) with ordinality p (id, n)
        join public.help_articles a on a.id = p.id), '[]'),
    'published', (select count(*) from public.help_articles a where a.workspace_id = ws and a.status = 'published'));
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

CREATE OR REPLACE FUNCTION public.help_popular_articles(p_workspace_id uuid)
 RETURNS SETOF bigint
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select a.id
    from public.help_articles a
    left join (select v.article_id, sum(v.views) as views from public.help_article_views v
                where v.workspace_id = p_workspace_id and v.day > current_date - 30 group by 1) v on v.article_id = a.id
   where a.workspace_id = p_workspace_id and a.status = 'published'
   order by coalesce(v.views, 0) desc, a.published_at desc, a.id
   limit 6
$function$
;

CREATE OR REPLACE FUNCTION public.help_report(p_slug text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date, p_days integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  my_role public.member_role;
  tz text;
  lo timestamptz;
  hi timestamptz;
begin
  select w.id, m.role, w.time_zone into ws, my_role, tz
    from public.memberships m join public.workspaces w on w.id = m.workspace_id
   where w.slug = p_slug and m.user_id = (select auth.uid());
  if ws is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'workspace';
  end if;
  if my_role <> 'admin' then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  if p_days is not null and p_from is null and p_to is null and p_days between 1 and 366 then
    p_to := (now() at time zone tz)::date;
    p_from := p_to - (p_days - 1);
  elsif p_days is not null or p_from is null or p_to is null or p_to < p_from or p_to - p_from > 365 then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'range';
  end if;
  lo := p_from::timestamp at time zone tz;
  hi := (p_to + 1)::timestamp at time zone tz;

  return (
    with weeks as (
      select g::date as week from generate_series(p_from - (extract(isodow from p_from)::int - 1), p_to, interval '7 days') g
    ), views as (
      select v.day - (extract(isodow from v.day)::int - 1) as week, sum(v.views) as n
        from public.help_article_views v where v.workspace_id = ws and v.day between p_from and p_to group by 1
    ), votes as (
      select l.day - (extract(isodow from l.day)::int - 1) as week,
             count(*) filter (where o.helpful) as helpful, count(*) filter (where not o.helpful) as not_helpful
        from public.help_article_votes o cross join lateral (select (o.voted_at at time zone tz)::date as day) l
       where o.workspace_id = ws and o.voted_at >= lo and o.voted_at < hi group by 1
    ), misses as (
      select m.day - (extract(isodow from m.day)::int - 1) as week, sum(m.searches) as n
        from public.help_search_misses m where m.workspace_id = ws and m.day between p_from and p_to group by 1
    ), events as (
      select (e.created_at at time zone tz)::date as day, e.kind,
             e.created_at <= now() - interval '30 minutes'
               and not exists (select 1 from public.tickets t
                                where t.requester_id = e.user_id and t.workspace_id = ws
                                  and t.created_at >= e.created_at and t.created_at < e.created_at + interval '30 minutes')
               and not exists (select 1 from public.help_suggestion_events p
                                where p.user_id = e.user_id and p.workspace_id = ws
                                  and p.created_at >= e.created_at - interval '30 minutes'
                                  and (p.created_at < e.created_at or (p.created_at = e.created_at and p.id < e.id))) as deflected
        from public.help_suggestion_events e
       where e.workspace_id = ws and e.created_at >= lo and e.created_at < hi
    ), deflections as (
      select e.day - (extract(isodow from e.day)::int - 1) as week,
             count(*) filter (where e.kind = 'click') as clicks, count(*) filter (where e.deflected) as deflected
        from events e group by 1
    ), per_week as (
      select w.week, coalesce(v.n, 0) as views, coalesce(o.helpful, 0) as helpful, coalesce(o.not_helpful, 0) as not_helpful,
             coalesce(m.n, 0) as no_result_searches, coalesce(d.clicks, 0) as suggestion_clicks,
             coalesce(d.deflected, 0) as deflections
        from weeks w left join views v using (week) left join votes o using (week) left join misses m using (week)
        left join deflections d using (week)
    )
    select jsonb_build_object(
      'time_zone', tz, 'from', p_from, 'to', p_to,
      'weeks', (select jsonb_agg(to_jsonb(r) order by r.week) from per_week r),
      'views', (select sum(r.views) from per_week r),
      'helpful', (select sum(r.helpful) from per_week r),
      'not_helpful', (select sum(r.not_helpful) from per_week r),
      'no_result_searches', (select sum(r.no_result_searches) from per_week r),
      'suggestion_clicks', (select sum(r.suggestion_clicks) from per_week r),
      'deflections', (select sum(r.deflections) from per_week r),
      'top_misses', coalesce((
        select jsonb_agg(jsonb_build_object('query', t.query, 'searches', t.n) order by t.n desc, t.query)
          from (select m.query, sum(m.searches) as n from public.help_search_misses m
                 where m.workspace_id = ws and m.day between p_from and p_to
                 group by 1 order by 2 desc, 1 limit 10) t), '[]'),
      'top_articles', coalesce((
        select jsonb_agg(jsonb_build_object('id', a.id, 'title', a.title, 'slug', a.slug, 'status', a.status, 'views', t.n,
                                            'helpful', (select count(*) from public.help_article_votes o
                                                         where o.article_id = a.id and o.helpful and o.voted_at >= lo and o.voted_at < hi),
                                            'votes', (select count(*) from public.help_article_votes o
                                                       where o.article_id = a.id and o.voted_at >= lo and o.voted_at < hi))
                         order by t.n desc, a.id)
          from (select v.article_id, sum(v.views) as n from public.help_article_views v
                 where v.workspace_id = ws and v.day between p_from and p_to
                 group by 1 order by 2 desc, 1 limit 10) t
          join public.help_articles a on a.id = t.article_id), '[]'))
  );
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
        from (select a.id, a.title, a.slug, a.status, a.body_text,
                     -- The title's own vector (a few words) rather than ts_filter over the stored one, which
                     -- copies the whole vector of every match.
                     to_tsvector(cfg, a.title) @@ q as in_title, ts_rank(a.search, q, 1) as rank
                from public.help_articles a
               where a.workspace_id = ws and a.search @@ q
                 and (a.status = 'published' or not coalesce(p_published_only, true))
               order by in_title desc, rank desc, a.id
               limit lim) h;
    end if;
    exit when jsonb_array_length(hits) > 0 or attempt = 2;
    corrected := public.help_spelling(ws, query);
    exit when corrected is null;
    query := corrected;
  end loop;
  return jsonb_build_object('workspace', workspace, 'results', hits, 'corrected', case when jsonb_array_length(hits) > 0 then corrected end);
end $function$
;

CREATE OR REPLACE FUNCTION public.help_sitemap(p_slug text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  with ws as (select w.id from public.portal_workspace(p_slug) w)
  select jsonb_build_object(
    'collections', coalesce((select jsonb_agg(jsonb_build_object('slug', c.slug) order by c.position, c.title)
                               from public.help_collections c
                              where c.workspace_id = (select id from ws)
                                and exists (select 1 from public.help_articles a where a.collection_id = c.id and a.status = 'published')), '[]'),
    'articles', coalesce((select jsonb_agg(jsonb_build_object('id', a.id, 'slug', a.slug, 'updated_at', a.updated_at) order by a.id)
                            from (select a.id, a.slug, a.updated_at from public.help_articles a
                                   where a.workspace_id = (select id from ws) and a.status = 'published'
                                   order by a.id limit 50000) a), '[]'))
$function$
;

CREATE OR REPLACE FUNCTION public.help_sitemap_workspaces()
 RETURNS SETOF text
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select w.slug from public.workspaces w
   where exists (select 1 from public.help_articles a where a.workspace_id = w.id and a.status = 'published')
   order by w.slug limit 50000
$function$
;

CREATE OR REPLACE FUNCTION public.help_spelling(p_workspace_id uuid, p_query text)
 RETURNS text
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select case when bool_or(t.fix is not null) then string_agg(coalesce(t.fix, t.word), ' ' order by t.n) end
    from (
      select s.word, s.n,
             case when char_length(s.word) < 3 or char_length(s.word) > 30 or s.word ~ '[0-9]'
                       or exists (select 1 from private.help_words hw where hw.workspace_id = p_workspace_id and hw.word = s.word)
                  then null
                  else (select c.word
                          from (select hw.word from private.help_words hw
                                 where hw.workspace_id = p_workspace_id
                                 order by hw.word operator(extensions.<->) s.word limit 20) c
                         cross join lateral (select case when char_length(s.word) <= 4 then 1
                                                         when char_length(s.word) <= 7 then 2 else 3 end as most) e
                         where extensions.levenshtein_less_equal(s.word, c.word, e.most) <= e.most
                         order by extensions.levenshtein_less_equal(s.word, c.word, e.most),
                                  c.word operator(extensions.<->) s.word, c.word
                         limit 1)
             end as fix
        from regexp_split_to_table(lower(left(coalesce(p_query, ''), 200)), '[^[:alnum:]]+') with ordinality s (word, n)
       where s.word <> '' limit 20
    ) t
$function$
;

CREATE OR REPLACE FUNCTION public.help_vote(p_article_id bigint, p_visitor uuid, p_helpful boolean)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  a public.help_articles;
  voter uuid := coalesce(auth.uid(), p_visitor);
begin
  if voter is null or p_helpful is null then
    raise exception using errcode = 'P0001', message = 'bad_request', detail = 'vote';
  end if;
  select * into a from public.help_articles where id = p_article_id and status = 'published';
  if a.id is null then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'article';
  end if;
  if (select count(*) from public.help_article_votes v where v.article_id = a.id and v.voted_at > now() - interval '1 hour') >= 100 then
    raise exception using errcode = 'P0001', message = 'too_many_attempts', detail = 'votes on this article';
  end if;
  insert into public.help_article_votes as v (article_id, visitor_id, workspace_id, helpful)
  values (a.id, voter, a.workspace_id, p_helpful)
  on conflict (article_id, visitor_id) do update set helpful = excluded.helpful, voted_at = now();
end $function$
;

CREATE OR REPLACE FUNCTION public.record_help_search_miss(p_slug text, p_query text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ws uuid := (select w.id from public.portal_workspace(p_slug) w);
  q text := left(lower(btrim(regexp_replace(coalesce(p_query, ''), '[[:space:][:cntrl:]]+', ' ', 'g'))), 100);
  today date;
begin
  if ws is null or q = '' then
    return;
  end if;
  today := (now() at time zone (select w.time_zone from public.workspaces w where w.id = ws))::date;
  update public.help_search_misses m set searches = m.searches + 1 where m.workspace_id = ws and m.day = today and m.query = q;
  if not found and (select count(*) from public.help_search_misses m where m.workspace_id = ws and m.day = today) < 200 then
    insert into public.help_search_misses as m (workspace_id, day, query) values (ws, today, q)
    on conflict (workspace_id, day, query) do update set searches = m.searches + 1;
  end if;
end $function$
;

CREATE OR REPLACE FUNCTION public.record_help_suggestion(p_slug text, p_kind text, p_article_id bigint DEFAULT NULL::bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ws uuid := (select w.id from public.portal_workspace(p_slug) w);
  me uuid := auth.uid();
begin
  if me is null then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'sign in first';
  end if;
  if ws is null or p_kind not in ('click', 'answered') or (p_kind = 'click' and not exists (
       select 1 from public.help_articles a where a.id = p_article_id and a.workspace_id = ws and a.status = 'published')) then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'suggestion';
  end if;
  if exists (select 1 from public.help_suggestion_events e
              where e.user_id = me and e.workspace_id = ws and e.kind = p_kind
                and e.article_id is not distinct from (case when p_kind = 'click' then p_article_id end)
                and e.created_at > now() - interval '30 minutes')
     or (select count(*) from public.help_suggestion_events e
          where e.user_id = me and e.workspace_id = ws and e.created_at > now() - interval '1 hour') >= 30 then
    return;
  end if;
  insert into public.help_suggestion_events (workspace_id, article_id, user_id, kind)
  values (ws, case when p_kind = 'click' then p_article_id end, me, p_kind);
end $function$
;


  create policy "members read their articles' views"
  on "public"."help_article_views"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read their articles' votes"
  on "public"."help_article_votes"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "admins delete articles"
  on "public"."help_articles"
  as permissive
  for delete
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "members edit and publish articles"
  on "public"."help_articles"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)))
with check ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members write articles"
  on "public"."help_articles"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "users read published articles, members their workspace's drafts"
  on "public"."help_articles"
  as permissive
  for select
  to authenticated
using (((status = 'published'::help_article_status) OR (workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces))));



  create policy "visitors read published articles"
  on "public"."help_articles"
  as permissive
  for select
  to anon
using ((status = 'published'::help_article_status));



  create policy "admins add collections"
  on "public"."help_collections"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins delete collections"
  on "public"."help_collections"
  as permissive
  for delete
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins edit collections"
  on "public"."help_collections"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)))
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "users read collections with a published article, members all of"
  on "public"."help_collections"
  as permissive
  for select
  to authenticated
using (((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)) OR (EXISTS ( SELECT 1
   FROM help_articles a
  WHERE ((a.collection_id = help_collections.id) AND (a.status = 'published'::help_article_status))))));



  create policy "visitors read collections with a published article"
  on "public"."help_collections"
  as permissive
  for select
  to anon
using ((EXISTS ( SELECT 1
   FROM help_articles a
  WHERE ((a.collection_id = help_collections.id) AND (a.status = 'published'::help_article_status)))));



  create policy "members read their help center's searches with no result"
  on "public"."help_search_misses"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "admins change their help center's language"
  on "public"."help_settings"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)))
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins set their help center's language"
  on "public"."help_settings"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "anyone reads a help center's language"
  on "public"."help_settings"
  as permissive
  for select
  to anon, authenticated
using (true);



  create policy "members read their help center's suggestion events"
  on "public"."help_suggestion_events"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members join the editing channel of their workspace's articles"
  on "realtime"."messages"
  as permissive
  for select
  to authenticated
using (((extension = 'presence'::text) AND ( SELECT private.may_use_help_article_channel(realtime.topic()) AS may_use_help_article_channel)));



  create policy "members show themselves on the editing channel of their workspa"
  on "realtime"."messages"
  as permissive
  for insert
  to authenticated
with check (((extension = 'presence'::text) AND ( SELECT private.may_use_help_article_channel(realtime.topic()) AS may_use_help_article_channel)));



  create policy "help images: members list theirs"
  on "storage"."objects"
  as permissive
  for select
  to authenticated
using (((bucket_id = 'help'::text) AND ((storage.foldername(name))[1] IN ( SELECT (private.member_workspaces())::text AS member_workspaces))));



  create policy "help images: members remove theirs"
  on "storage"."objects"
  as permissive
  for delete
  to authenticated
using (((bucket_id = 'help'::text) AND ((storage.foldername(name))[1] IN ( SELECT (private.member_workspaces())::text AS member_workspaces))));



  create policy "help images: members upload to their workspace"
  on "storage"."objects"
  as permissive
  for insert
  to authenticated
with check (((bucket_id = 'help'::text) AND ((storage.foldername(name))[1] IN ( SELECT (private.member_workspaces())::text AS member_workspaces))));


CREATE TRIGGER help_articles_stamp BEFORE INSERT OR UPDATE ON public.help_articles FOR EACH ROW EXECUTE FUNCTION private.help_stamp_article();

CREATE TRIGGER help_articles_words AFTER INSERT OR UPDATE ON public.help_articles FOR EACH ROW EXECUTE FUNCTION private.help_learn_words();

CREATE TRIGGER help_collections_stamp BEFORE INSERT OR UPDATE OF title ON public.help_collections FOR EACH ROW EXECUTE FUNCTION private.help_stamp_collection();

CREATE TRIGGER help_settings_language AFTER INSERT OR UPDATE OF language ON public.help_settings FOR EACH ROW EXECUTE FUNCTION private.help_language_changed();

grant execute on function private.may_use_help_article_channel(topic text) to authenticated;
grant insert ("position") on table public.help_articles to authenticated;
grant insert ("position") on table public.help_collections to authenticated;
grant insert (body) on table public.help_articles to authenticated;
grant insert (collection_id) on table public.help_articles to authenticated;
grant insert (description) on table public.help_collections to authenticated;
grant insert (language) on table public.help_settings to authenticated;
grant insert (status) on table public.help_articles to authenticated;
grant insert (title) on table public.help_articles to authenticated;
grant insert (title) on table public.help_collections to authenticated;
grant insert (workspace_id) on table public.help_articles to authenticated;
grant insert (workspace_id) on table public.help_collections to authenticated;
grant insert (workspace_id) on table public.help_settings to authenticated;
grant select ("position") on table public.help_articles to anon;
grant select (body) on table public.help_articles to anon;
grant select (body_text) on table public.help_articles to anon;
grant select (collection_id) on table public.help_articles to anon;
grant select (id) on table public.help_articles to anon;
grant select (published_at) on table public.help_articles to anon;
grant select (search) on table public.help_articles to anon;
grant select (slug) on table public.help_articles to anon;
grant select (status) on table public.help_articles to anon;
grant select (title) on table public.help_articles to anon;
grant select (updated_at) on table public.help_articles to anon;
grant select (workspace_id) on table public.help_articles to anon;
grant update ("position") on table public.help_articles to authenticated;
grant update ("position") on table public.help_collections to authenticated;
grant update (body) on table public.help_articles to authenticated;
grant update (collection_id) on table public.help_articles to authenticated;
grant update (description) on table public.help_collections to authenticated;
grant update (language) on table public.help_settings to authenticated;
grant update (status) on table public.help_articles to authenticated;
grant update (title) on table public.help_articles to authenticated;
grant update (title) on table public.help_collections to authenticated;
revoke delete on table public.help_article_views from anon;
revoke delete on table public.help_article_views from authenticated;
revoke delete on table public.help_article_votes from anon;
revoke delete on table public.help_article_votes from authenticated;
revoke delete on table public.help_articles from anon;
revoke delete on table public.help_collections from anon;
revoke delete on table public.help_search_misses from anon;
revoke delete on table public.help_search_misses from authenticated;
revoke delete on table public.help_settings from anon;
revoke delete on table public.help_settings from authenticated;
revoke delete on table public.help_suggestion_events from anon;
revoke delete on table public.help_suggestion_events from authenticated;
revoke execute on function private.help_language(p_workspace_id uuid) from public;
revoke execute on function private.help_language_changed() from public;
revoke execute on function private.help_learn_words() from public;
revoke execute on function private.help_slug(p_title text) from public;
revoke execute on function private.help_stamp_article() from public;
revoke execute on function private.help_stamp_collection() from public;
revoke execute on function private.markdown_plain(p_markdown text) from public;
revoke execute on function private.may_use_help_article_channel(topic text) from public;
revoke execute on function public.count_help_view(p_article_id bigint) from public;
revoke execute on function public.help_article(p_slug text, p_id bigint, p_count_view boolean) from public;
revoke execute on function public.help_article_list(p_slug text, p_status help_article_status, p_collection text, p_offset integer, p_limit integer) from anon;
revoke execute on function public.help_article_list(p_slug text, p_status help_article_status, p_collection text, p_offset integer, p_limit integer) from public;
revoke execute on function public.help_center(p_slug text) from public;
revoke execute on function public.help_collection(p_slug text, p_collection text) from public;
revoke execute on function public.help_popular_articles(p_workspace_id uuid) from public;
revoke execute on function public.help_report(p_slug text, p_from date, p_to date, p_days integer) from anon;
revoke execute on function public.help_report(p_slug text, p_from date, p_to date, p_days integer) from public;
revoke execute on function public.help_search(p_slug text, p_query text, p_limit integer, p_published_only boolean) from public;
revoke execute on function public.help_sitemap(p_slug text) from public;
revoke execute on function public.help_sitemap_workspaces() from public;
revoke execute on function public.help_spelling(p_workspace_id uuid, p_query text) from public;
revoke execute on function public.help_vote(p_article_id bigint, p_visitor uuid, p_helpful boolean) from public;
revoke execute on function public.record_help_search_miss(p_slug text, p_query text) from public;
revoke execute on function public.record_help_suggestion(p_slug text, p_kind text, p_article_id bigint) from anon;
revoke execute on function public.record_help_suggestion(p_slug text, p_kind text, p_article_id bigint) from public;
revoke insert on table public.help_article_views from anon;
revoke insert on table public.help_article_views from authenticated;
revoke insert on table public.help_article_votes from anon;
revoke insert on table public.help_article_votes from authenticated;
revoke insert on table public.help_articles from anon;
revoke insert on table public.help_articles from authenticated;
revoke insert on table public.help_collections from anon;
revoke insert on table public.help_collections from authenticated;
revoke insert on table public.help_search_misses from anon;
revoke insert on table public.help_search_misses from authenticated;
revoke insert on table public.help_settings from anon;
revoke insert on table public.help_settings from authenticated;
revoke insert on table public.help_suggestion_events from anon;
revoke insert on table public.help_suggestion_events from authenticated;
revoke maintain on table public.help_article_views from anon;
revoke maintain on table public.help_article_views from authenticated;
revoke maintain on table public.help_article_votes from anon;
revoke maintain on table public.help_article_votes from authenticated;
revoke maintain on table public.help_articles from anon;
revoke maintain on table public.help_articles from authenticated;
revoke maintain on table public.help_collections from anon;
revoke maintain on table public.help_collections from authenticated;
revoke maintain on table public.help_search_misses from anon;
revoke maintain on table public.help_search_misses from authenticated;
revoke maintain on table public.help_settings from anon;
revoke maintain on table public.help_settings from authenticated;
revoke maintain on table public.help_suggestion_events from anon;
revoke maintain on table public.help_suggestion_events from authenticated;
revoke references on table public.help_article_views from anon;
revoke references on table public.help_article_views from authenticated;
revoke references on table public.help_article_votes from anon;
revoke references on table public.help_article_votes from authenticated;
revoke references on table public.help_articles from anon;
revoke references on table public.help_articles from authenticated;
revoke references on table public.help_collections from anon;
revoke references on table public.help_collections from authenticated;
revoke references on table public.help_search_misses from anon;
revoke references on table public.help_search_misses from authenticated;
revoke references on table public.help_settings from anon;
revoke references on table public.help_settings from authenticated;
revoke references on table public.help_suggestion_events from anon;
revoke references on table public.help_suggestion_events from authenticated;
revoke select on table public.help_article_views from anon;
revoke select on table public.help_article_votes from anon;
revoke select on table public.help_articles from anon;
revoke select on table public.help_search_misses from anon;
revoke select on table public.help_suggestion_events from anon;
revoke trigger on table public.help_article_views from anon;
revoke trigger on table public.help_article_views from authenticated;
revoke trigger on table public.help_article_votes from anon;
revoke trigger on table public.help_article_votes from authenticated;
revoke trigger on table public.help_articles from anon;
revoke trigger on table public.help_articles from authenticated;
revoke trigger on table public.help_collections from anon;
revoke trigger on table public.help_collections from authenticated;
revoke trigger on table public.help_search_misses from anon;
revoke trigger on table public.help_search_misses from authenticated;
revoke trigger on table public.help_settings from anon;
revoke trigger on table public.help_settings from authenticated;
revoke trigger on table public.help_suggestion_events from anon;
revoke trigger on table public.help_suggestion_events from authenticated;
revoke truncate on table public.help_article_views from anon;
revoke truncate on table public.help_article_views from authenticated;
revoke truncate on table public.help_article_votes from anon;
revoke truncate on table public.help_article_votes from authenticated;
revoke truncate on table public.help_articles from anon;
revoke truncate on table public.help_articles from authenticated;
revoke truncate on table public.help_collections from anon;
revoke truncate on table public.help_collections from authenticated;
revoke truncate on table public.help_search_misses from anon;
revoke truncate on table public.help_search_misses from authenticated;
revoke truncate on table public.help_settings from anon;
revoke truncate on table public.help_settings from authenticated;
revoke truncate on table public.help_suggestion_events from anon;
revoke truncate on table public.help_suggestion_events from authenticated;
revoke update on table public.help_article_views from anon;
revoke update on table public.help_article_views from authenticated;
revoke update on table public.help_article_votes from anon;
revoke update on table public.help_article_votes from authenticated;
revoke update on table public.help_articles from anon;
revoke update on table public.help_articles from authenticated;
revoke update on table public.help_collections from anon;
revoke update on table public.help_collections from authenticated;
revoke update on table public.help_search_misses from anon;
revoke update on table public.help_search_misses from authenticated;
revoke update on table public.help_settings from anon;
revoke update on table public.help_settings from authenticated;
revoke update on table public.help_suggestion_events from anon;
revoke update on table public.help_suggestion_events from authenticated;

grant insert ("position") on table public.help_articles to authenticated;
grant insert ("position") on table public.help_collections to authenticated;
grant insert (body) on table public.help_articles to authenticated;
grant insert (collection_id) on table public.help_articles to authenticated;
grant insert (description) on table public.help_collections to authenticated;
grant insert (language) on table public.help_settings to authenticated;
grant insert (status) on table public.help_articles to authenticated;
grant insert (title) on table public.help_articles to authenticated;
grant insert (title) on table public.help_collections to authenticated;
grant insert (workspace_id) on table public.help_articles to authenticated;
grant insert (workspace_id) on table public.help_collections to authenticated;
grant insert (workspace_id) on table public.help_settings to authenticated;
grant select ("position") on table public.help_articles to anon;
grant select (body) on table public.help_articles to anon;
grant select (body_text) on table public.help_articles to anon;
grant select (collection_id) on table public.help_articles to anon;
grant select (id) on table public.help_articles to anon;
grant select (published_at) on table public.help_articles to anon;
grant select (search) on table public.help_articles to anon;
grant select (slug) on table public.help_articles to anon;
grant select (status) on table public.help_articles to anon;
grant select (title) on table public.help_articles to anon;
grant select (updated_at) on table public.help_articles to anon;
grant select (workspace_id) on table public.help_articles to anon;
grant update ("position") on table public.help_articles to authenticated;
grant update ("position") on table public.help_collections to authenticated;
grant update (body) on table public.help_articles to authenticated;
grant update (collection_id) on table public.help_articles to authenticated;
grant update (description) on table public.help_collections to authenticated;
grant update (language) on table public.help_settings to authenticated;
grant update (status) on table public.help_articles to authenticated;
grant update (title) on table public.help_articles to authenticated;
grant update (title) on table public.help_collections to authenticated;
