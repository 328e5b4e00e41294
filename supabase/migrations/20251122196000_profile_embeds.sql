-- PostgREST embeds follow foreign keys in exposed schemas only, and auth.users is not exposed. These
-- keys to profiles (every user has one, by trigger) let the inbox and thread embed names, e.g.
--   tickets?select=*,requester:profiles!tickets_requester_profile_fkey(display_name),
--                    assignee:profiles!tickets_assignee_profile_fkey(display_name)
--   messages?select=*,author:profiles!messages_author_profile_fkey(display_name)
--   memberships?select=*,profile:profiles!memberships_user_profile_fkey(display_name)
-- Profiles' own RLS still decides which embedded names a caller sees.
alter table public.tickets
  add constraint tickets_requester_profile_fkey foreign key (requester_id) references public.profiles (user_id),
  add constraint tickets_assignee_profile_fkey foreign key (assignee_id) references public.profiles (user_id);
alter table public.messages add constraint messages_author_profile_fkey foreign key (author_id) references public.profiles (user_id);
alter table public.memberships add constraint memberships_user_profile_fkey foreign key (user_id) references public.profiles (user_id) on delete cascade;
