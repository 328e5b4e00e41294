set check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.workspace_report(p_slug text, p_from date DEFAULT NULL::date, p_to date DEFAULT NULL::date, p_days integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  ws uuid;
  tz text;
  lo timestamptz;
  hi timestamptz;
  out jsonb;
begin
  -- The workspace (mine, admins only) and the range's local midnights (92_satisfaction.sql), and the
  -- range's days again for the rows by day.
  select r.ws, r.tz, r.lo, r.hi into ws, tz, lo, hi from private.admin_report_range(p_slug, p_from, p_to, p_days) r;
  p_from := (lo at time zone tz)::date;
  p_to := (hi at time zone tz)::date - 1;

  with slots as materialized (
    select s.slot at time zone tz as local, s.created, s.solved
      from private.report_slots s
     where s.workspace_id = ws and s.slot >= lo and s.slot < hi
  ), days as (
    select d.day, coalesce(s.created, 0) as created, coalesce(s.solved, 0) as solved
      from (select g::date as day from pg_catalog.generate_series(p_from, p_to, interval '1 day') g) d
      left join (select s.local::date as day, sum(s.created) as created, sum(s.solved) as solved from slots s group by 1) s using (day)
  ), backlog as (
    select c.status, c.assignee_id, sum(c.n) as n
      from private.ticket_tallies c
     where c.workspace_id = ws and private.is_backlog(c.status)
     group by 1, 2
  )
  select jsonb_build_object(
    'time_zone', tz,
    'from', p_from,
    'to', p_to,
    'days', (select jsonb_agg(jsonb_build_object('day', d.day, 'created', d.created, 'solved', d.solved) order by d.day) from days d),
    'created', (select sum(d.created) from days d),
    'solved', (select sum(d.solved) from days d),
    'first_response', private.report_percentiles(ws, 'first_response', p_from, p_to),
    'resolution', private.report_percentiles(ws, 'resolution', p_from, p_to),
    'backlog_by_status', (
      select jsonb_agg(jsonb_build_object('status', st, 'tickets', coalesce((select sum(b.n) from backlog b where b.status = st), 0)) order by st)
        from unnest(enum_range(null::public.ticket_status)) st where private.is_backlog(st)),
    'backlog_by_assignee', coalesce((
      select jsonb_agg(jsonb_build_object('assignee_id', a.assignee_id, 'name', p.display_name,
                                          'new', a.new, 'open', a.open, 'pending', a.pending, 'tickets', a.tickets)
                       order by a.tickets desc, p.display_name, a.assignee_id)
        from (select b.assignee_id, coalesce(sum(b.n) filter (where b.status = 'new'), 0) as new,
                     coalesce(sum(b.n) filter (where b.status = 'open'), 0) as open,
                     coalesce(sum(b.n) filter (where b.status = 'pending'), 0) as pending, sum(b.n) as tickets
                from backlog b group by 1 having sum(b.n) > 0) a
        left join public.profiles p on p.user_id = a.assignee_id), '[]'::jsonb),
    -- Tickets created, and solved (still solved or closed), in the range, per tag; tags with neither
    -- left out. Read from the tags' tickets (ticket_tags_tag_idx), not rolled up.
    'by_tag', coalesce((
      select jsonb_agg(jsonb_build_object('name', g.name, 'colour', g.colour, 'created', x.created, 'solved', x.solved)
                       order by x.created desc, x.solved desc, g.name)
        from public.tags g
        cross join lateral (
          select count(*) filter (where t.created_at >= lo and t.created_at < hi) as created,
                 count(*) filter (where t.solved_at >= lo and t.solved_at < hi) as solved
            from public.ticket_tags tt join public.tickets t on t.id = tt.ticket_id
           where tt.tag_id = g.id and t.spam_at is null and t.trashed_at is null) x
       where g.workspace_id = ws and (x.created > 0 or x.solved > 0)), '[]'::jsonb),
    'busiest_hours', coalesce((
      select jsonb_agg(jsonb_build_object('weekday', h.weekday, 'hour', h.hour, 'created', h.created) order by h.weekday, h.hour)
        from (select extract(isodow from s.local)::int as weekday, extract(hour from s.local)::int as hour, sum(s.created) as created
                from slots s group by 1, 2 having sum(s.created) > 0) h), '[]'::jsonb)
  ) into out;
  return out;
end $function$
;
