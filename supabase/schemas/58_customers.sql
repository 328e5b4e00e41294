-- Customers and companies (docs/decisions/059-customers-and-companies.md): the people who wrote to a
-- workspace, what its team notes about them, and the companies their email domains make.
--
-- A customer is a requester of a workspace: one row per (workspace, requester), added by the tickets'
-- statement trigger with its first ticket there. The name and email are copies of the profile's and
-- the account's (kept by triggers), so a workspace's customers are listed and searched by prefix with
-- its own indexes, at any number of tickets. Companies are derived: the customers' email domains, free
-- mail excepted; an admin may give one a name (public.companies).

-- Free-mail providers: their domains are people's, not a company's. Changing the list rewrites
-- customers.company (a generated column), in the migration that changes it.
create function private.company_domain(p_email text) returns text
language sql immutable parallel safe set search_path = '' as $$
  select case when d <> '' and d not in (
      'gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'hotmail.co.uk', 'live.com', 'msn.com',
      'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'ymail.com', 'icloud.com', 'me.com', 'mac.com', 'aol.com',
      'proton.me', 'protonmail.com', 'pm.me', 'gmx.com', 'gmx.de', 'gmx.net', 'web.de', 'mail.com',
      'zoho.com', 'yandex.com', 'yandex.ru', 'mail.ru', 'qq.com', '163.com', 'hey.com', 'fastmail.com',
      'tutanota.com', 'duck.com')
    then d end
    from (select lower(split_part(coalesce(p_email, ''), '@', 2)) as d) x
$$;
revoke all on function private.company_domain(text) from public;
grant execute on function private.company_domain(text) to authenticated, service_role;

