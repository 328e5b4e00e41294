-- The help center (docs/product.md §3, §6 and docs/product.md#the-help-center-public;
-- docs/decisions/041-help-center.md): a workspace's collections and articles (Markdown), their public pages, full-text
-- search, suggestions while a customer writes a request, and what is measured — views, votes, searches with no result,
-- and suggestion clicks from which deflections are counted.
--
-- Who may do what: anyone (anon included) reads published articles and the collections that hold
-- one; members (agents and admins) read drafts too, write and publish articles; admins manage
-- collections and delete articles. Another workspace's drafts are never anyone else's. The public
-- pages read through security invoker functions, so these policies decide; what anyone may record
-- (a view, a vote, a search with no result, a suggestion click) goes through security definer
-- functions that write one bounded row each.

create extension if not exists pg_trgm with schema extensions;
create extension if not exists fuzzystrmatch with schema extensions;
create extension if not exists btree_gist with schema extensions;

create type public.help_article_status as enum ('draft', 'published');

-- The text search configuration (language) of a workspace's help center; without a row, English.
create table public.help_settings (
  workspace_id uuid primary key references public.workspaces (id) on delete cascade,
  language text not null default 'english'
    check (language in ('simple', 'danish', 'dutch', 'english', 'finnish', 'french', 'german', 'hungarian', 'italian',
                        'norwegian', 'portuguese', 'romanian', 'russian', 'spanish', 'swedish', 'turkish'))
);

create table public.help_collections (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  title text not null check (char_length(title) between 1 and 80),
  description text not null default '' check (char_length(description) <= 300),
  -- From the title (help_stamp_collection); words the public pages use after /help/ are not slugs.
  slug text not null default '' check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and char_length(slug) <= 80
                            and slug not in ('search', 'articles', 'suggest', 'vote')),
  position integer not null default 0,
  created_at timestamptz not null default now(),
  unique (id, workspace_id)
);
create unique index help_collections_slug_key on public.help_collections (workspace_id, slug);
create unique index help_collections_title_key on public.help_collections (workspace_id, lower(title));

-- A collection's earlier addresses, so old links keep working after a rename (help_collection
-- redirects them). A slug taken again by a collection is that collection's, not a redirect.
create table private.help_collection_slugs (
  workspace_id uuid not null,
  slug text not null,
  collection_id uuid not null,
  primary key (workspace_id, slug),
  foreign key (collection_id, workspace_id) references public.help_collections (id, workspace_id) on delete cascade
);
create index help_collection_slugs_collection_idx on private.help_collection_slugs (collection_id);

