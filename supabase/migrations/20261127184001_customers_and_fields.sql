create type "public"."ticket_field_kind" as enum ('text', 'number', 'date', 'dropdown', 'checkbox');

-- Moved up by hand: the generated column and the check below call them.
CREATE OR REPLACE FUNCTION private.company_domain(p_email text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select case when d <> '' and d not in (
      'gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'hotmail.co.uk', 'live.com', 'msn.com',
      'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'ymail.com', 'icloud.com', 'me.com', 'mac.com', 'aol.com',
      'proton.me', 'protonmail.com', 'pm.me', 'gmx.com', 'gmx.de', 'gmx.net', 'web.de', 'mail.com',
      'zoho.com', 'yandex.com', 'yandex.ru', 'mail.ru', 'qq.com', '163.com', 'hey.com', 'fastmail.com',
      'tutanota.com', 'duck.com')
    then d end
    from (select lower(split_part(coalesce(p_email, ''), '@', 2)) as d) x
$function$
;

CREATE OR REPLACE FUNCTION private.field_options_ok(p_kind ticket_field_kind, p_options text[])
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO ''
AS $function$
  select case when p_kind = 'dropdown' then
      cardinality(p_options) between 1 and 50
      and (select bool_and(char_length(btrim(o)) between 1 and 80 and o = btrim(o)) from unnest(p_options) o)
      and (select count(distinct lower(o)) from unnest(p_options) o) = cardinality(p_options)
    else cardinality(p_options) = 0 end
$function$
;


  create table "public"."companies" (
    "workspace_id" uuid not null,
    "domain" text collate "C" not null,
    "name" text not null,
    "updated_by" uuid default auth.uid(),
    "updated_at" timestamp with time zone not null default now()
      );


alter table "public"."companies" enable row level security;


  create table "public"."customer_note_versions" (
    "id" bigint generated always as identity not null,
    "note_id" uuid not null,
    "workspace_id" uuid not null,
    "body" text not null,
    "written_by" uuid,
    "written_at" timestamp with time zone not null
      );


alter table "public"."customer_note_versions" enable row level security;


  create table "public"."customer_notes" (
    "id" uuid not null default gen_random_uuid(),
    "workspace_id" uuid not null,
    "customer_id" uuid not null,
    "body" text not null,
    "created_by" uuid default auth.uid(),
    "created_at" timestamp with time zone not null default now(),
    "updated_by" uuid,
    "updated_at" timestamp with time zone
      );


alter table "public"."customer_notes" enable row level security;


  create table "public"."customers" (
    "workspace_id" uuid not null,
    "user_id" uuid not null,
    "name" text not null,
    "email" text not null,
    "name_key" text collate "C" generated always as ((lower(name) COLLATE "C")) stored,
    "email_key" text collate "C" generated always as ((lower(email) COLLATE "C")) stored,
    "company" text collate "C" generated always as ((private.company_domain(email) COLLATE "C")) stored,
    "time_zone" text,
    "tickets" integer not null default 0,
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."customers" enable row level security;


  create table "public"."ticket_field_values" (
    "ticket_id" uuid not null,
    "field_id" uuid not null,
    "workspace_id" uuid not null,
    "value" text not null,
    "updated_by" uuid,
    "updated_at" timestamp with time zone not null default now()
      );


alter table "public"."ticket_field_values" enable row level security;


  create table "public"."ticket_fields" (
    "id" uuid not null default gen_random_uuid(),
    "workspace_id" uuid not null,
    "label" text not null,
    "kind" ticket_field_kind not null,
    "options" text[] not null default '{}'::text[],
    "required_on_solve" boolean not null default false,
    "internal" boolean not null default true,
    "position" integer not null default 0,
    "created_by" uuid default auth.uid(),
    "created_at" timestamp with time zone not null default now()
      );


alter table "public"."ticket_fields" enable row level security;

CREATE UNIQUE INDEX companies_pkey ON public.companies USING btree (workspace_id, domain);

CREATE INDEX customer_note_versions_note_idx ON public.customer_note_versions USING btree (note_id, written_at DESC);

CREATE UNIQUE INDEX customer_note_versions_pkey ON public.customer_note_versions USING btree (id);

CREATE INDEX customer_note_versions_workspace_idx ON public.customer_note_versions USING btree (workspace_id);

CREATE INDEX customer_notes_created_by_idx ON public.customer_notes USING btree (created_by);

CREATE INDEX customer_notes_customer_idx ON public.customer_notes USING btree (workspace_id, customer_id, created_at DESC);

CREATE UNIQUE INDEX customer_notes_pkey ON public.customer_notes USING btree (id);

CREATE INDEX customers_company_idx ON public.customers USING btree (workspace_id, company, name_key, user_id) WHERE (company IS NOT NULL);

CREATE INDEX customers_email_idx ON public.customers USING btree (workspace_id, email_key, user_id);

CREATE INDEX customers_name_idx ON public.customers USING btree (workspace_id, name_key, user_id);

CREATE UNIQUE INDEX customers_pkey ON public.customers USING btree (workspace_id, user_id);

CREATE INDEX customers_user_idx ON public.customers USING btree (user_id);

CREATE INDEX ticket_field_values_field_idx ON public.ticket_field_values USING btree (field_id, value);

CREATE UNIQUE INDEX ticket_field_values_pkey ON public.ticket_field_values USING btree (ticket_id, field_id);

CREATE INDEX ticket_field_values_workspace_idx ON public.ticket_field_values USING btree (workspace_id);

CREATE UNIQUE INDEX ticket_fields_label_key ON public.ticket_fields USING btree (workspace_id, lower(label));

CREATE UNIQUE INDEX ticket_fields_pkey ON public.ticket_fields USING btree (id);

alter table "public"."companies" add constraint "companies_pkey" PRIMARY KEY using index "companies_pkey";

alter table "public"."customer_note_versions" add constraint "customer_note_versions_pkey" PRIMARY KEY using index "customer_note_versions_pkey";

alter table "public"."customer_notes" add constraint "customer_notes_pkey" PRIMARY KEY using index "customer_notes_pkey";

alter table "public"."customers" add constraint "customers_pkey" PRIMARY KEY using index "customers_pkey";

alter table "public"."ticket_field_values" add constraint "ticket_field_values_pkey" PRIMARY KEY using index "ticket_field_values_pkey";

alter table "public"."ticket_fields" add constraint "ticket_fields_pkey" PRIMARY KEY using index "ticket_fields_pkey";

alter table "public"."companies" add constraint "companies_domain_check" CHECK ((NOT (private.company_domain(('x@'::text || domain)) IS DISTINCT FROM domain))) not valid;

alter table "public"."companies" validate constraint "companies_domain_check";

alter table "public"."companies" add constraint "companies_name_check" CHECK (((char_length(name) >= 1) AND (char_length(name) <= 80))) not valid;

alter table "public"."companies" validate constraint "companies_name_check";

alter table "public"."companies" add constraint "companies_updated_by_fkey" FOREIGN KEY (updated_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."companies" validate constraint "companies_updated_by_fkey";

alter table "public"."companies" add constraint "companies_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."companies" validate constraint "companies_workspace_id_fkey";

alter table "public"."customer_note_versions" add constraint "customer_note_versions_note_id_fkey" FOREIGN KEY (note_id) REFERENCES customer_notes(id) ON DELETE CASCADE not valid;

alter table "public"."customer_note_versions" validate constraint "customer_note_versions_note_id_fkey";

alter table "public"."customer_note_versions" add constraint "customer_note_versions_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."customer_note_versions" validate constraint "customer_note_versions_workspace_id_fkey";

alter table "public"."customer_note_versions" add constraint "customer_note_versions_written_by_fkey" FOREIGN KEY (written_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."customer_note_versions" validate constraint "customer_note_versions_written_by_fkey";

alter table "public"."customer_notes" add constraint "customer_notes_body_check" CHECK (((char_length(btrim(body)) >= 1) AND (char_length(btrim(body)) <= 5000))) not valid;

alter table "public"."customer_notes" validate constraint "customer_notes_body_check";

alter table "public"."customer_notes" add constraint "customer_notes_created_by_fkey" FOREIGN KEY (created_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."customer_notes" validate constraint "customer_notes_created_by_fkey";

alter table "public"."customer_notes" add constraint "customer_notes_updated_by_fkey" FOREIGN KEY (updated_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."customer_notes" validate constraint "customer_notes_updated_by_fkey";

alter table "public"."customer_notes" add constraint "customer_notes_workspace_id_customer_id_fkey" FOREIGN KEY (workspace_id, customer_id) REFERENCES customers(workspace_id, user_id) ON DELETE CASCADE not valid;

alter table "public"."customer_notes" validate constraint "customer_notes_workspace_id_customer_id_fkey";

alter table "public"."customers" add constraint "customers_time_zone_check" CHECK (((char_length(time_zone) >= 1) AND (char_length(time_zone) <= 64))) not valid;

alter table "public"."customers" validate constraint "customers_time_zone_check";

alter table "public"."customers" add constraint "customers_user_id_fkey" FOREIGN KEY (user_id) REFERENCES auth.users(id) ON DELETE CASCADE not valid;

alter table "public"."customers" validate constraint "customers_user_id_fkey";

alter table "public"."customers" add constraint "customers_user_profile_fkey" FOREIGN KEY (user_id) REFERENCES profiles(user_id) ON DELETE CASCADE not valid;

alter table "public"."customers" validate constraint "customers_user_profile_fkey";

alter table "public"."customers" add constraint "customers_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."customers" validate constraint "customers_workspace_id_fkey";

alter table "public"."ticket_field_values" add constraint "ticket_field_values_field_id_fkey" FOREIGN KEY (field_id) REFERENCES ticket_fields(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_field_values" validate constraint "ticket_field_values_field_id_fkey";

alter table "public"."ticket_field_values" add constraint "ticket_field_values_ticket_id_fkey" FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_field_values" validate constraint "ticket_field_values_ticket_id_fkey";

alter table "public"."ticket_field_values" add constraint "ticket_field_values_updated_by_fkey" FOREIGN KEY (updated_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."ticket_field_values" validate constraint "ticket_field_values_updated_by_fkey";

alter table "public"."ticket_field_values" add constraint "ticket_field_values_value_check" CHECK (((char_length(value) >= 1) AND (char_length(value) <= 1000))) not valid;

alter table "public"."ticket_field_values" validate constraint "ticket_field_values_value_check";

alter table "public"."ticket_field_values" add constraint "ticket_field_values_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_field_values" validate constraint "ticket_field_values_workspace_id_fkey";

alter table "public"."ticket_fields" add constraint "ticket_fields_created_by_fkey" FOREIGN KEY (created_by) REFERENCES auth.users(id) ON DELETE SET NULL not valid;

alter table "public"."ticket_fields" validate constraint "ticket_fields_created_by_fkey";

alter table "public"."ticket_fields" add constraint "ticket_fields_label_check" CHECK (((char_length(label) >= 1) AND (char_length(label) <= 60))) not valid;

alter table "public"."ticket_fields" validate constraint "ticket_fields_label_check";

alter table "public"."ticket_fields" add constraint "ticket_fields_options_check" CHECK (private.field_options_ok(kind, options)) not valid;

alter table "public"."ticket_fields" validate constraint "ticket_fields_options_check";

alter table "public"."ticket_fields" add constraint "ticket_fields_workspace_id_fkey" FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE not valid;

alter table "public"."ticket_fields" validate constraint "ticket_fields_workspace_id_fkey";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION private.check_required_fields()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  missing text;
begin
  if private.is_member(new.workspace_id) then
    select f.label into missing from public.ticket_fields f
     where f.workspace_id = new.workspace_id and f.required_on_solve
       and not exists (select 1 from public.ticket_field_values v where v.ticket_id = new.id and v.field_id = f.id)
     order by f.position, f.created_at, f.id
     limit 1;
    if missing is not null then
      raise exception using errcode = 'P0001', message = 'field_required', detail = missing;
    end if;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.check_ticket_field_value()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  f public.ticket_fields;
  canonical text;
begin
  select * into f from public.ticket_fields where id = new.field_id;
  select t.workspace_id into new.workspace_id from public.tickets t where t.id = new.ticket_id;
  if f.id is null or f.workspace_id is distinct from new.workspace_id then
    raise exception using errcode = 'P0001', message = 'not_found', detail = 'field';
  end if;
  canonical := private.ticket_field_value(f.kind, f.options, new.value);
  if canonical is null then
    raise exception using errcode = 'P0001', message = 'field_value_invalid', detail = f.label;
  end if;
  new.value := canonical;
  new.updated_by := auth.uid();
  new.updated_at := now();
  return new;
end $function$
;


CREATE OR REPLACE FUNCTION private.company_named()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  new.name := btrim(new.name);
  new.updated_by := auth.uid();
  new.updated_at := now();
  return new;
end $function$
;

CREATE OR REPLACE FUNCTION private.count_customer_tickets()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if tg_op = 'INSERT' then
    insert into public.customers as c (workspace_id, user_id, name, email, tickets, created_at)
    select n.workspace_id, n.requester_id, coalesce(p.display_name, 'Unknown'), coalesce(lower(u.email), ''), n.k, n.first
      from (select workspace_id, requester_id, count(*)::integer as k, min(created_at) as first
              from new_tickets group by 1, 2) n
      left join public.profiles p on p.user_id = n.requester_id
      left join auth.users u on u.id = n.requester_id
     order by n.workspace_id, n.requester_id
    on conflict (workspace_id, user_id) do update set tickets = c.tickets + excluded.tickets;
  else
    update public.customers c set tickets = greatest(c.tickets - o.k, 0)
      from (select workspace_id, requester_id, count(*)::integer as k from old_tickets group by 1, 2) o
     where c.workspace_id = o.workspace_id and c.user_id = o.requester_id;
  end if;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.customer_email_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.customers set email = coalesce(lower(new.email), '') where user_id = new.id;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.customer_name_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  update public.customers set name = new.display_name where user_id = new.user_id;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION private.customer_note_written()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;


CREATE OR REPLACE FUNCTION private.prefix_pattern(p_query text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select replace(replace(replace(lower(btrim(p_query)), '\', '\\'), '%', '\%'), '_', '\_') || '%'
$function$
;

CREATE OR REPLACE FUNCTION private.ticket_field_value(p_kind ticket_field_kind, p_options text[], p_value text)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
declare
  v text := btrim(coalesce(p_value, ''));
begin
  case p_kind
    when 'text' then return nullif(v, '');
    when 'number' then
      if v ~ '^-?\d{1,15}(\.\d{1,6})?$' then return v::numeric::text; end if;
    when 'date' then
      if v ~ '^\d{4}-\d{2}-\d{2}$' then
        begin
          return to_char(v::date, 'YYYY-MM-DD');
        exception when others then
          return null;
        end;
      end if;
    when 'dropdown' then
      if v = any (p_options) then return v; end if;
    when 'checkbox' then
      if v in ('true', 'on') then return 'true'; end if;
  end case;
  return null;
end $function$
;

CREATE OR REPLACE FUNCTION public.companies_page(p_slug text, p_query text DEFAULT NULL::text, p_after text DEFAULT NULL::text, p_limit integer DEFAULT 50)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION public.company_page(p_slug text, p_domain text, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
                                 where t.requester_id = c.user_id and t.workspace_id = ws.id
                                   and (p_after_at is null or (t.last_message_at, t.id) < (p_after_at, p_after_id))
                                 order by t.last_message_at desc, t.id desc
                                 limit page_size + 1) t
           where c.workspace_id = ws.id and c.company = wanted
           order by t.last_message_at desc, t.id desc
           limit page_size + 1) t;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', ws.id, 'slug', ws.slug, 'name', ws.name),
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
end $function$
;

CREATE OR REPLACE FUNCTION public.customer_page(p_slug text, p_customer_id uuid, p_after_at timestamp with time zone DEFAULT NULL::timestamp with time zone, p_after_id uuid DEFAULT NULL::uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION public.customers_page(p_slug text, p_query text DEFAULT NULL::text, p_company text DEFAULT NULL::text, p_after_name text DEFAULT NULL::text, p_after_id uuid DEFAULT NULL::uuid, p_limit integer DEFAULT 50)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
end $function$
;

CREATE OR REPLACE FUNCTION public.set_ticket_fields(p_ticket_id uuid, p_values jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  item record;
begin
  if jsonb_typeof(p_values) is distinct from 'object' then
    raise exception using errcode = 'P0001', message = 'bad_request';
  end if;
  if not exists (select 1 from public.tickets t where t.id = p_ticket_id and private.is_member(t.workspace_id)) then
    raise exception using errcode = 'P0001', message = 'not_found';
  end if;
  for item in select key::uuid as field_id, nullif(btrim(coalesce(value #>> '{}', '')), '') as value
                from jsonb_each(p_values) order by key loop
    if item.value is null then
      delete from public.ticket_field_values where ticket_id = p_ticket_id and field_id = item.field_id;
    else
      insert into public.ticket_field_values as v (ticket_id, field_id, value) values (p_ticket_id, item.field_id, item.value)
      on conflict (ticket_id, field_id) do update set value = excluded.value;
    end if;
  end loop;
end $function$
;

CREATE OR REPLACE FUNCTION public.ticket_field_list(p_slug text, p_number integer)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'label', f.label, 'kind', f.kind, 'options', f.options,
                                               'required_on_solve', f.required_on_solve, 'value', v.value)
                            order by f.position, f.created_at, f.id), '[]')
    from public.workspaces w
    join public.tickets t on t.workspace_id = w.id and t.number = p_number
    join public.ticket_fields f on f.workspace_id = w.id and private.is_member(w.id)
    left join public.ticket_field_values v on v.ticket_id = t.id and v.field_id = f.id
   where w.slug = p_slug
$function$
;

CREATE OR REPLACE FUNCTION public.ticket_field_values_of(p_ticket_ids uuid[])
 RETURNS TABLE(ticket_id uuid, field_id uuid, value text)
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select v.ticket_id, v.field_id, v.value from public.ticket_field_values v where v.ticket_id = any (p_ticket_ids)
$function$
;


  create policy "admins name companies"
  on "public"."companies"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins rename companies"
  on "public"."companies"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)))
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins unname companies"
  on "public"."companies"
  as permissive
  for delete
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "members read company names"
  on "public"."companies"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read earlier versions of notes"
  on "public"."customer_note_versions"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "authors and admins delete notes about customers"
  on "public"."customer_notes"
  as permissive
  for delete
  to authenticated
using (((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)) OR ((created_by = ( SELECT auth.uid() AS uid)) AND (workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)))));



  create policy "members edit notes about customers"
  on "public"."customer_notes"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)))
with check ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read notes about customers"
  on "public"."customer_notes"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members write notes about customers"
  on "public"."customer_notes"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members read their workspace's customers"
  on "public"."customers"
  as permissive
  for select
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members set a customer's time zone"
  on "public"."customers"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)))
with check ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members change field values"
  on "public"."ticket_field_values"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)))