create table public.customers (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- Also references profiles, so PostgREST can embed the profile as it does for tickets.
  user_id uuid not null references auth.users (id) on delete cascade
    constraint customers_user_profile_fkey references public.profiles (user_id) on delete cascade,
  name text not null,
  email text not null,
  -- Byte order ("C"): one b-tree both sorts the list and serves `like 'abc%'`.
  name_key text collate "C" generated always as (lower(name) collate "C") stored,
  email_key text collate "C" generated always as (lower(email) collate "C") stored,
  company text collate "C" generated always as (private.company_domain(email) collate "C") stored,
  -- An IANA zone an agent set (checked like the workspace's); null: not known.
  time_zone text check (char_length(time_zone) between 1 and 64),
  -- Their tickets in the workspace, counted by the tickets' statement triggers.
  tickets integer not null default 0,
  -- Their first ticket's.
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index customers_name_idx on public.customers (workspace_id, name_key, user_id);
create index customers_email_idx on public.customers (workspace_id, email_key, user_id);
create index customers_company_idx on public.customers (workspace_id, company, name_key, user_id) where company is not null;
create index customers_user_idx on public.customers (user_id);

create trigger customers_time_zone before insert or update of time_zone on public.customers
  for each row when (new.time_zone is not null) execute function private.check_workspace_time_zone();

-- A company's name, when an admin gave it one; without a row a company is known by its domain.
create table public.companies (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- A company's domain: never free mail.
  domain text collate "C" not null check (private.company_domain('x@' || domain) is not distinct from domain),
  name text not null check (char_length(name) between 1 and 80),
  updated_by uuid default auth.uid() references auth.users (id) on delete set null,
  updated_at timestamptz not null default now(),
  primary key (workspace_id, domain)
);

-- Notes about a customer: the team's, never the customer's. Each edit keeps the text it replaced, with
-- who wrote that and when (customer_note_versions).
create table public.customer_notes (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  customer_id uuid not null,
  body text not null check (char_length(btrim(body)) between 1 and 5000),
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz,
  foreign key (workspace_id, customer_id) references public.customers (workspace_id, user_id) on delete cascade
);
create index customer_notes_customer_idx on public.customer_notes (workspace_id, customer_id, created_at desc);

create table public.customer_note_versions (
  id bigint generated always as identity primary key,
  note_id uuid not null references public.customer_notes (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  body text not null,
  written_by uuid references auth.users (id) on delete set null,
  written_at timestamptz not null
);
create index customer_note_versions_note_idx on public.customer_note_versions (note_id, written_at desc);
create index customer_note_versions_workspace_idx on public.customer_note_versions (workspace_id);

-- ---------------------------------------------------------------------------------------------
-- Keeping customers: one upsert per statement of tickets, rows in key order (two statements queue
-- instead of deadlocking); a deleted ticket counts down (the customer and their notes stay). A ticket
-- counts once numbered (private.ticket_counted): create_ticket's when its provisional number gives way to
-- its number, late in its transaction, so the requester's row is held from there to the commit, not from
-- the insert (docs/decisions/104-number-late.md).
create function private.count_customer_tickets() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'DELETE' then
    update public.customers c set tickets = greatest(c.tickets - o.k, 0)
      from (select workspace_id, requester_id, count(*)::integer as k from old_tickets where number > 0 group by 1, 2) o
     where c.workspace_id = o.workspace_id and c.user_id = o.requester_id;
    return null;
  end if;
  if tg_level = 'ROW' then
    -- create_ticket's ticket, numbered at last.
    insert into public.customers as c (workspace_id, user_id, name, email, tickets, created_at)
    select new.workspace_id, new.requester_id, coalesce(p.display_name, 'Unknown'), coalesce(lower(u.email), ''), 1, new.created_at
      from auth.users u left join public.profiles p on p.user_id = u.id
     where u.id = new.requester_id
    on conflict (workspace_id, user_id) do update set tickets = c.tickets + excluded.tickets;
    return null;
  end if;
  insert into public.customers as c (workspace_id, user_id, name, email, tickets, created_at)
  select n.workspace_id, n.requester_id, coalesce(p.display_name, 'Unknown'), coalesce(lower(u.email), ''), n.k, n.first
    from (select workspace_id, requester_id, count(*)::integer as k, min(created_at) as first
            from new_tickets where number > 0 group by 1, 2) n
    left join public.profiles p on p.user_id = n.requester_id
    left join auth.users u on u.id = n.requester_id
   order by n.workspace_id, n.requester_id
  on conflict (workspace_id, user_id) do update set tickets = c.tickets + excluded.tickets;
  return null;
end $$;
create trigger tickets_customers_insert after insert on public.tickets
  referencing new table as new_tickets for each statement execute function private.count_customer_tickets();
create trigger tickets_customers_numbered after update of number on public.tickets
  for each row when (old.number < 0 and new.number > 0) execute function private.count_customer_tickets();
create trigger tickets_customers_delete after delete on public.tickets
  referencing old table as old_tickets for each statement execute function private.count_customer_tickets();

-- The copies follow the profile's name and the account's email.
create function private.customer_name_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.customers set name = new.display_name where user_id = new.user_id;
  return null;
end $$;
create trigger profiles_customer_name after update of display_name on public.profiles
  for each row when (old.display_name is distinct from new.display_name)
  execute function private.customer_name_changed();

create function private.customer_email_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.customers set email = coalesce(lower(new.email), '') where user_id = new.id;
  return null;
end $$;
create trigger on_auth_user_email_changed after update of email on auth.users
  for each row when (old.email is distinct from new.email) execute function private.customer_email_changed();

-- Who wrote a note, and when, is the database's; an edit keeps the text it replaces.
create function private.customer_note_written() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    new.created_by := auth.uid();
    new.created_at := now();
    new.updated_by := null;
    new.updated_at := null;
  elsif new.body is distinct from old.body then
    insert into public.customer_note_versions (note_id, workspace_id, body, written_by, written_at)
    values (old.id, old.workspace_id, old.body, coalesce(old.updated_by, old.created_by), coalesce(old.updated_at, old.created_at));
    new.updated_by := auth.uid();
    new.updated_at := now();
  end if;
  return new;
end $$;
create trigger customer_notes_written before insert or update on public.customer_notes
  for each row execute function private.customer_note_written();

-- A company's name: who named it and when are the database's.
create function private.company_named() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.name := btrim(new.name);
  new.updated_by := auth.uid();
  new.updated_at := now();
  return new;
end $$;
create trigger companies_named before insert or update on public.companies
  for each row execute function private.company_named();

revoke all on function private.count_customer_tickets(), private.customer_name_changed(),
  private.customer_email_changed(), private.customer_note_written(), private.company_named() from public;

-- ---------------------------------------------------------------------------------------------
-- Row-level security: members only, of their own workspaces. Customers never read any of it (they
-- have no policy), anon nothing at all.
alter table public.customers enable row level security;
alter table public.companies enable row level security;
alter table public.customer_notes enable row level security;
alter table public.customer_note_versions enable row level security;

revoke all on public.customers, public.companies, public.customer_notes, public.customer_note_versions from anon;
revoke insert, update, delete on public.customers, public.customer_note_versions from authenticated;
grant update (time_zone) on public.customers to authenticated;
create policy "members read their workspace's customers" on public.customers for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members set a customer's time zone" on public.customers for update to authenticated
  using (workspace_id in (select private.member_workspaces())) with check (workspace_id in (select private.member_workspaces()));

revoke insert, update on public.companies from authenticated;
grant insert (workspace_id, domain, name) on public.companies to authenticated;
grant update (name) on public.companies to authenticated;
create policy "members read company names" on public.companies for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins name companies" on public.companies for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins rename companies" on public.companies for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins unname companies" on public.companies for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

revoke insert, update on public.customer_notes from authenticated;
grant insert (workspace_id, customer_id, body) on public.customer_notes to authenticated;
grant update (body) on public.customer_notes to authenticated;
create policy "members read notes about customers" on public.customer_notes for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "members write notes about customers" on public.customer_notes for insert to authenticated
  with check (workspace_id in (select private.member_workspaces()));
create policy "members edit notes about customers" on public.customer_notes for update to authenticated
  using (workspace_id in (select private.member_workspaces())) with check (workspace_id in (select private.member_workspaces()));
create policy "authors and admins delete notes about customers" on public.customer_notes for delete to authenticated
  using (workspace_id in (select private.admin_workspaces())
         or (created_by = (select auth.uid()) and workspace_id in (select private.member_workspaces())));
create index customer_notes_created_by_idx on public.customer_notes (created_by);

create policy "members read earlier versions of notes" on public.customer_note_versions for select to authenticated
  using (workspace_id in (select private.member_workspaces()));

-- ---------------------------------------------------------------------------------------------
-- The pages, each in one call. Security definer like the inbox (50_inbox.sql): the caller must be a
-- member of the workspace (private.membership: else not_found), and every query is confined to it.

-- `like` pattern for a prefix: the typed text, its wildcards escaped, lower case.
create function private.prefix_pattern(p_query text) returns text
language sql immutable set search_path = '' as $$
  select replace(replace(replace(lower(btrim(p_query)), '\', '\\'), '%', '\%'), '_', '\_') || '%'
$$;
revoke all on function private.prefix_pattern(text) from public;

-- A workspace's customers by name (then id), p_limit a page after the cursor: all of them, a search
-- (name or email starting with p_query), or a company's (p_company).
create function public.customers_page(
  p_slug text,
  p_query text default null,
  p_company text default null,
  p_after_name text default null,
  p_after_id uuid default null,
  p_limit integer default 50
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  member record;
  ws public.workspaces;
  pattern text := case when coalesce(btrim(p_query), '') <> '' then private.prefix_pattern(p_query) end;
  rows jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  if p_limit not between 1 and 200 or (p_after_name is null) <> (p_after_id is null) then
    raise exception using errcode = 'P0001', message = 'bad_request';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('user_id', c.user_id, 'name', c.name, 'email', c.email, 'key', c.name_key,
                                               'company', c.company, 'tickets', c.tickets) order by c.name_key, c.user_id), '[]')
    into rows
    from (select * from public.customers c
           where c.workspace_id = ws.id
             and (pattern is null or c.name_key like pattern or c.email_key like pattern)
             and (p_company is null or c.company = lower(p_company))
             and (p_after_name is null or (c.name_key, c.user_id) > (p_after_name collate "C", p_after_id))
           order by c.name_key, c.user_id
           limit p_limit + 1) c;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
    'role', member.role,
    'customers', (select coalesce(jsonb_agg(r - 'key'), '[]') from jsonb_array_elements(rows) with ordinality x(r, i) where i <= p_limit),
    -- The cursor of the next page: the last row shown, when there is one more.
    'next', case when jsonb_array_length(rows) > p_limit then
              (select jsonb_build_object('name', r ->> 'key', 'id', r ->> 'user_id') from jsonb_array_elements(rows) with ordinality x(r, i) where i = p_limit) end
  );
end $$;
revoke all on function public.customers_page(text, text, text, text, uuid, integer) from public, anon;
grant execute on function public.customers_page(text, text, text, text, uuid, integer) to authenticated, service_role;

-- A customer's page: who they are, their company, their tickets here (newest activity first, 25 a
-- page after the cursor) and the notes about them (newest first, with how many earlier versions).
create function public.customer_page(
  p_slug text,
  p_customer_id uuid,
  p_after_at timestamptz default null,
  p_after_id uuid default null
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  member record;
  ws public.workspaces;
  c public.customers;
  page_size constant integer := 25;
  rows jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  select * into c from public.customers x where x.workspace_id = ws.id and x.user_id = p_customer_id;
  if c.user_id is null then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status,
                                               'priority', t.priority, 'last_message_at', t.last_message_at)
                            order by t.last_message_at desc, t.id desc), '[]')
    into rows
    from (select * from public.tickets t
           where t.requester_id = c.user_id and t.workspace_id = ws.id
             -- Trash is out of every list (54_spam_trash_split.sql).
             and t.trashed_at is null
             and (p_after_at is null or (t.last_message_at, t.id) < (p_after_at, p_after_id))
           order by t.last_message_at desc, t.id desc
           limit page_size + 1) t;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', member.role,
    'customer', jsonb_build_object('user_id', c.user_id, 'name', c.name, 'email', c.email, 'time_zone', c.time_zone,
                                   'company', c.company, 'tickets', c.tickets, 'created_at', c.created_at,
                                   'company_name', (select n.name from public.companies n where n.workspace_id = ws.id and n.domain = c.company)),
    'tickets', (select coalesce(jsonb_agg(r), '[]') from jsonb_array_elements(rows) with ordinality x(r, i) where i <= page_size),
    'older', case when jsonb_array_length(rows) > page_size then
               (select jsonb_build_object('at', r ->> 'last_message_at', 'id', r ->> 'id') from jsonb_array_elements(rows) with ordinality x(r, i) where i = page_size) end,
    'notes', (select coalesce(jsonb_agg(jsonb_build_object(
                 'id', n.id, 'body', n.body, 'created_by', n.created_by, 'created_at', n.created_at,
                 'updated_by', n.updated_by, 'updated_at', n.updated_at,
                 'versions', (select coalesce(jsonb_agg(jsonb_build_object('body', v.body, 'written_by', v.written_by, 'written_at', v.written_at)
                                                        order by v.written_at desc, v.id desc), '[]')
                                from public.customer_note_versions v where v.note_id = n.id))
                 order by n.created_at desc, n.id), '[]')
                from public.customer_notes n where n.workspace_id = ws.id and n.customer_id = c.user_id),
    -- The names of the members who wrote (former members included).
    'names', (select coalesce(jsonb_object_agg(p.user_id, p.display_name), '{}') from public.profiles p
               where p.user_id in (select n.created_by from public.customer_notes n where n.workspace_id = ws.id and n.customer_id = c.user_id
                                   union select n.updated_by from public.customer_notes n where n.workspace_id = ws.id and n.customer_id = c.user_id
                                   union select v.written_by from public.customer_note_versions v join public.customer_notes n on n.id = v.note_id
                                          where n.workspace_id = ws.id and n.customer_id = c.user_id))
  );