create table public.help_articles (
  -- In the public address (/support/:slug/help/articles/<id>-<slug>): the id finds the article, so
  -- any other slug (an old title's) is redirected to the current one and needs no history.
  id bigint generated always as identity primary key,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  collection_id uuid,
  title text not null check (char_length(title) between 1 and 150),
  -- From the title, by help_stamp_article.
  slug text not null default '' check (slug ~ '^([a-z0-9]+(-[a-z0-9]+)*)?$' and char_length(slug) <= 80),
  body text not null default '' check (char_length(body) <= 50000),
  status public.help_article_status not null default 'draft',
  position integer not null default 0,
  author_id uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz not null default now(),
  -- When it was last published (null while it never was).
  published_at timestamptz,
  -- Kept by help_stamp_article: the body as plain text (snippets, descriptions) and the search vector
  -- (title weight A, body B) in the workspace's language.
  body_text text not null default '',
  search tsvector not null default ''::tsvector,
  -- The title's own vector (a few words), indexed: a search finds title matches through it without
  -- reading any article's whole vector, and ranks those first (help_search).
  title_search tsvector not null default ''::tsvector,
  -- An article's collection is one of its own workspace's; deleting the collection keeps the article.
  foreign key (collection_id, workspace_id) references public.help_collections (id, workspace_id)
    on delete set null (collection_id)
);
create index help_articles_workspace_idx on public.help_articles (workspace_id, status, collection_id, position, id);
create index help_articles_updated_idx on public.help_articles (workspace_id, updated_at desc, id desc);
-- A collection's published articles in order: its page, an article's "More in …", and whether a collection
-- is public (its policy asks per collection, without the workspace).
create index help_articles_collection_idx on public.help_articles (collection_id, position, title, id)
  where status = 'published';
create index help_articles_search_idx on public.help_articles using gin (search);
create index help_articles_title_search_idx on public.help_articles using gin (title_search);

-- The images an article's text shows, as their upload's folder in the `help` bucket
-- (<workspace id>/<upload id>), kept by help_claim_images. An image no article shows is removed by
-- the hourly sweep an hour after its upload (unclaimed_help_images): a deleted article's images go,
-- one that another article shows (copied with its address) stays.
create table private.help_article_images (
  article_id bigint not null references public.help_articles (id) on delete cascade,
  folder text not null,
  primary key (article_id, folder)
);
create index help_article_images_folder_idx on private.help_article_images (folder);

-- Views per article and day (the workspace's day when counted). One upsert per page view.
create table public.help_article_views (
  article_id bigint not null references public.help_articles (id) on delete cascade,
  day date not null,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  views integer not null default 0,
  primary key (article_id, day)
);
create index help_article_views_workspace_idx on public.help_article_views (workspace_id, day);

-- "Was this article helpful?": one vote per visitor per article, which they may change. A visitor is
-- the signed-in user, or the random id of the app's signed visitor cookie.
create table public.help_article_votes (
  article_id bigint not null references public.help_articles (id) on delete cascade,
  visitor_id uuid not null,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  helpful boolean not null,
  voted_at timestamptz not null default now(),
  primary key (article_id, visitor_id)
);
create index help_article_votes_workspace_idx on public.help_article_votes (workspace_id, voted_at);
create index help_article_votes_recent_idx on public.help_article_votes (article_id, voted_at);

-- Searches of the help center that found nothing, per workspace, day and query (lower case).
create table public.help_search_misses (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  day date not null,
  query text not null check (char_length(query) between 1 and 100),
  searches integer not null default 1,
  primary key (workspace_id, day, query)
);

-- A customer writing a request opened a suggested article ('click'), or said "My question is
-- answered" ('answered'). One with no request of theirs in the workspace within 30 minutes is a
-- deflection (help_report counts them once settled).
create table public.help_suggestion_events (
  id bigint generated always as identity primary key,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  article_id bigint references public.help_articles (id) on delete set null,
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null check (kind in ('click', 'answered')),
  created_at timestamptz not null default now()
);
create index help_suggestion_events_workspace_idx on public.help_suggestion_events (workspace_id, created_at);
create index help_suggestion_events_user_idx on public.help_suggestion_events (user_id, workspace_id, created_at);

-- The words of a workspace's published articles, for "did you mean" (help_spelling). Words are only
-- added: one that no article holds any more corrects to a search that finds nothing.
create table private.help_words (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  word text not null,
  primary key (workspace_id, word)
);
create index help_words_trgm_idx on private.help_words
  using gist (workspace_id extensions.gist_uuid_ops, word extensions.gist_trgm_ops);

-- ---------------------------------------------------------------------------------------------
-- What the database keeps itself: slugs, plain text, search vectors, who and when.

-- A title as an address: lower-case ASCII letters and digits in hyphen-joined runs, at most 80.
create function private.help_slug(p_title text) returns text
language sql immutable parallel safe set search_path = '' as $$
  select coalesce(nullif(pg_catalog.rtrim(left(pg_catalog.btrim(
    regexp_replace(lower(p_title), '[^a-z0-9]+', '-', 'g'), '-'), 80), '-'), ''), 'article')
$$;

-- Markdown as plain text (what a reader reads: link and image texts, no markers), on one line.
create function private.markdown_plain(p_markdown text) returns text
language sql immutable parallel safe set search_path = '' as $$
  select btrim(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
    p_markdown,
    '!\[([^\]]*)\]\([^)]*\)', '\1', 'g'),                        -- images: their alt text
    '\[([^\]]*)\]\([^)]*\)', '\1', 'g'),                         -- links: their text
    '<[^>]*>', ' ', 'g'),                                        -- HTML tags (never rendered)
    '(^|\n)[ \t]{0,3}(#{1,6}|>|[-*+]|[0-9]+[.)])[ \t]+', '\1', 'g'),  -- headings, quotes, list items
    '```[^\n]*|[*_`~|]+|(^|\n)[ \t]*[-=:| ]{3,}(\n|$)', ' ', 'g'),    -- fences, emphasis, table rules
    '\s+', ' ', 'g'))
