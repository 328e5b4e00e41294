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
  // Everything a ticket's triggers would derive or check per row (number, assignee membership,
  // timestamps, search vector, history) is computed here per batch instead — assignees are drawn
  // from the memberships, numbers from the counter; the per-row triggers are switched off inside the batch's own
  // transaction (other sessions never see them off: they wait for the table lock).
  const TRIGGERS = ['public.tickets:tickets_number', 'public.tickets:tickets_assignee', 'public.tickets:tickets_transition', 'public.tickets:tickets_search', 'public.tickets:tickets_history', 'public.messages:messages_workspace', 'public.messages:messages_bookkeeping'];
  const toggle = async (on: boolean) => {
    for (const [table, trigger] of TRIGGERS.map((t) => t.split(':'))) await client.query(`alter table ${table} ${on ? 'enable' : 'disable'} trigger ${trigger}`);
  };
  for (let done = 0; done < total; done += BATCH) {
    const n = Math.min(BATCH, total - done);
    await client.query('begin');
    // Reserve a block of numbers on the counter row, as create_ticket would one by one.
    const first = (await client.query('update public.workspaces set ticket_seq = ticket_seq + $2 where id = $1 returning ticket_seq - $2 + 1 as first', [ws.id, n])).rows[0].first;
    await client.query(`set local work_mem = '128MB'`);
    await toggle(false);
    await client.query(
      `with texts (customer, agent, note) as (values (
         'Hello, I need help with my order. It has been a few days and nothing has changed. Could you check what is going on?',
         'Thanks for reaching out! I have looked into this and we will sort it out today.',
         'Checked with the warehouse; tracking shows a delay.')
       ), bodies as (
         select *, to_tsvector('english', customer) as customer_vec, to_tsvector('english', customer || ' ' || agent) as thread_vec from texts
       ), plan as (
         select g, opened, status, priority, subject,
                case when status = 'new' or g % 4 = 0 then null else ($5::uuid[])[1 + (g % array_length($5::uuid[], 1))] end as assignee,
                random() < 0.3 as with_note
         from (
           select g, date_trunc('second', now() - (random() * interval '365 days')) as opened,
                  (array['new','open','open','open','pending','pending','solved','solved','solved','closed'])[1 + floor(random() * 10)::int] as status,
                  (array['low','normal','normal','normal','high','urgent'])[1 + floor(random() * 6)::int] as priority,
                  (array['Order','Invoice','Login','Refund','Shipping','Password','Account','Subscription','Delivery','Warranty'])[1 + g % 10]
                    || ' issue: ' || (array['damaged item','wrong amount','cannot sign in','duplicate charge','late parcel','reset link','name change','cancel plan','missing item','broken part'])[1 + (g / 10) % 10]
                    || ' #' || ($2 + g) as subject
           from generate_series(0, $3 - 1) g
         ) p
       ), t as (
         insert into public.tickets (workspace_id, number, requester_id, subject, status, priority, assignee_id, created_at, updated_at,
                                     last_message_at, first_response_at, solved_at, closed_at, search)
         select $1, $2 + g, ($4::uuid[])[1 + (g % array_length($4::uuid[], 1))], subject, status, priority, assignee,
                opened, opened + case when status = 'new' then interval '0' else interval '2 hours' end,
                opened + case when status = 'new' then interval '0' else interval '2 hours' end,
                case when status <> 'new' then opened + interval '2 hours' end,
                case when status in ('solved', 'closed') then opened + interval '2 days' end,
                case when status = 'closed' then opened + interval '9 days' end,
                -- Subject and public replies; notes stay out of the vector (see the followups migration).
                setweight(to_tsvector('english', subject), 'A') || case when status = 'new' then b.customer_vec else b.thread_vec end
         from plan, bodies b
         order by g
         returning id, workspace_id, requester_id, assignee_id, status, created_at, number
       ), history as (
         insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to", created_at)
         select id, workspace_id, requester_id, 'created', null, 'new', created_at from t
         union all
         select id, workspace_id, coalesce(assignee_id, ($5::uuid[])[1]), 'status', 'new', status, created_at + interval '2 hours' from t where status <> 'new'
       )
       insert into public.messages (ticket_id, workspace_id, author_id, kind, body, created_at)
       select t.id, t.workspace_id, t.requester_id, 'reply', b.customer, t.created_at from t, bodies b
       union all
       select t.id, t.workspace_id, coalesce(t.assignee_id, ($5::uuid[])[1]), 'reply', b.agent, t.created_at + interval '2 hours' from t, bodies b where t.status <> 'new'
       union all
       select t.id, t.workspace_id, coalesce(t.assignee_id, ($5::uuid[])[1]), 'note', b.note, t.created_at + interval '1 hour'
         from t join plan p on p.g = t.number - $2, bodies b where t.status <> 'new' and p.with_note`,
      [ws.id, first, n, requesters, agents],
    );
    await toggle(true);
    await client.query('commit');
    process.stdout.write(`\r${Math.min(done + n, total)} / ${total} tickets`);
  }
  // vacuum sets the visibility map, so inbox counts can be index-only scans straight away.
  await client.query('vacuum (analyze) public.tickets, public.messages, public.ticket_events');
  console.log(`\nAdded ${total} tickets to ${values.workspace} in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
  await client.end();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