end $$;
revoke all on function public.customer_page(text, uuid, timestamptz, uuid) from public, anon;
grant execute on function public.customer_page(text, uuid, timestamptz, uuid) to authenticated, service_role;

-- A workspace's companies by domain, p_limit a page after p_after: with how many customers and
-- tickets each has, and its name if an admin gave one. A search finds domains and names starting
-- with p_query.
create function public.companies_page(
  p_slug text,
  p_query text default null,
  p_after text default null,
  p_limit integer default 50
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  member record;
  ws public.workspaces;
  pattern text := case when coalesce(btrim(p_query), '') <> '' then private.prefix_pattern(p_query) end;
  rows jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  if p_limit not between 1 and 200 then
    raise exception using errcode = 'P0001', message = 'bad_request';
  end if;
  -- Each company's customers are read from customers_company_idx in domain order, a page's worth.
  select coalesce(jsonb_agg(jsonb_build_object('domain', g.company, 'name', n.name, 'customers', g.customers, 'tickets', g.tickets)
                            order by g.company), '[]')
    into rows
    from (select c.company, count(*) as customers, sum(c.tickets) as tickets
            from public.customers c
           where c.workspace_id = ws.id and c.company is not null
             and (p_after is null or c.company > p_after collate "C")
             and (pattern is null or c.company like pattern
                  or c.company in (select x.domain from public.companies x where x.workspace_id = ws.id and lower(x.name) like pattern))
           group by c.company
           order by c.company
           limit p_limit + 1) g
    left join public.companies n on n.workspace_id = ws.id and n.domain = g.company;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
    'role', member.role,
    'companies', (select coalesce(jsonb_agg(r), '[]') from jsonb_array_elements(rows) with ordinality x(r, i) where i <= p_limit),
    'next', case when jsonb_array_length(rows) > p_limit then
              (select r ->> 'domain' from jsonb_array_elements(rows) with ordinality x(r, i) where i = p_limit) end
  );