$$;

create function private.help_language(p_workspace_id uuid) returns regconfig
language sql stable security definer set search_path = '' as $$
  select coalesce((select s.language from public.help_settings s where s.workspace_id = p_workspace_id), 'english')::regconfig
$$;

-- Security definer: the writer needs no EXECUTE on the helpers it calls (slug, plain text, language).
create function private.help_stamp_collection() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new.slug := private.help_slug(new.title);
  if new.slug in ('search', 'articles', 'suggest', 'vote') then
    new.slug := new.slug || '-1';
  end if;
  return new;
end $$;
create trigger help_collections_stamp before insert or update of title on public.help_collections
  for each row execute function private.help_stamp_collection();

create function private.help_stamp_article() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
create trigger help_articles_stamp before insert or update on public.help_articles
  for each row execute function private.help_stamp_article();

-- The words of a published article join its workspace's list.
create function private.help_learn_words() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
create trigger help_articles_words after insert or update on public.help_articles
  for each row execute function private.help_learn_words();

-- What a help center's public pages show changed (an article, a collection, the language, the
-- workspace's name or address): its version moves on. The app remembers what signed-out readers get and
-- asks for the versions of the help centers it remembers at most a second apart (help_versions; docs/decisions/065-help-center-speed.md),
-- so a page is at most that stale. Numbers come from one sequence: a version is never given twice, even
-- to another workspace later known by the same address. No foreign key: a row is written while its
-- workspace's delete cascades (a deleted workspace leaves one row of two numbers).
create sequence private.help_version_seq;
create table private.help_versions (
  workspace_id uuid primary key,
  version bigint not null
);

create function private.help_bump_version() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into private.help_versions as v (workspace_id, version)
  select ws, nextval('private.help_version_seq')
    from (select distinct ws from unnest(case
            when tg_op = 'INSERT' then array[new.workspace_id]
            when tg_op = 'DELETE' then array[old.workspace_id]
            else array[old.workspace_id, new.workspace_id] end) ws) w
  on conflict (workspace_id) do update set version = excluded.version;
  return null;
end $$;
create trigger help_articles_version after insert or update or delete on public.help_articles
  for each row execute function private.help_bump_version();
create trigger help_collections_version after insert or update or delete on public.help_collections
  for each row execute function private.help_bump_version();
create trigger help_settings_version after insert or update or delete on public.help_settings
  for each row execute function private.help_bump_version();
-- The workspace's name and address are on every page (its own function: the row has no workspace_id).
create function private.help_bump_workspace_version() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into private.help_versions as v (workspace_id, version) values (new.id, nextval('private.help_version_seq'))
  on conflict (workspace_id) do update set version = excluded.version;
  return null;
end $$;
create trigger workspaces_help_version after update of slug, name on public.workspaces
  for each row execute function private.help_bump_workspace_version();

-- The current version of each help center named by its address (p_slugs, at most 1 000): a JSON object
-- of slug → version (0 before any change); an address that is no workspace's is left out. Anyone: it
-- says no more than that a public page may have changed.
create function public.help_versions(p_slugs text[]) returns jsonb
language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_object_agg(s.slug, coalesce(v.version, 0)), '{}')
    from (select distinct unnest(p_slugs[1:1000]) as slug) s
    join public.workspaces w on w.slug = lower(btrim(s.slug))
    left join private.help_versions v on v.workspace_id = w.id
