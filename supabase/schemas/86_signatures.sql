-- An agent's signature (issue 29 item 4; docs/product.md#a-workspaces-emails): set in /account, put under the draft
-- of each reply on the ticket page, where the agent may change or drop it for that reply. The user's
-- own: nobody else reads it here (customers read it in the replies it ends).
create table public.signatures (
  user_id uuid primary key default auth.uid() references auth.users (id) on delete cascade,
  body text not null check (char_length(body) <= 1000 and btrim(body) <> '')
);

alter table public.signatures enable row level security;
revoke all on public.signatures from anon, authenticated;
grant select, delete on public.signatures to authenticated;
grant insert (body), update (body) on public.signatures to authenticated;
create policy "users read their own signature" on public.signatures
  for select to authenticated using (user_id = (select auth.uid()));
create policy "users set their own signature" on public.signatures
  for insert to authenticated with check (user_id = (select auth.uid()));
create policy "users change their own signature" on public.signatures
  for update to authenticated using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy "users remove their own signature" on public.signatures
  for delete to authenticated using (user_id = (select auth.uid()));
