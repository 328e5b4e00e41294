-- Every user has a profile (tickets, messages and memberships reference profiles). The sign-up trigger
-- covers users created after 20251122180100; a project that had users before this schema landed gets
-- theirs here, named as the trigger would name them. Idempotent.
insert into public.profiles (user_id, display_name, created_at)
select u.id,
       coalesce(nullif(left(trim(coalesce(u.raw_user_meta_data ->> 'display_name', '')), 60), ''),
                nullif(left(trim(split_part(coalesce(u.email, ''), '@', 1)), 60), ''),
                'user'),
       coalesce(u.created_at, now())
  from auth.users u
 where not exists (select 1 from public.profiles p where p.user_id = u.id)
on conflict (user_id) do nothing;
