-- Ticket custom fields (docs/product.md#customers-companies-and-ticket-fields): admins define a workspace's fields
-- (text, number, date, dropdown, checkbox), members fill them in on the ticket page, and a field "required on solve"
-- must have a value before an agent solves the ticket. The database checks each value against its field
-- and refuses the solve (field_required), whoever writes. A field is internal unless the admin shows it
-- to customers: then the requester may read its value on their own tickets (through the API; the portal
-- doesn't show fields yet).

create type public.ticket_field_kind as enum ('text', 'number', 'date', 'dropdown', 'checkbox');

-- A dropdown's choices: 1 to 50, each 1 to 80 characters, no two alike; other kinds have none.
create function private.field_options_ok(p_kind public.ticket_field_kind, p_options text[]) returns boolean
language sql immutable parallel safe set search_path = '' as $$
  select case when p_kind = 'dropdown' then
      cardinality(p_options) between 1 and 50
      and (select bool_and(char_length(btrim(o)) between 1 and 80 and o = btrim(o)) from unnest(p_options) o)
      and (select count(distinct lower(o)) from unnest(p_options) o) = cardinality(p_options)
    else cardinality(p_options) = 0 end
$$;
revoke all on function private.field_options_ok(public.ticket_field_kind, text[]) from public;
grant execute on function private.field_options_ok(public.ticket_field_kind, text[]) to authenticated, service_role;

create table public.ticket_fields (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  label text not null check (char_length(label) between 1 and 60),
  kind public.ticket_field_kind not null,
  options text[] not null default '{}',
  required_on_solve boolean not null default false,
  -- Internal fields are the team's only; the others the requester may read on their own tickets.
  internal boolean not null default true,
  -- The order on the ticket page and in the CSV (then by creation).
  position integer not null default 0,
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  constraint ticket_fields_options_check check (private.field_options_ok(kind, options))
);
create unique index ticket_fields_label_key on public.ticket_fields (workspace_id, lower(label));

create table public.ticket_field_values (
  ticket_id uuid not null references public.tickets (id) on delete cascade,
  field_id uuid not null references public.ticket_fields (id) on delete cascade,
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  -- In its canonical form (private.ticket_field_value): a number as numeric text, a date as
  -- YYYY-MM-DD, a ticked checkbox as "true" (an unticked one has no row).
  value text not null check (char_length(value) between 1 and 1000),
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz not null default now(),
  primary key (ticket_id, field_id)
);
create index ticket_field_values_field_idx on public.ticket_field_values (field_id, value);
create index ticket_field_values_workspace_idx on public.ticket_field_values (workspace_id);

-- A value as stored for a field of this kind, or null when it isn't one.
create function private.ticket_field_value(p_kind public.ticket_field_kind, p_options text[], p_value text) returns text
language plpgsql immutable set search_path = '' as $$
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
end $$;
revoke all on function private.ticket_field_value(public.ticket_field_kind, text[], text) from public;

-- A value belongs to a field of its ticket's workspace and fits the field (else field_value_invalid,
-- with the field's label); who wrote it and when are the database's.
create function private.check_ticket_field_value() returns trigger
language plpgsql security definer set search_path = '' as $$
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
end $$;
create trigger ticket_field_values_check before insert or update on public.ticket_field_values
  for each row execute function private.check_ticket_field_value();

-- The label of the first required field a ticket lacks to be solved, or null; for members of its
-- workspace (bulk_update_tickets asks it as its caller).
create function private.missing_required_field(p_workspace_id uuid, p_ticket_id uuid) returns text
language sql stable security definer set search_path = '' as $$
  select f.label from public.ticket_fields f
   where f.workspace_id = p_workspace_id and f.required_on_solve and private.is_member(p_workspace_id)
     and not exists (select 1 from public.ticket_field_values v where v.ticket_id = p_ticket_id and v.field_id = f.id)
   order by f.position, f.created_at, f.id
   limit 1
$$;

-- An agent (or admin) solves a ticket only with its required fields filled in: field_required, with
-- the first missing field's label. The requester's own "solved" and the platform are not held up by
-- fields they can't see. After the row is written, so every path (the sidebar, a reply's "send and
-- set status") meets it; a bulk change skips such tickets first (bulk_update_tickets, 52_triage.sql).
create function private.check_required_fields() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  missing text;
begin
  if private.is_member(new.workspace_id) then
    missing := private.missing_required_field(new.workspace_id, new.id);
    if missing is not null then
      raise exception using errcode = 'P0001', message = 'field_required', detail = missing;
    end if;
  end if;
  return null;
end $$;
create trigger tickets_required_fields after update of status on public.tickets
  for each row when (new.status = 'solved' and old.status is distinct from 'solved')
  execute function private.check_required_fields();

revoke all on function private.check_ticket_field_value(), private.check_required_fields() from public;
revoke all on function private.missing_required_field(uuid, uuid) from public, anon;
grant execute on function private.missing_required_field(uuid, uuid) to authenticated;

-- ---------------------------------------------------------------------------------------------
alter table public.ticket_fields enable row level security;
alter table public.ticket_field_values enable row level security;

revoke all on public.ticket_fields, public.ticket_field_values from anon;
-- A field's kind stays what it was made as (its values were checked against it).
revoke insert, update on public.ticket_fields from authenticated;
grant insert (workspace_id, label, kind, options, required_on_solve, internal, position) on public.ticket_fields to authenticated;
grant update (label, options, required_on_solve, internal, position) on public.ticket_fields to authenticated;
create policy "members, and requesters the fields shown to them, read fields" on public.ticket_fields for select to authenticated
  using (workspace_id in (select private.member_workspaces())
         or (not internal and exists (select 1 from public.tickets t where t.workspace_id = ticket_fields.workspace_id
                                                                      and t.requester_id = (select auth.uid()))));
create policy "admins add fields" on public.ticket_fields for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins edit fields" on public.ticket_fields for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins delete fields" on public.ticket_fields for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));