with check ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members clear field values"
  on "public"."ticket_field_values"
  as permissive
  for delete
  to authenticated
using ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members fill in fields"
  on "public"."ticket_field_values"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)));



  create policy "members, and requesters the shown values of their tickets, read values"
  on "public"."ticket_field_values"
  as permissive
  for select
  to authenticated
using (((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)) OR ((EXISTS ( SELECT 1
   FROM tickets t
  WHERE ((t.id = ticket_field_values.ticket_id) AND (t.requester_id = ( SELECT auth.uid() AS uid))))) AND (EXISTS ( SELECT 1
   FROM ticket_fields f
  WHERE ((f.id = ticket_field_values.field_id) AND (NOT f.internal)))))));






  create policy "admins add fields"
  on "public"."ticket_fields"
  as permissive
  for insert
  to authenticated
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins delete fields"
  on "public"."ticket_fields"
  as permissive
  for delete
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "admins edit fields"
  on "public"."ticket_fields"
  as permissive
  for update
  to authenticated
using ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)))
with check ((workspace_id IN ( SELECT private.admin_workspaces() AS admin_workspaces)));



  create policy "members, and requesters the fields shown to them, read fields"
  on "public"."ticket_fields"
  as permissive
  for select
  to authenticated
using (((workspace_id IN ( SELECT private.member_workspaces() AS member_workspaces)) OR ((NOT internal) AND (EXISTS ( SELECT 1
   FROM tickets t
  WHERE ((t.workspace_id = ticket_fields.workspace_id) AND (t.requester_id = ( SELECT auth.uid() AS uid))))))));





