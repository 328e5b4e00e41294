-- Canned replies: a workspace's saved answers. Admins write them, every member inserts them into the
-- composer (docs/product.md#canned-replies-in-the-composer, docs/product.md §6). Placeholders such as
-- {{requester.name}} are filled in by the app (app/lib/helpdesk/canned-replies.ts, one function for the picker and the
-- server); the database only refuses a name it doesn't know, so a typo is caught when the reply is saved, not when it
-- is sent.

-- The names inside {{ }} (spaces around them ignored) that are not placeholders, in order of first use.
-- The same list and pattern as PLACEHOLDERS in app/lib/helpdesk/canned-replies.ts (a test holds them equal).
create function private.unknown_placeholders(p_body text) returns text[]
language sql immutable parallel safe set search_path = '' as $$
  select coalesce(array_agg(u.name order by u.first), '{}')
    from (select btrim(m.match[1]) as name, min(m.n) as first
            from regexp_matches(p_body, '\{\{([^{}]*)\}\}', 'g') with ordinality as m (match, n)
           group by 1) u
   where u.name not in ('requester.name', 'requester.email', 'agent.name', 'ticket.number', 'ticket.subject',
                        'workspace.name')
$$;
-- Check constraints run as the writer: members may call it (it reads nothing).
revoke all on function private.unknown_placeholders(text) from public;
grant execute on function private.unknown_placeholders(text) to authenticated, service_role;

create table public.canned_replies (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  title text not null check (char_length(title) between 1 and 80),
  body text not null check (char_length(body) between 1 and 5000)
    constraint canned_replies_placeholders_known check (private.unknown_placeholders(body) = '{}'),
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  -- The last edit (none yet: null), stamped by canned_replies_edited.
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz
);
-- One title per workspace, whatever its case: the picker lists replies by title. Leads with
-- workspace_id, the column the policies filter by.
create unique index canned_replies_title_key on public.canned_replies (workspace_id, lower(title));

-- Who edited a canned reply, and when, is the database's to say.
create function private.canned_reply_edited() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.updated_by := auth.uid();
  new.updated_at := now();
  return new;
end $$;
create trigger canned_replies_edited before update on public.canned_replies
  for each row execute function private.canned_reply_edited();
revoke all on function private.canned_reply_edited() from public;

alter table public.canned_replies enable row level security;

-- Who wrote a canned reply, and when, is the database's to say.
revoke all on public.canned_replies from anon;
revoke insert, update on public.canned_replies from authenticated;
grant insert (workspace_id, title, body) on public.canned_replies to authenticated;
grant update (title, body) on public.canned_replies to authenticated;
create policy "members read canned replies" on public.canned_replies for select to authenticated
  using (workspace_id in (select private.member_workspaces()));
create policy "admins add canned replies" on public.canned_replies for insert to authenticated
  with check (workspace_id in (select private.admin_workspaces()));
create policy "admins edit canned replies" on public.canned_replies for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));
create policy "admins delete canned replies" on public.canned_replies for delete to authenticated
  using (workspace_id in (select private.admin_workspaces()));
