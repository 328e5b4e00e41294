-- postgres_changes for the inbox (tickets) and the thread (messages). Realtime applies the
-- subscriber's RLS to each change. The publication comes with the platform (empty, owned by postgres).
alter publication supabase_realtime add table public.tickets, public.messages;