revoke insert, update on public.ticket_field_values from authenticated;
grant insert (ticket_id, field_id, value) on public.ticket_field_values to authenticated;
grant update (value) on public.ticket_field_values to authenticated;
create policy "members, and requesters the shown values of their tickets, read values" on public.ticket_field_values for select to authenticated
  using (workspace_id in (select private.member_workspaces())
         or (exists (select 1 from public.tickets t where t.id = ticket_id and t.requester_id = (select auth.uid()))
             and exists (select 1 from public.ticket_fields f where f.id = field_id and not f.internal)));
-- The trigger sets workspace_id from the ticket; the policy then checks it.
create policy "members fill in fields" on public.ticket_field_values for insert to authenticated
  with check (workspace_id in (select private.member_workspaces()));
create policy "members change field values" on public.ticket_field_values for update to authenticated
  using (workspace_id in (select private.member_workspaces())) with check (workspace_id in (select private.member_workspaces()));
create policy "members clear field values" on public.ticket_field_values for delete to authenticated
  using (workspace_id in (select private.member_workspaces()));

-- ---------------------------------------------------------------------------------------------
-- A ticket's fields (by workspace address and number), in order, with its values: for the ticket page's
-- sidebar, asked beside ticket_page. Through RLS (security invoker): a member gets every field, anyone
-- else none.
create function public.ticket_field_list(p_slug text, p_number integer) returns jsonb
language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'label', f.label, 'kind', f.kind, 'options', f.options,
                                               'required_on_solve', f.required_on_solve, 'value', v.value)
                            order by f.position, f.created_at, f.id), '[]')
    from public.workspaces w
    join public.tickets t on t.workspace_id = w.id and t.number = p_number
    join public.ticket_fields f on f.workspace_id = w.id and private.is_member(w.id)
    left join public.ticket_field_values v on v.ticket_id = t.id and v.field_id = f.id
   where w.slug = p_slug
$$;
revoke all on function public.ticket_field_list(text, integer) from public, anon;
grant execute on function public.ticket_field_list(text, integer) to authenticated, service_role;

-- Set a ticket's fields in one transaction: p_values maps field ids to values; an empty value (or
-- null) clears the field. Through RLS: only members of the ticket's workspace.
create function public.set_ticket_fields(p_ticket_id uuid, p_values jsonb) returns void
language plpgsql security invoker set search_path = '' as $$
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
end $$;
revoke all on function public.set_ticket_fields(uuid, jsonb) from public, anon;
grant execute on function public.set_ticket_fields(uuid, jsonb) to authenticated, service_role;

-- The field values of many tickets (the CSV export's page of up to 1 000), through RLS.
create function public.ticket_field_values_of(p_ticket_ids uuid[])
returns table (ticket_id uuid, field_id uuid, value text)
language sql stable security invoker set search_path = '' as $$
  select v.ticket_id, v.field_id, v.value from public.ticket_field_values v where v.ticket_id = any (p_ticket_ids)
$$;
revoke all on function public.ticket_field_values_of(uuid[]) from public, anon;
grant execute on function public.ticket_field_values_of(uuid[]) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- A custom field's change in the ticket's history (58_ticket_fields.sql), whatever wrote it: the field's
-- label then, the old and new values (a ticked checkbox: "yes"; null: empty). A field deleted by an admin,
-- or a ticket being deleted, writes nothing. Members read it, as all history.
create function private.ticket_field_history() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  r public.ticket_field_values := case when tg_op = 'DELETE' then old else new end;
  f public.ticket_fields;
  shown_old text;
  shown_new text;
begin
  if tg_op = 'UPDATE' and new.value is not distinct from old.value then
    return null;
  end if;
  select * into f from public.ticket_fields where id = r.field_id;
  if f.id is null or not exists (select 1 from public.tickets t where t.id = r.ticket_id) then
    return null;
  end if;
  if tg_op <> 'INSERT' then
    shown_old := case when f.kind = 'checkbox' then 'yes' else old.value end;
  end if;
  if tg_op <> 'DELETE' then
    shown_new := case when f.kind = 'checkbox' then 'yes' else new.value end;
  end if;
  insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, field, "from", "to")
  values (r.ticket_id, f.workspace_id, auth.uid(), 'field', f.label, shown_old, shown_new);
  return null;
end $$;
create trigger ticket_field_values_history after insert or update or delete on public.ticket_field_values
  for each row execute function private.ticket_field_history();
revoke all on function private.ticket_field_history() from public;