$$;

-- The images an article's text shows: every address under the help bucket's public path
-- (…/storage/v1/object/public/help/<workspace>/<upload>/<name>), whatever host wrote it.
create function private.help_claim_images() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'UPDATE' and new.body is not distinct from old.body then
    return null;
  end if;
  delete from private.help_article_images i where i.article_id = new.id;
  insert into private.help_article_images (article_id, folder)
  select distinct new.id, m[1]
    from regexp_matches(new.body, '/storage/v1/object/public/help/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/', 'g') m;
  return null;
end $$;
create trigger help_articles_images after insert or update of body on public.help_articles
  for each row execute function private.help_claim_images();

-- A collection's old slug is remembered when it changes; a slug in use is nobody's old one.
create function private.help_remember_collection_slug() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from private.help_collection_slugs h where h.workspace_id = new.workspace_id and h.slug = new.slug;
  if tg_op = 'UPDATE' and old.slug <> new.slug then
    insert into private.help_collection_slugs (workspace_id, slug, collection_id)
    values (old.workspace_id, old.slug, new.id)
    on conflict (workspace_id, slug) do update set collection_id = excluded.collection_id;
  end if;
  return null;
end $$;
create trigger help_collections_slugs after insert or update of title on public.help_collections
  for each row execute function private.help_remember_collection_slug();

-- The collection an old slug of the workspace stands for (null if none); help_collection then reads it
-- as the reader (the policies decide).
create function public.help_renamed_collection(p_workspace_id uuid, p_slug text) returns uuid
language sql stable security definer set search_path = '' as $$
  select h.collection_id from private.help_collection_slugs h where h.workspace_id = p_workspace_id and h.slug = p_slug
$$;

-- A new language: every article's search vector in it.
create function private.help_language_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.help_articles a
     set title_search = to_tsvector(new.language::regconfig, a.title),
         search = setweight(to_tsvector(new.language::regconfig, a.title), 'A')
               || setweight(to_tsvector(new.language::regconfig, a.body_text), 'B')
   where a.workspace_id = new.workspace_id;
  return null;
end $$;
create trigger help_settings_language after insert or update of language on public.help_settings
  for each row execute function private.help_language_changed();

revoke all on function private.help_slug(text), private.markdown_plain(text), private.help_language(uuid),
  private.help_stamp_collection(), private.help_stamp_article(), private.help_learn_words(), private.help_bump_version(), private.help_bump_workspace_version(),
  private.help_language_changed(), private.help_claim_images(), private.help_remember_collection_slug() from public;
-- help_collection (security invoker) asks it as the reader; what it says is no more than the old address.
revoke all on function public.help_renamed_collection(uuid, text) from public;
grant execute on function public.help_renamed_collection(uuid, text) to anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Reading: the public pages, search and the agents' list. Security invoker: the policies decide.

-- ---------------------------------------------------------------------------------------------
-- Reading: the public pages, search, the sitemap and the agents' list. Security invoker: the policies
-- decide what a reader gets. The workspace comes from its address through portal_workspace, as the portal's.

-- The help center's home: its collections that hold a published article (with how many), the most read
-- articles of the last 30 days (then the newest), and how many are published.
create function public.help_center(p_slug text) returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
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
end $$;

-- A help center's 6 most read published articles of the last 30 days (then the newest). Views are
-- for members to read; which articles are popular is on the public home page anyway.
create function public.help_popular_articles(p_workspace_id uuid) returns setof bigint
language sql stable security definer set search_path = '' as $$
  select a.id
    from public.help_articles a
    left join (select v.article_id, sum(v.views) as views from public.help_article_views v
                where v.workspace_id = p_workspace_id and v.day > current_date - 30 group by 1) v on v.article_id = a.id
   where a.workspace_id = p_workspace_id and a.status = 'published'
   order by coalesce(v.views, 0) desc, a.published_at desc, a.id
   limit 6
$$;