CREATE TRIGGER on_auth_user_email_changed AFTER UPDATE OF email ON auth.users FOR EACH ROW WHEN (((old.email)::text IS DISTINCT FROM (new.email)::text)) EXECUTE FUNCTION private.customer_email_changed();

CREATE TRIGGER companies_named BEFORE INSERT OR UPDATE ON public.companies FOR EACH ROW EXECUTE FUNCTION private.company_named();

CREATE TRIGGER customer_notes_written BEFORE INSERT OR UPDATE ON public.customer_notes FOR EACH ROW EXECUTE FUNCTION private.customer_note_written();

CREATE TRIGGER customers_time_zone BEFORE INSERT OR UPDATE OF time_zone ON public.customers FOR EACH ROW WHEN ((new.time_zone IS NOT NULL)) EXECUTE FUNCTION private.check_workspace_time_zone();

CREATE TRIGGER profiles_customer_name AFTER UPDATE OF display_name ON public.profiles FOR EACH ROW WHEN ((old.display_name IS DISTINCT FROM new.display_name)) EXECUTE FUNCTION private.customer_name_changed();

CREATE TRIGGER ticket_field_values_check BEFORE INSERT OR UPDATE ON public.ticket_field_values FOR EACH ROW EXECUTE FUNCTION private.check_ticket_field_value();