end $$;
revoke all on function public.companies_page(text, text, text, integer) from public, anon;
grant execute on function public.companies_page(text, text, text, integer) to authenticated, service_role;

-- A company's page: its name, its first customers by name (the rest: customers_page with p_company)
-- and its tickets, newest activity first, 25 a page after the cursor. The tickets are a merge of each
-- customer's newest (tickets_requester_idx), so a page costs a few rows per customer, not a read of
-- every ticket. A free-mail domain, or one without customers here, is not_found.
create function public.company_page(
  p_slug text,
  p_domain text,
  p_after_at timestamptz default null,
  p_after_id uuid default null
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  member record;
  ws public.workspaces;
  wanted text collate "C" := private.company_domain('x@' || btrim(p_domain));
  page_size constant integer := 25;
  customers_shown constant integer := 50;
  total integer;
  rows jsonb;
begin
  select * into member from private.membership(p_slug);
  ws := member.workspace;
  select count(*) into total from public.customers c where c.workspace_id = ws.id and c.company = wanted;
  if wanted is null or total = 0 then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'number', t.number, 'subject', t.subject, 'status', t.status,
                                               'priority', t.priority, 'last_message_at', t.last_message_at,
                                               'requester_id', t.requester_id, 'requester', t.name)
                            order by t.last_message_at desc, t.id desc), '[]')
    into rows
    from (select t.*, c.name from public.customers c
            cross join lateral (select * from public.tickets t
                                 where t.requester_id = c.user_id and t.workspace_id = ws.id and t.trashed_at is null
                                   and (p_after_at is null or (t.last_message_at, t.id) < (p_after_at, p_after_id))
                                 order by t.last_message_at desc, t.id desc
                                 limit page_size + 1) t
           where c.workspace_id = ws.id and c.company = wanted
           order by t.last_message_at desc, t.id desc
           limit page_size + 1) t;
  return jsonb_build_object(
    -- The time zone: the page's times fall back to it (app/lib/helpdesk/viewer-zone.server.ts).
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name, 'time_zone', ws.time_zone),
    'role', member.role,
    'company', jsonb_build_object('domain', wanted, 'customers', total,
                                  'name', (select n.name from public.companies n where n.workspace_id = ws.id and n.domain = wanted)),
    'customers', (select coalesce(jsonb_agg(jsonb_build_object('user_id', c.user_id, 'name', c.name, 'email', c.email, 'tickets', c.tickets)
                                            order by c.name_key, c.user_id), '[]')
                    from (select * from public.customers c where c.workspace_id = ws.id and c.company = wanted
                           order by c.name_key, c.user_id limit customers_shown) c),
    'tickets', (select coalesce(jsonb_agg(r), '[]') from jsonb_array_elements(rows) with ordinality x(r, i) where i <= page_size),
    'older', case when jsonb_array_length(rows) > page_size then
               (select jsonb_build_object('at', r ->> 'last_message_at', 'id', r ->> 'id') from jsonb_array_elements(rows) with ordinality x(r, i) where i = page_size) end
  );
end $$;
revoke all on function public.company_page(text, text, timestamptz, uuid) from public, anon;
grant execute on function public.company_page(text, text, timestamptz, uuid) to authenticated, service_role;