-- A collection by its slug, with its published articles in order.
create function public.help_collection(p_slug text, p_collection text) returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
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
end $$;

-- A view of a published article, counted in its workspace's day. Anyone: it is what opening the page
-- does. Committed without waiting for the disk (a view lost in a crash is no loss), and one row per
-- article and day.
create function public.count_help_view(p_article_id bigint) returns void
language plpgsql volatile security definer set search_path = '' as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  insert into public.help_article_views as v (article_id, day, workspace_id, views)
  select a.id, (now() at time zone w.time_zone)::date, a.workspace_id, 1
    from public.help_articles a join public.workspaces w on w.id = a.workspace_id
   where a.id = p_article_id and a.status = 'published'
  on conflict (article_id, day) do update set views = v.views + 1;
end $$;

-- Views counted by the app for signed-out readers and sent together (p_article_ids[i] read p_views[i]
-- times), at most every second per worker. The service role only: anyone else counts one view at a time.
create function public.count_help_views(p_article_ids bigint[], p_views integer[]) returns void
language plpgsql volatile security definer set search_path = '' as $$
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
end $$;

-- One article as its reader may see it (published; a draft for the workspace's members), with its
-- collection and up to 10 other published articles there. p_count_view counts a view of a published one.
create function public.help_article(p_slug text, p_id bigint, p_count_view boolean default false) returns jsonb
language plpgsql volatile security invoker set search_path = '' as $$
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
end $$;

-- "Did you mean": the query with each word that no published article of the workspace holds replaced
-- by the closest one that does (trigram neighbours, then at most 1 edit for words of up to 4 letters,
-- 2 up to 7, else 3 — a typo in a short word changes most of its trigrams, so the edit distance
-- decides); null when nothing was replaced. Anyone: the words are those of public pages.
create function public.help_spelling(p_workspace_id uuid, p_query text) returns text
language sql stable security definer set search_path = '' as $$
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
$$;

-- Search (docs/product.md#the-help-center-public): websearch syntax ("a phrase", -word, or) in the workspace's
-- language; the last word, while it is being typed (no space after it), also as a prefix; title matches first,
-- then by rank (title weight A over body B, shorter articles first at equal counts); snippets with the
-- matches between U+E000 and U+E001 (the app escapes the text and marks them). When nothing is found
-- the misspelt words are corrected (help_spelling), searched again, and `corrected` says so. Members
-- may include their drafts (p_published_only false).
-- Security definer, with what the articles' policies allow written out (published ones; drafts too for
-- a member of the workspace who asks): under row-level security `@@` is not leakproof, so a reader's
-- search could use neither text index and read every article's vector — a word no title holds took
-- ~600 ms at 5 000 articles, 0.4 ms through the index (docs/decisions/065-help-center-speed.md).
create function public.help_search(p_slug text, p_query text, p_limit integer default 10,
                                   p_published_only boolean default true) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
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
end $$;

-- The sitemap of a help center: its collections with a published article, and its published articles.
create function public.help_sitemap(p_slug text) returns jsonb
language sql stable security invoker set search_path = '' as $$
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
$$;

-- The addresses of the workspaces with a published article (robots.txt lists their sitemaps): their
-- help centers are public pages.
create function public.help_sitemap_workspaces() returns setof text
language sql stable security definer set search_path = '' as $$
  select w.slug from public.workspaces w
   where exists (select 1 from public.help_articles a where a.workspace_id = w.id and a.status = 'published')
   order by w.slug limit 50000
$$;

-- The agents' list (/w/:slug/help): the workspace's articles, drafts too, newest edit first, with views
-- in the last 30 days and votes; p_status and p_collection ('none': without one) filter. Members only
-- (the policies); anyone else gets not_found.
create function public.help_article_list(p_slug text, p_status public.help_article_status default null,
                                         p_collection text default null, p_offset integer default 0,
                                         p_limit integer default 50) returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
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
end $$;

-- ---------------------------------------------------------------------------------------------
-- Recording: each call writes one bounded row, whoever calls.

-- A vote on a published article by a visitor: the signed-in user, else p_visitor (the app's signed
-- visitor cookie). Changing one's vote is allowed. At most 100 votes an hour per article (new or
-- changed), whatever the visitor ids: too_many_attempts beyond.
create function public.help_vote(p_article_id bigint, p_visitor uuid, p_helpful boolean) returns void
language plpgsql volatile security definer set search_path = '' as $$
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
end $$;

