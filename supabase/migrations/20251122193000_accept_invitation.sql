-- Accepting an invitation (product.md §4 "Invitation", §7 accept_invitation, §8 codes).
-- The app emails a random token and stores only its sha-256 (invitations.token_hash, lower-case hex).
-- Pending → accepted here; revoked by an admin (revoked_at); expired after expires_at.
-- Raises P0001 with message invitation_invalid (unknown, used, revoked or expired token) or
-- invitation_email_mismatch (signed in with another address; detail is empty on purpose).
create function public.accept_invitation(p_token text)
returns table (workspace_id uuid, slug text, role text)
language plpgsql security definer set search_path = '' as $$
declare
  inv public.invitations;
  me_email text;
begin
  if auth.uid() is null then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'sign in first';
  end if;
  select * into inv from public.invitations i
   where i.token_hash = encode(extensions.digest(coalesce(p_token, ''), 'sha256'), 'hex')
   for update;
  if inv.id is null or inv.accepted_at is not null or inv.revoked_at is not null or inv.expires_at <= now() then
    raise exception using errcode = 'P0001', message = 'invitation_invalid', detail = coalesce(case
      when inv.id is null then 'unknown' when inv.accepted_at is not null then 'accepted'
      when inv.revoked_at is not null then 'revoked' else 'expired' end, 'unknown');
  end if;
  select u.email into me_email from auth.users u where u.id = auth.uid();
  if me_email is null or lower(me_email) <> lower(inv.email::text) then
    raise exception using errcode = 'P0001', message = 'invitation_email_mismatch';
  end if;

  -- An existing member keeps their role unless the invitation makes them an admin.
  insert into public.memberships as m (workspace_id, user_id, role) values (inv.workspace_id, auth.uid(), inv.role)
  on conflict on constraint memberships_pkey do update set role = case when excluded.role = 'admin' then 'admin' else m.role end;
  update public.invitations set accepted_at = now() where id = inv.id;

  return query select w.id, w.slug, m.role from public.workspaces w
    join public.memberships m on m.workspace_id = w.id and m.user_id = auth.uid()
   where w.id = inv.workspace_id;
end $$;

revoke execute on function public.accept_invitation(text) from public, anon;
grant execute on function public.accept_invitation(text) to authenticated, service_role;

-- Pending invitations per workspace and email (resend, "already invited").
create index invitations_pending_idx on public.invitations (workspace_id, email) where accepted_at is null and revoked_at is null;