CREATE TRIGGER tickets_customers_delete AFTER DELETE ON public.tickets REFERENCING OLD TABLE AS old_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.count_customer_tickets();

CREATE TRIGGER tickets_customers_insert AFTER INSERT ON public.tickets REFERENCING NEW TABLE AS new_tickets FOR EACH STATEMENT EXECUTE FUNCTION private.count_customer_tickets();

CREATE TRIGGER tickets_required_fields AFTER UPDATE OF status ON public.tickets FOR EACH ROW WHEN (((new.status = 'solved'::ticket_status) AND (old.status IS DISTINCT FROM 'solved'::ticket_status))) EXECUTE FUNCTION private.check_required_fields();

grant delete on table public.companies to authenticated;
grant delete on table public.companies to service_role;
grant delete on table public.customer_note_versions to service_role;
grant delete on table public.customer_notes to authenticated;
grant delete on table public.customer_notes to service_role;
grant delete on table public.customers to service_role;
grant delete on table public.ticket_field_values to authenticated;
grant delete on table public.ticket_field_values to service_role;
grant delete on table public.ticket_fields to authenticated;
grant delete on table public.ticket_fields to service_role;
grant execute on function private.company_domain(p_email text) to authenticated;
grant execute on function private.company_domain(p_email text) to service_role;
grant execute on function private.field_options_ok(p_kind ticket_field_kind, p_options text[]) to authenticated;
grant execute on function private.field_options_ok(p_kind ticket_field_kind, p_options text[]) to service_role;
grant execute on function public.companies_page(p_slug text, p_query text, p_after text, p_limit integer) to authenticated;
grant execute on function public.companies_page(p_slug text, p_query text, p_after text, p_limit integer) to service_role;
grant execute on function public.company_page(p_slug text, p_domain text, p_after_at timestamp with time zone, p_after_id uuid) to authenticated;
grant execute on function public.company_page(p_slug text, p_domain text, p_after_at timestamp with time zone, p_after_id uuid) to service_role;
grant execute on function public.customer_page(p_slug text, p_customer_id uuid, p_after_at timestamp with time zone, p_after_id uuid) to authenticated;
grant execute on function public.customer_page(p_slug text, p_customer_id uuid, p_after_at timestamp with time zone, p_after_id uuid) to service_role;
grant execute on function public.customers_page(p_slug text, p_query text, p_company text, p_after_name text, p_after_id uuid, p_limit integer) to authenticated;
grant execute on function public.customers_page(p_slug text, p_query text, p_company text, p_after_name text, p_after_id uuid, p_limit integer) to service_role;
grant execute on function public.set_ticket_fields(p_ticket_id uuid, p_values jsonb) to authenticated;
grant execute on function public.set_ticket_fields(p_ticket_id uuid, p_values jsonb) to service_role;
grant execute on function public.ticket_field_list(p_slug text, p_number integer) to authenticated;
grant execute on function public.ticket_field_list(p_slug text, p_number integer) to service_role;
grant execute on function public.ticket_field_values_of(p_ticket_ids uuid[]) to authenticated;
grant execute on function public.ticket_field_values_of(p_ticket_ids uuid[]) to service_role;
grant insert ("position") on table public.ticket_fields to authenticated;
grant insert (body) on table public.customer_notes to authenticated;
grant insert (customer_id) on table public.customer_notes to authenticated;
grant insert (domain) on table public.companies to authenticated;
grant insert (field_id) on table public.ticket_field_values to authenticated;
grant insert (internal) on table public.ticket_fields to authenticated;
grant insert (kind) on table public.ticket_fields to authenticated;
grant insert (label) on table public.ticket_fields to authenticated;
grant insert (name) on table public.companies to authenticated;
grant insert (options) on table public.ticket_fields to authenticated;
grant insert (required_on_solve) on table public.ticket_fields to authenticated;
grant insert (ticket_id) on table public.ticket_field_values to authenticated;
grant insert (value) on table public.ticket_field_values to authenticated;
grant insert (workspace_id) on table public.companies to authenticated;
grant insert (workspace_id) on table public.customer_notes to authenticated;
grant insert (workspace_id) on table public.ticket_fields to authenticated;
grant insert on table public.companies to service_role;
grant insert on table public.customer_note_versions to service_role;
grant insert on table public.customer_notes to service_role;
grant insert on table public.customers to service_role;
grant insert on table public.ticket_field_values to service_role;
grant insert on table public.ticket_fields to service_role;
grant maintain on table public.companies to authenticated;
grant maintain on table public.companies to service_role;
grant maintain on table public.customer_note_versions to authenticated;
grant maintain on table public.customer_note_versions to service_role;
grant maintain on table public.customer_notes to authenticated;
grant maintain on table public.customer_notes to service_role;
grant maintain on table public.customers to authenticated;
grant maintain on table public.customers to service_role;
grant maintain on table public.ticket_field_values to authenticated;
grant maintain on table public.ticket_field_values to service_role;
grant maintain on table public.ticket_fields to authenticated;
grant maintain on table public.ticket_fields to service_role;
grant references on table public.companies to authenticated;
grant references on table public.companies to service_role;
grant references on table public.customer_note_versions to authenticated;
grant references on table public.customer_note_versions to service_role;
grant references on table public.customer_notes to authenticated;
grant references on table public.customer_notes to service_role;
grant references on table public.customers to authenticated;
grant references on table public.customers to service_role;
grant references on table public.ticket_field_values to authenticated;
grant references on table public.ticket_field_values to service_role;
grant references on table public.ticket_fields to authenticated;
grant references on table public.ticket_fields to service_role;
grant select on table public.companies to authenticated;
grant select on table public.companies to service_role;
grant select on table public.customer_note_versions to authenticated;
grant select on table public.customer_note_versions to service_role;
grant select on table public.customer_notes to authenticated;
grant select on table public.customer_notes to service_role;
grant select on table public.customers to authenticated;
grant select on table public.customers to service_role;
grant select on table public.ticket_field_values to authenticated;
grant select on table public.ticket_field_values to service_role;
grant select on table public.ticket_fields to authenticated;
grant select on table public.ticket_fields to service_role;
grant trigger on table public.companies to authenticated;
grant trigger on table public.companies to service_role;
grant trigger on table public.customer_note_versions to authenticated;
grant trigger on table public.customer_note_versions to service_role;
grant trigger on table public.customer_notes to authenticated;
grant trigger on table public.customer_notes to service_role;
grant trigger on table public.customers to authenticated;
grant trigger on table public.customers to service_role;
grant trigger on table public.ticket_field_values to authenticated;
grant trigger on table public.ticket_field_values to service_role;
grant trigger on table public.ticket_fields to authenticated;
grant trigger on table public.ticket_fields to service_role;
grant truncate on table public.companies to authenticated;
grant truncate on table public.companies to service_role;
grant truncate on table public.customer_note_versions to authenticated;
grant truncate on table public.customer_note_versions to service_role;
grant truncate on table public.customer_notes to authenticated;
grant truncate on table public.customer_notes to service_role;
grant truncate on table public.customers to authenticated;
grant truncate on table public.customers to service_role;
grant truncate on table public.ticket_field_values to authenticated;
grant truncate on table public.ticket_field_values to service_role;
grant truncate on table public.ticket_fields to authenticated;
grant truncate on table public.ticket_fields to service_role;
grant update ("position") on table public.ticket_fields to authenticated;
grant update (body) on table public.customer_notes to authenticated;
grant update (internal) on table public.ticket_fields to authenticated;
grant update (label) on table public.ticket_fields to authenticated;
grant update (name) on table public.companies to authenticated;
grant update (options) on table public.ticket_fields to authenticated;
grant update (required_on_solve) on table public.ticket_fields to authenticated;
grant update (time_zone) on table public.customers to authenticated;
grant update (value) on table public.ticket_field_values to authenticated;
grant update on table public.companies to service_role;
grant update on table public.customer_note_versions to service_role;
grant update on table public.customer_notes to service_role;
grant update on table public.customers to service_role;
grant update on table public.ticket_field_values to service_role;
grant update on table public.ticket_fields to service_role;