-- A search of the help center that found nothing (the search page records it; suggestions don't),
-- lower-cased. At most 200 different queries per workspace and day; beyond, only those already there count.
create function private.record_help_search_miss(p_workspace_id uuid, p_query text, p_searches integer) returns void
language plpgsql volatile security definer set search_path = '' as $$
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
end $$;

create function public.record_help_search_miss(p_slug text, p_query text) returns void
language plpgsql volatile security definer set search_path = '' as $$
begin
  perform private.record_help_search_miss((select w.id from public.portal_workspace(p_slug) w), p_query, 1);
end $$;

-- Searches with no result counted by the app for signed-out readers and sent together (p_queries[i]
-- searched p_searches[i] times), at most every second per worker. The service role only.
create function public.record_help_search_misses(p_slug text, p_queries text[], p_searches integer[]) returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  ws uuid := (select w.id from public.portal_workspace(p_slug) w);
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  perform set_config('synchronous_commit', 'off', true);
  perform private.record_help_search_miss(ws, c.q, c.n)
     from unnest(p_queries[1:1000], p_searches[1:1000]) with ordinality c (q, n, i) order by c.i;
end $$;

-- A signed-in customer writing a request opened a suggested article (p_kind 'click', p_article_id) or
-- said "My question is answered" ('answered'). The same event again within 30 minutes, or more than
-- 30 events of one customer in an hour, records nothing.
create function public.record_help_suggestion(p_slug text, p_kind text, p_article_id bigint default null) returns void
language plpgsql volatile security definer set search_path = '' as $$
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
end $$;

-- ---------------------------------------------------------------------------------------------
-- The help section of the reports (/w/:slug/reports; admins, as workspace_report): for days in the
-- workspace's time zone, per week from Monday — article views, votes (helpful %), searches with no
-- result, suggestion clicks and deflections — with the range's top searches with no result and most
-- read articles. A deflection: a suggestion event of a customer with no request of theirs in the
-- workspace within the 30 minutes after it, and none of their events in the 30 minutes before it (a
-- customer reading several suggestions counts once); events of the last 30 minutes are not settled yet.
create function public.help_report(p_slug text, p_from date default null, p_to date default null, p_days integer default null)
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
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
end $$;

revoke all on function private.record_help_search_miss(uuid, text, integer) from public;
revoke execute on function public.count_help_views(bigint[], integer[]), public.record_help_search_misses(text, text[], integer[])
  from public, anon, authenticated;
grant execute on function public.count_help_views(bigint[], integer[]), public.record_help_search_misses(text, text[], integer[])
  to service_role;
revoke execute on function public.help_versions(text[]) from public;
grant execute on function public.help_versions(text[]) to anon, authenticated, service_role;
revoke execute on function public.help_center(text), public.help_popular_articles(uuid), public.help_collection(text, text), public.count_help_view(bigint),
  public.help_article(text, bigint, boolean), public.help_spelling(uuid, text),
  public.help_search(text, text, integer, boolean), public.help_sitemap(text), public.help_sitemap_workspaces(),
  public.help_article_list(text, public.help_article_status, text, integer, integer),
  public.help_vote(bigint, uuid, boolean), public.record_help_search_miss(text, text),
  public.record_help_suggestion(text, text, bigint), public.help_report(text, date, date, integer) from public, anon;
grant execute on function public.help_center(text), public.help_popular_articles(uuid), public.help_collection(text, text), public.count_help_view(bigint),
  public.help_article(text, bigint, boolean), public.help_spelling(uuid, text),
  public.help_search(text, text, integer, boolean), public.help_sitemap(text), public.help_sitemap_workspaces(),
  public.help_vote(bigint, uuid, boolean), public.record_help_search_miss(text, text) to anon, authenticated, service_role;
grant execute on function public.help_article_list(text, public.help_article_status, text, integer, integer),
  public.record_help_suggestion(text, text, bigint), public.help_report(text, date, date, integer) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Row-level security.
alter table public.help_settings enable row level security;
alter table public.help_collections enable row level security;
alter table public.help_articles enable row level security;
alter table public.help_article_views enable row level security;
alter table public.help_article_votes enable row level security;
alter table public.help_search_misses enable row level security;
alter table public.help_suggestion_events enable row level security;
alter table private.help_words enable row level security;
alter table private.help_article_images enable row level security;
alter table private.help_collection_slugs enable row level security;
alter table private.help_versions enable row level security;
revoke all on private.help_words, private.help_article_images, private.help_collection_slugs, private.help_versions from public;
revoke all on sequence private.help_version_seq from public;

-- The language of a help center is as public as its pages; admins choose it.
revoke all on public.help_settings from anon, authenticated;
grant select on public.help_settings to anon, authenticated;
grant insert (workspace_id, language), update (language) on public.help_settings to authenticated;
create policy "anyone reads a help center's language" on public.help_settings for select to anon, authenticated
  using (true);
create policy "admins set their help center's language" on public.help_settings for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins change their help center's language" on public.help_settings for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));

-- Collections: public once they hold a published article; members read all of theirs; admins manage them.
revoke all on public.help_collections from anon, authenticated;
grant select on public.help_collections to anon, authenticated;
grant insert (workspace_id, title, description, position), update (title, description, position), delete
  on public.help_collections to authenticated;
create policy "visitors read collections with a published article" on public.help_collections for select to anon
  using (exists (select 1 from public.help_articles a where a.collection_id = help_collections.id and a.status = 'published'));
create policy "users read collections with a published article, members all of theirs" on public.help_collections
  for select to authenticated
  using (workspace_id in (select private.member_workspaces())
         or exists (select 1 from public.help_articles a where a.collection_id = help_collections.id and a.status = 'published'));
create policy "admins add collections" on public.help_collections for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins edit collections" on public.help_collections for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins delete collections" on public.help_collections for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

-- Articles: published ones are public; members read their drafts, write and publish; admins delete.
-- Who wrote and last edited one, when, its slug, text and search vector are the database's.
revoke all on public.help_articles from anon, authenticated;
grant select (id, workspace_id, collection_id, title, slug, body, status, position, updated_at, published_at, body_text, search,
  title_search) on public.help_articles to anon;
grant select on public.help_articles to authenticated;
grant insert (workspace_id, collection_id, title, body, status, position),
  update (collection_id, title, body, status, position), delete on public.help_articles to authenticated;
create policy "visitors read published articles" on public.help_articles for select to anon
  using (status = 'published');
create policy "users read published articles, members their workspace's drafts too" on public.help_articles
  for select to authenticated
  using (status = 'published' or workspace_id in (select private.member_workspaces()));
create policy "members write articles" on public.help_articles for insert to authenticated
  with check (workspace_id in (select private.member_workspaces()));
create policy "members edit and publish articles" on public.help_articles for update to authenticated
  using (workspace_id in (select private.member_workspaces())) with check (workspace_id in (select private.member_workspaces()));
create policy "admins delete articles" on public.help_articles for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

-- What was measured: members read it; only the recording functions write it.
revoke all on public.help_article_views, public.help_article_votes, public.help_search_misses,
  public.help_suggestion_events from anon, authenticated;
grant select on public.help_article_views, public.help_article_votes, public.help_search_misses,
  public.help_suggestion_events to authenticated;
create policy "members read their articles' views" on public.help_article_views for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members read their articles' votes" on public.help_article_votes for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members read their help center's searches with no result" on public.help_search_misses for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members read their help center's suggestion events" on public.help_suggestion_events for select to authenticated
  using (workspace_id in (select private.member_workspaces()));

-- ---------------------------------------------------------------------------------------------
-- Images of articles: the public bucket `help` (supabase/config.toml), at <workspace id>/<id>/<name>.
-- Anyone reads them by their public URL; members of the workspace upload (within the limits below) and
-- remove them.

-- What one member may upload to a workspace's help center (issue 30): while the images they uploaded
-- there that no article shows yet (just inserted, or an unsaved article's, until the hourly sweep) stay
-- under 20 files and 50 MB, and fewer than 100 uploads in the last 24 hours, so nobody fills a public
-- bucket (a text can show any number of images, so shown ones count per day). Checked before each upload;
-- the uploader's objects of the workspace are one indexed range of keys (the workspace's prefix).
create function private.help_images_max_unclaimed_bytes() returns bigint
language sql immutable set search_path = '' as $$ select 50::bigint * 1024 * 1024 $$;
create function private.help_images_max_unclaimed_count() returns integer
language sql immutable set search_path = '' as $$ select 20 $$;
create function private.help_images_max_per_day() returns integer
language sql immutable set search_path = '' as $$ select 100 $$;

create function private.may_upload_help_image(p_name text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke all on function private.help_images_max_unclaimed_bytes(), private.help_images_max_unclaimed_count(),
  private.help_images_max_per_day(), private.may_upload_help_image(text) from public;
grant execute on function private.may_upload_help_image(text) to authenticated;

create policy "help images: members list theirs" on storage.objects for select to authenticated
  using (bucket_id = 'help' and (storage.foldername(name))[1] in (select private.member_workspaces()::text));
create policy "help images: members upload within their limits" on storage.objects for insert to authenticated
  with check (bucket_id = 'help' and owner_id = (select auth.uid())::text and private.may_upload_help_image(name));
create policy "help images: members remove theirs" on storage.objects for delete to authenticated
  using (bucket_id = 'help' and (storage.foldername(name))[1] in (select private.member_workspaces()::text));

-- Images no article shows, an hour after their upload (a deleted article's, one replaced in the text,
-- one inserted in an article never saved): the hourly sweep (sweep-attachments) removes them through
-- the storage API. Service role only.
create function public.unclaimed_help_images(p_limit integer default 1000) returns setof text
language plpgsql stable security definer set search_path = '' as $$
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
end $$;
revoke all on function public.unclaimed_help_images(integer) from public, anon, authenticated;
grant execute on function public.unclaimed_help_images(integer) to service_role;

-- The editor's private channel `help-article:<id>`: who else is editing (presence), for the members of
-- the article's workspace only.
create function private.may_use_help_article_channel(topic text) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.help_articles a
     where a.id = case when topic ~ '^help-article:[0-9]{1,18}$' then substr(topic, 14)::bigint end
       and a.workspace_id in (select private.member_workspaces())
  )
$$;
revoke all on function private.may_use_help_article_channel(text) from public;
grant execute on function private.may_use_help_article_channel(text) to authenticated;

create policy "members join the editing channel of their workspace's articles" on realtime.messages
  for select to authenticated
  using (extension in ('presence', 'broadcast') and (select private.may_use_help_article_channel(realtime.topic())));
create policy "members show themselves on the editing channel of their workspace's articles" on realtime.messages
  for insert to authenticated
  with check (extension = 'presence' and (select private.may_use_help_article_channel(realtime.topic())));

-- Who is editing comes from the database, not from presence keys or payloads (any member could track
-- under another's id): the page announces its own presence entry (Realtime's presence_ref) and the
-- database broadcasts it with the caller's auth.uid() (docs/decisions/037-presence-the-server-vouches-for.md).
-- Members may track presence on the channel but not broadcast there.
create function public.announce_help_editor(p_article_id bigint, p_presence_ref text) returns void
language plpgsql security definer set search_path = '' as $$
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
end $$;
revoke all on function public.announce_help_editor(bigint, text) from public, anon;
grant execute on function public.announce_help_editor(bigint, text) to authenticated;
