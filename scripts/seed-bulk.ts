// npm run seed:bulk -- --workspace acme --tickets 100000 [--db-url URL]
// Adds realistic volume for benchmarks: tickets spread over a year in every status, each with a
// customer message, most with an agent reply, some with notes. Set-based SQL in batches.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PROJECT_DIR } from '../supabase/local/stack.ts';

const { values } = parseArgs({ options: { workspace: { type: 'string', default: 'acme' }, tickets: { type: 'string', default: '100000' }, 'db-url': { type: 'string' } } });
const total = Number(values.tickets);
if (!Number.isInteger(total) || total < 1) throw new Error('--tickets must be a positive whole number');

function dbUrl(): string {
  if (values['db-url']) return values['db-url'];
  try {
    return JSON.parse(readFileSync(path.join(PROJECT_DIR, '.supabase-local', 'stack.json'), 'utf8')).dbUrl;
  } catch {
    throw new Error('No running stack found: start it with `npm run stack -- start` or pass --db-url.');
  }
}

const BATCH = 10_000;

async function main() {
  const client = new pg.Client({ connectionString: dbUrl() });
  await client.connect();
  const ws = (await client.query('select id from public.workspaces where slug = $1', [values.workspace])).rows[0];
  if (!ws) throw new Error(`No workspace with slug "${values.workspace}".`);
  const people = (await client.query(`select user_id, role from public.memberships where workspace_id = $1`, [ws.id])).rows;
  const agents = people.map((p) => p.user_id);
  // Requesters: the workspace's existing customers plus 200 generated ones.
  await client.query(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, confirmation_token, recovery_token, email_change_token_new,
       email_change, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, email_confirmed_at)
     select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
            'bulk' || g || '.' || $1 || '@example.test', '', '', '', '', '', '{"provider":"email","providers":["email"]}',
            jsonb_build_object('display_name', 'Bulk Customer ' || g), now(), now(), now()
     from generate_series(1, 200) g
     on conflict do nothing`,
    [values.workspace],
  );
  const requesters = (await client.query(`select id from auth.users where email like 'bulk%.' || $1 || '@example.test'`, [values.workspace])).rows.map((r) => r.id);
  const t0 = performance.now();
  for (let done = 0; done < total; done += BATCH) {
    const n = Math.min(BATCH, total - done);
    await client.query('begin');
    // Message bookkeeping runs once per batch below instead of once per row.
    await client.query('alter table public.messages disable trigger messages_bookkeeping');
    const first = (await client.query('update public.workspaces set ticket_seq = ticket_seq + $2 where id = $1 returning ticket_seq - $2 + 1 as first', [ws.id, n])).rows[0].first;
    await client.query(
      `with plan as (
         select g, now() - (random() * interval '365 days') as opened,
                (array['new','open','open','open','pending','pending','solved','solved','solved','closed'])[1 + floor(random() * 10)::int] as status,
                (array['low','normal','normal','normal','high','urgent'])[1 + floor(random() * 6)::int] as priority
         from generate_series(0, $3 - 1) g
       ), t as (
         insert into public.tickets (workspace_id, number, requester_id, subject, status, priority, assignee_id, created_at, last_message_at, solved_at, closed_at)
         select $1, $2 + g, ($4::uuid[])[1 + (g % array_length($4::uuid[], 1))],
                (array['Order','Invoice','Login','Refund','Shipping','Password','Account','Subscription','Delivery','Warranty'])[1 + g % 10]
                  || ' issue: ' || (array['damaged item','wrong amount','cannot sign in','duplicate charge','late parcel','reset link','name change','cancel plan','missing item','broken part'])[1 + (g / 10) % 10]
                  || ' #' || ($2 + g),
                status, priority,
                case when status = 'new' or g % 4 = 0 then null else ($5::uuid[])[1 + (g % array_length($5::uuid[], 1))] end,
                opened, opened,
                case when status in ('solved', 'closed') then opened + interval '2 days' end,
                case when status = 'closed' then opened + interval '9 days' end
         from plan
         returning id, requester_id, assignee_id, status, created_at, workspace_id
       )
       insert into public.messages (ticket_id, workspace_id, author_id, kind, body, created_at)
       select id, workspace_id, requester_id, 'reply', 'Hello, I need help with my order. It has been a few days and nothing has changed. Could you check what is going on?', created_at from t
       union all
       select id, workspace_id, coalesce(assignee_id, ($5::uuid[])[1]), 'reply', 'Thanks for reaching out! I have looked into this and we will sort it out today.', created_at + interval '2 hours' from t where status <> 'new'
       union all
       select id, workspace_id, coalesce(assignee_id, ($5::uuid[])[1]), 'note', 'Checked with the warehouse; tracking shows a delay.', created_at + interval '1 hour' from t where status <> 'new' and random() < 0.3`,
      [ws.id, first, n, requesters, agents],
    );
    // The bookkeeping update is the platform's own, not a status change: no state machine or history.
    await client.query('alter table public.tickets disable trigger tickets_transition, disable trigger tickets_history, disable trigger tickets_search');
    await client.query(
      `update public.tickets t set last_message_at = m.last_at, first_response_at = m.first_agent,
              search = setweight(to_tsvector('english', t.subject), 'A') || to_tsvector('english', coalesce(m.bodies, ''))
         from (select ticket_id, max(created_at) as last_at, min(created_at) filter (where kind = 'reply' and author_id = any($3)) as first_agent,
                      string_agg(body, ' ') filter (where kind = 'reply') as bodies
                 from public.messages where ticket_id in (select id from public.tickets where workspace_id = $1 and number >= $2) group by ticket_id) m
        where m.ticket_id = t.id`,
      [ws.id, first, agents],
    );
    await client.query('alter table public.tickets enable trigger tickets_transition, enable trigger tickets_history, enable trigger tickets_search');
    await client.query('alter table public.messages enable trigger messages_bookkeeping');
    await client.query('commit');
    process.stdout.write(`\r${Math.min(done + n, total)} / ${total} tickets`);
  }
  await client.query('analyze public.tickets, public.messages');
  console.log(`\nAdded ${total} tickets to ${values.workspace} in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
  await client.end();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
