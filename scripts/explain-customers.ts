// EXPLAIN of the customer and company pages' queries on a workspace with many customers and tickets
// (docs/decisions/059-customers-and-companies.md): starts a throw-away stack, fills one workspace
// (CUSTOMERS customers over 50 domains, TICKETS tickets), and prints each query's plan with timings.
// `npx tsx scripts/explain-customers.ts [customers] [tickets]`. Plans, not a benchmark: this machine is shared.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startStack } from '@tend/supabase-local';

const CUSTOMERS = Number(process.argv[2] ?? 20_000);
const TICKETS = Number(process.argv[3] ?? 200_000);
const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-explain-'));
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
const pool = new pg.Pool({ connectionString: stack.dbUrl, max: 2 });
const db = { sql: (text: string, params?: unknown[]) => pool.query(text, params) };
try {
  const ws = (await db.sql(`insert into workspaces (slug, name) values ('explain', 'Explain') returning id`)).rows[0]
    .id;
  await db.sql(
    `insert into auth.users (instance_id, id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
     select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
            'person' || g || '@company' || (g % 50) || '.example', '{}', jsonb_build_object('display_name', 'Person ' || md5(g::text)), now(), now()
       from generate_series(1, $1::int) g`,
    [CUSTOMERS],
  );
  const t0 = performance.now();
  await db.sql(
    `with u as (select array_agg(id) ids from auth.users where email like 'person%@company%.example')
     insert into tickets (workspace_id, number, requester_id, subject, last_message_at)
     select $1, g, u.ids[1 + g % array_length(u.ids, 1)], 'Ticket ' || g, now() - g * interval '1 minute'
       from generate_series(1, $2::int) g, u`,
    [ws, TICKETS],
  );
  console.log(
    `${TICKETS} tickets inserted in ${Math.round(performance.now() - t0)} ms (customers kept by the statement trigger)`,
  );
  await db.sql('analyze');
  const { rows: one } = await db.sql(`select user_id from customers where workspace_id = $1 limit 1`, [ws]);
  const plans: [string, string, unknown[]][] = [
    [
      'customers, first page by name',
      `select * from customers c where c.workspace_id = $1 order by c.name_key, c.user_id limit 51`,
      [ws],
    ],
    [
      'customers, search "person 9a" (name or email prefix)',
      `select * from customers c where c.workspace_id = $1 and (c.name_key like $2 or c.email_key like $2) order by c.name_key, c.user_id limit 51`,
      [ws, 'person 9a%'],
    ],
    [
      'customers, search "person1" (common email prefix)',
      `select * from customers c where c.workspace_id = $1 and (c.name_key like $2 or c.email_key like $2) order by c.name_key, c.user_id limit 51`,
      [ws, 'person1%'],
    ],
    [
      "a customer's tickets, newest first",
      `select * from tickets t where t.requester_id = $2 and t.workspace_id = $1 order by t.last_message_at desc, t.id desc limit 26`,
      [ws, one[0].user_id],
    ],
    [
      'companies, first page',
      `select c.company, count(*), sum(c.tickets) from customers c where c.workspace_id = $1 and c.company is not null group by c.company order by c.company limit 51`,
      [ws],
    ],
    [
      "a company's tickets (merge of its customers' newest)",
      `select t.* from customers c cross join lateral (select * from tickets t where t.requester_id = c.user_id and t.workspace_id = $1
         order by t.last_message_at desc, t.id desc limit 26) t where c.workspace_id = $1 and c.company = 'company7.example'
        order by t.last_message_at desc, t.id desc limit 26`,
      [ws],
    ],
  ];
  for (const [name, sql, params] of plans) {
    const { rows } = await db.sql(`explain (analyze, buffers, costs off) ${sql}`, params);
    console.log(`\n## ${name}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
} finally {
  await pool.end();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