-- Privileges db diff left out (its second pass): the column grants are what authorisation allows.
revoke delete on table public.companies from anon;
revoke delete on table public.customer_note_versions from anon;
revoke delete on table public.customer_note_versions from authenticated;
revoke delete on table public.customer_notes from anon;
revoke delete on table public.customers from anon;
revoke delete on table public.customers from authenticated;
revoke delete on table public.ticket_field_values from anon;
revoke delete on table public.ticket_fields from anon;
revoke execute on function private.check_required_fields() from public;
revoke execute on function private.check_ticket_field_value() from public;
revoke execute on function private.company_domain(p_email text) from public;
revoke execute on function private.company_named() from public;
revoke execute on function private.count_customer_tickets() from public;
revoke execute on function private.customer_email_changed() from public;
revoke execute on function private.customer_name_changed() from public;
revoke execute on function private.customer_note_written() from public;
revoke execute on function private.field_options_ok(p_kind ticket_field_kind, p_options text[]) from public;
revoke execute on function private.prefix_pattern(p_query text) from public;
revoke execute on function private.ticket_field_value(p_kind ticket_field_kind, p_options text[], p_value text) from public;
revoke execute on function public.companies_page(p_slug text, p_query text, p_after text, p_limit integer) from anon;
revoke execute on function public.companies_page(p_slug text, p_query text, p_after text, p_limit integer) from public;
revoke execute on function public.company_page(p_slug text, p_domain text, p_after_at timestamp with time zone, p_after_id uuid) from anon;
revoke execute on function public.company_page(p_slug text, p_domain text, p_after_at timestamp with time zone, p_after_id uuid) from public;
revoke execute on function public.customer_page(p_slug text, p_customer_id uuid, p_after_at timestamp with time zone, p_after_id uuid) from anon;
revoke execute on function public.customer_page(p_slug text, p_customer_id uuid, p_after_at timestamp with time zone, p_after_id uuid) from public;
revoke execute on function public.customers_page(p_slug text, p_query text, p_company text, p_after_name text, p_after_id uuid, p_limit integer) from anon;
revoke execute on function public.customers_page(p_slug text, p_query text, p_company text, p_after_name text, p_after_id uuid, p_limit integer) from public;
revoke execute on function public.set_ticket_fields(p_ticket_id uuid, p_values jsonb) from anon;
revoke execute on function public.set_ticket_fields(p_ticket_id uuid, p_values jsonb) from public;
revoke execute on function public.ticket_field_list(p_slug text, p_number integer) from anon;
revoke execute on function public.ticket_field_list(p_slug text, p_number integer) from public;
revoke execute on function public.ticket_field_values_of(p_ticket_ids uuid[]) from anon;
revoke execute on function public.ticket_field_values_of(p_ticket_ids uuid[]) from public;
revoke insert on table public.companies from anon;
revoke insert on table public.companies from authenticated;
revoke insert on table public.customer_note_versions from anon;
revoke insert on table public.customer_note_versions from authenticated;
revoke insert on table public.customer_notes from anon;
revoke insert on table public.customer_notes from authenticated;
revoke insert on table public.customers from anon;
revoke insert on table public.customers from authenticated;
revoke insert on table public.ticket_field_values from anon;
revoke insert on table public.ticket_field_values from authenticated;
revoke insert on table public.ticket_fields from anon;
revoke insert on table public.ticket_fields from authenticated;
revoke maintain on table public.companies from anon;
revoke maintain on table public.customer_note_versions from anon;
revoke maintain on table public.customer_notes from anon;
revoke maintain on table public.customers from anon;
revoke maintain on table public.ticket_field_values from anon;
revoke maintain on table public.ticket_fields from anon;
revoke references on table public.companies from anon;
revoke references on table public.customer_note_versions from anon;
revoke references on table public.customer_notes from anon;
revoke references on table public.customers from anon;
revoke references on table public.ticket_field_values from anon;
revoke references on table public.ticket_fields from anon;
revoke select on table public.companies from anon;
revoke select on table public.customer_note_versions from anon;
revoke select on table public.customer_notes from anon;
revoke select on table public.customers from anon;
revoke select on table public.ticket_field_values from anon;
revoke select on table public.ticket_fields from anon;
revoke trigger on table public.companies from anon;
revoke trigger on table public.customer_note_versions from anon;
revoke trigger on table public.customer_notes from anon;
revoke trigger on table public.customers from anon;
revoke trigger on table public.ticket_field_values from anon;
revoke trigger on table public.ticket_fields from anon;
revoke truncate on table public.companies from anon;
revoke truncate on table public.customer_note_versions from anon;
revoke truncate on table public.customer_notes from anon;
revoke truncate on table public.customers from anon;
revoke truncate on table public.ticket_field_values from anon;
revoke truncate on table public.ticket_fields from anon;
revoke update on table public.companies from anon;
revoke update on table public.companies from authenticated;
revoke update on table public.customer_note_versions from anon;
revoke update on table public.customer_note_versions from authenticated;
revoke update on table public.customer_notes from anon;
revoke update on table public.customer_notes from authenticated;
revoke update on table public.customers from anon;
revoke update on table public.customers from authenticated;
revoke update on table public.ticket_field_values from anon;
revoke update on table public.ticket_field_values from authenticated;
revoke update on table public.ticket_fields from anon;
revoke update on table public.ticket_fields from authenticated;
grant insert ("position") on table public.ticket_fields to authenticated;
grant insert (body) on table public.customer_notes to authenticated;
grant insert (customer_id) on table public.customer_notes to authenticated;
grant insert (domain) on table public.companies to authenticated;
grant insert (field_id) on table public.ticket_field_values to authenticated;
grant insert (internal) on table public.ticket_fields to authenticated;
grant insert (kind) on table public.ticket_fields to authenticated;
grant insert (label) on table public.ticket_fields to authenticated;
grant insert (name) on table public.companies to authenticated;
grant insert (options) on table public.ticket_fields to authenticated;
grant insert (required_on_solve) on table public.ticket_fields to authenticated;
grant insert (ticket_id) on table public.ticket_field_values to authenticated;
grant insert (value) on table public.ticket_field_values to authenticated;
grant insert (workspace_id) on table public.companies to authenticated;
grant insert (workspace_id) on table public.customer_notes to authenticated;
grant insert (workspace_id) on table public.ticket_fields to authenticated;
grant update ("position") on table public.ticket_fields to authenticated;
grant update (body) on table public.customer_notes to authenticated;
grant update (internal) on table public.ticket_fields to authenticated;
grant update (label) on table public.ticket_fields to authenticated;
grant update (name) on table public.companies to authenticated;
grant update (options) on table public.ticket_fields to authenticated;
grant update (required_on_solve) on table public.ticket_fields to authenticated;
grant update (time_zone) on table public.customers to authenticated;
grant update (value) on table public.ticket_field_values to authenticated;

-- The requesters who wrote before customers were kept (added by hand: a backfill).
insert into public.customers (workspace_id, user_id, name, email, tickets, created_at)
select t.workspace_id, t.requester_id, coalesce(min(p.display_name), 'Unknown'), coalesce(lower(min(u.email)), ''),
       count(*), min(t.created_at)
  from public.tickets t
  left join public.profiles p on p.user_id = t.requester_id
  left join auth.users u on u.id = t.requester_id
 group by t.workspace_id, t.requester_id
on conflict do nothing;
