-- Reports for admins: one round trip, the numbers the settings page shows.
-- { since, tickets_by_status {status: n}, created, solved, median_first_response_seconds,
--   by_assignee [{assignee_id, open, solved}] }. Raises forbidden for anyone but the workspace's admins.

create function public.workspace_report(p_workspace_id uuid, p_since timestamptz default now() - interval '30 days')
returns jsonb
language plpgsql stable security invoker set search_path = '' as $$
declare
  out jsonb;
begin
  if not private.is_admin(p_workspace_id) then
    raise exception using errcode = 'P0001', message = 'forbidden', detail = 'admins only';
  end if;
  select jsonb_build_object(
    'since', p_since,
    'tickets_by_status', (select jsonb_object_agg(s, (select count(*) from public.tickets t where t.workspace_id = p_workspace_id and t.status = s))
                            from unnest(enum_range(null::public.ticket_status)) s),
    'created', (select count(*) from public.tickets t where t.workspace_id = p_workspace_id and t.created_at >= p_since),
    'solved', (select count(*) from public.tickets t where t.workspace_id = p_workspace_id and t.solved_at >= p_since),
    'median_first_response_seconds', (select round(extract(epoch from percentile_cont(0.5) within group (order by t.first_response_at - t.created_at)))
                                        from public.tickets t where t.workspace_id = p_workspace_id and t.created_at >= p_since and t.first_response_at is not null),
    'by_assignee', coalesce((select jsonb_agg(jsonb_build_object('assignee_id', a.assignee_id, 'open', a.open, 'solved', a.solved) order by a.open desc, a.assignee_id)
                      from (select t.assignee_id,
                                   count(*) filter (where t.status in ('new', 'open', 'pending')) as open,
                                   count(*) filter (where t.solved_at >= p_since) as solved
                              from public.tickets t where t.workspace_id = p_workspace_id and t.assignee_id is not null group by t.assignee_id) a), '[]'::jsonb)
  ) into out;
  return out;
end $$;
revoke execute on function public.workspace_report(uuid, timestamptz) from public, anon;
grant execute on function public.workspace_report(uuid, timestamptz) to authenticated, service_role;
