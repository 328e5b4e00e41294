// What bench:inbox adds to seed:bulk's tickets, shared with bench:rest so both time the same call: a dropdown
// field ("Plan") on one ticket in twenty, notes naming the agent on a hundred tickets (the Mentions count),
// the tags "billing" (one ticket in ten) and "vip" (one in 500), a promise running on one open ticket in
// twenty, and the other agent's five saved views; then vacuumed and written out.
import type { Stack } from '@tend/supabase-local';
import { superuser } from './bench.ts';

/** Adds the inbox benchmarks' rows at Acme; answers the "Plan" field's id. */
export async function addInboxData(stack: Pick<Stack, 'dbUrl'>, agent: string, viewsAgent: string): Promise<string> {
  const field = await superuser(stack, async (c) => {
    const { rows } = await c.query(
      `insert into ticket_fields (workspace_id, label, kind, options)
       select id, 'Plan', 'dropdown', '{Free,Pro}' from workspaces where slug = 'acme' returning id, workspace_id`,
    );
    const f = rows[0] as { id: string; workspace_id: string };
    await c.query(
      `insert into ticket_field_values (ticket_id, field_id, workspace_id, value)
       select t.id, $1, t.workspace_id, case when t.number % 40 = 0 then 'Pro' else 'Free' end
         from tickets t where t.workspace_id = $2 and t.number % 20 = 0`,
      [f.id, f.workspace_id],
    );
    await c.query(
      `insert into message_mentions (message_id, user_id, workspace_id, created_at)
       select m.id, u.id, m.workspace_id, m.created_at
         from (select distinct on (t.id) m.id, m.workspace_id, m.created_at from tickets t
                 join messages m on m.ticket_id = t.id
                where t.workspace_id = $1 order by t.id, m.created_at limit 100) m
         join auth.users u on u.email = $2`,
      [f.workspace_id, agent],
    );
    // Tags (52_triage.sql): "billing" on one ticket in ten, "vip" on one in 500; and a promise running
    // (90_promises.sql) on one in twenty open tickets, due from 20 hours ago to 3 days ahead. Bench data
    // without its history: the row triggers (history lines, updated_at) are skipped, so the rows take their
    // ticket's last_message_at here (ticket_tags_workspace would).
    await c.query('begin');
    await c.query('set local session_replication_role = replica');
    await c.query(
      `insert into tags (workspace_id, name, colour) values ($1, 'billing', 'blue'), ($1, 'vip', 'purple')
       on conflict (workspace_id, name) do nothing`,
      [f.workspace_id],
    );
    await c.query(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id, last_message_at)
       select t.id, g.id, t.workspace_id, t.last_message_at from tickets t join tags g on g.workspace_id = t.workspace_id
        where t.workspace_id = $1 and ((g.name = 'billing' and t.number % 10 = 3) or (g.name = 'vip' and t.number % 500 = 7))
       on conflict do nothing`,
      [f.workspace_id],
    );
    await c.query(
      `insert into ticket_sla (ticket_id, workspace_id, target, started_at, due_at, warn_at)
       select t.id, t.workspace_id, 'first_response', t.created_at, d.due, d.due - interval '1 hour'
         from tickets t, lateral (select now() + ((t.number % 92) - 20) * interval '1 hour' as due) d
        where t.workspace_id = $1 and t.status in ('new', 'open') and t.number % 20 = 0
       on conflict (ticket_id) do nothing`,
      [f.workspace_id],
    );
    await c.query('commit');
    await c.query('analyze tags, ticket_tags, ticket_sla');
    const views: [string, Record<string, unknown>][] = [
      ['Urgent open', { view: 'open', priority: 'urgent' }],
      ['Billing', { view: 'all', tag: ['billing'] }],
      ['Pro plan', { view: 'all', fields: { [f.id]: 'Pro' } }],
      ['Refunds', { view: 'all', q: 'refund' }],
      ['Pending parcels', { view: 'pending', q: 'parcel' }],
    ];
    for (const [i, [name, filters]] of views.entries())
      await c.query(
        `insert into saved_views (workspace_id, owner_id, name, filters, position)
         select $1, u.id, $2, $3, $4 from auth.users u where u.email = $5`,
        [f.workspace_id, name, filters, i, viewsAgent],
      );
    return f.id;
  });
  // What the setup wrote, vacuumed, written out and its log of ticket writes pruned (the saved views' job)
  // now: else autovacuum, the checkpoint and the job's first run land in some page's rounds, as its "db" CPU.
  await superuser(stack, async (c) => {
    await c.query('select private.refresh_saved_view_counts()');
    await c.query('vacuum (analyze)');
    await c.query('checkpoint');
  });
  return field;
}

/**
 * Tickets with `sizes` messages each (replies both ways, a note in ten), written as the app would (the per-row
 * triggers on): the first open tickets at Acme, whose requester and `agent` write them. Answers their numbers.
 */
export async function addThreads(stack: Pick<Stack, 'dbUrl'>, agent: string, sizes: number[]) {
  return superuser(stack, async (c) => {
    const { rows } = await c.query(
      `select t.id, t.number, t.requester_id, m.user_id as agent from tickets t
         join workspaces w on w.id = t.workspace_id and w.slug = 'acme'
         join memberships m on m.workspace_id = w.id
         join auth.users u on u.id = m.user_id and u.email = $1
        where t.status = 'open' order by t.number limit $2`,
      [agent, sizes.length],
    );
    for (const [i, t] of rows.entries())
      await c.query(
        `insert into messages (ticket_id, author_id, kind, body, created_at)
         select $1, case when g % 2 = 0 then $2::uuid else $3::uuid end, case when g % 10 = 0 then 'note' else 'reply' end,
                'Message ' || g || ' of the long thread: ' || repeat('Checked the order and the tracking again. ', 1 + g % 5),
                now() - interval '1 day' + g * interval '1 minute'
           from generate_series(1, $4::int - (select count(*)::int from messages where ticket_id = $1)) g`,
        [t.id, t.requester_id, t.agent, sizes[i]],
      );
    return rows.map((t, i) => ({ number: t.number as number, messages: sizes[i]! }));
  });
}
