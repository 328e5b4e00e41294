-- postgres_changes for the inbox (tickets) and the thread (messages), product.md §7. Realtime applies
-- the subscriber's RLS to each change. Hosted projects let postgres alter supabase_realtime; where the
-- role may not (a stack whose publication another role owns), the migration says so and goes on.
do $$
begin
  if exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    begin
      if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'tickets') then
        alter publication supabase_realtime add table public.tickets;
      end if;
      if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'messages') then
        alter publication supabase_realtime add table public.messages;
      end if;
    exception when insufficient_privilege then
      raise notice 'supabase_realtime is not ours to alter: tickets and messages not published';
    end;
  end if;
end $$;
