-- A workspace's emails: the sender's name and address, the look (accent colour, logo, footer), and the
-- proof that the sender's domain is the workspace's to send from (issue 29 item 1;
-- docs/decisions/046-sender-and-branding.md). Admins set them at /w/:slug/settings/email; notify reads
-- them for every email of the workspace. A custom address is used only once its domain is verified for
-- this workspace: the verify-sender-domain function found the workspace's token, SPF and DKIM in DNS.

create table public.workspace_email_settings (
  workspace_id uuid primary key references public.workspaces (id) on delete cascade,
  sender_name text check (char_length(sender_name) >= 1 and char_length(sender_name) <= 80 and sender_name !~ '[\x00-\x1f"<>]'),
  sender_address extensions.citext
    check (char_length(sender_address) <= 254 and sender_address::text ~ '^[^@\s"<>,;()\\]+@[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$'),
  accent_color text not null default '#1d4ed8' check (accent_color ~ '^#[0-9a-f]{6}$'),
  -- In the public bucket `branding`: <workspace id>/<random>.<ext>.
  logo_path text check (logo_path ~ '^[0-9a-f-]{36}/[0-9a-f-]{36}\.(png|jpg|gif|webp)$'),
  footer text check (char_length(footer) <= 500),
  -- The DKIM selector the email provider gave for the domain (<selector>._domainkey.<domain>).
  dkim_selector text check (dkim_selector ~ '^[a-z0-9]([a-z0-9._-]{0,62})$'),
  -- What the workspace puts in DNS to show the domain is its own: TXT "tend-verification=<token>" at
  -- _tend.<domain>. New with every new domain.
  verification_token text not null default encode(extensions.gen_random_bytes(16), 'hex'),
  -- Written by the verify-sender-domain function only: the domain it verified, and when.
  verified_domain extensions.citext,
  verified_at timestamptz,
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz not null default now()
);
create index workspace_email_settings_updated_by_idx on public.workspace_email_settings (updated_by);

-- Who changed them and when; a sender address at another domain needs a new token and a new check.
create function private.email_settings_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new.updated_by := auth.uid();
  new.updated_at := now();
  if tg_op = 'UPDATE' and lower(split_part(new.sender_address::text, '@', 2)) is distinct from lower(split_part(old.sender_address::text, '@', 2)) then
    new.verification_token := encode(extensions.gen_random_bytes(16), 'hex');
    new.verified_domain := null;
    new.verified_at := null;
  end if;
  return new;
end $$;
create trigger workspace_email_settings_changed before insert or update on public.workspace_email_settings
  for each row execute function private.email_settings_changed();
revoke all on function private.email_settings_changed() from public;

-- Members read them (their emails and the composer show the workspace's look); admins write what they
-- choose; the token and the verification are the database's and the function's.
alter table public.workspace_email_settings enable row level security;
revoke all on public.workspace_email_settings from anon, authenticated;
grant select on public.workspace_email_settings to authenticated;
grant insert (workspace_id, sender_name, sender_address, accent_color, logo_path, footer, dkim_selector),
  update (sender_name, sender_address, accent_color, logo_path, footer, dkim_selector)
  on public.workspace_email_settings to authenticated;
create policy "members read their workspace's email settings" on public.workspace_email_settings
  for select to authenticated using (workspace_id in (select private.member_workspaces()));
create policy "admins set their workspace's email settings" on public.workspace_email_settings
  for insert to authenticated with check (workspace_id in (select private.admin_workspaces()));
create policy "admins change their workspace's email settings" on public.workspace_email_settings
  for update to authenticated
  using (workspace_id in (select private.admin_workspaces())) with check (workspace_id in (select private.admin_workspaces()));

-- The logos: the public bucket `branding` (supabase/config.toml: images, 1 MB), read by anyone with the
-- address (every email shows it); admins add and remove their workspace's, under its id.
create policy "branding: admins list their workspace's" on storage.objects for select to authenticated
  using (bucket_id = 'branding' and (storage.foldername(name))[1] in (select private.admin_workspaces()::text));
create policy "branding: admins upload for their workspace" on storage.objects for insert to authenticated
  with check (bucket_id = 'branding' and (storage.foldername(name))[1] in (select private.admin_workspaces()::text));
create policy "branding: admins remove their workspace's" on storage.objects for delete to authenticated
  using (bucket_id = 'branding' and (storage.foldername(name))[1] in (select private.admin_workspaces()::text));
