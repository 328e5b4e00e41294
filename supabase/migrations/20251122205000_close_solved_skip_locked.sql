-- The auto-close job (product.md §4: solved → closed after 7 days) at scale and beside the team:
--   * it finds due tickets through a partial index instead of reading every ticket of every workspace;
--   * it skips rows someone holds right now (an agent's post_message or update): it never waits on the
--     team, and the next run closes what it skipped;
--   * the history records the close with no actor (the platform), as before.
create index tickets_solved_due_idx on public.tickets (solved_at) where status = 'solved';

create or replace function public.close_solved_tickets() returns integer
language plpgsql security invoker set search_path = '' as $$
declare
  n integer;
begin
  if not private.is_system() then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'service_role only';
  end if;
  update public.tickets set status = 'closed'
   where id in (select t.id from public.tickets t
                 where t.status = 'solved' and t.solved_at < now() - interval '7 days'
                 for update skip locked);
  get diagnostics n = row_count;
  return n;
end $$;
