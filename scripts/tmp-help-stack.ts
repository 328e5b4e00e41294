// TEMPORARY (not committed): a stack with the bench's 5 000 articles, kept running for EXPLAIN work.
import { writeFileSync } from 'node:fs';
import { startStack } from '@tend/supabase-local';
import { superuser } from './lib/bench.ts';

const COMMON = ['account', 'settings', 'order', 'password', 'email', 'invoice', 'team', 'customer'];
const TAIL = Array.from({ length: 30_000 }, (_, i) => `term${i.toString(36)}`);
const ARTICLES = 5000;
const stack = await startStack({ port: 0, dir: '/tmp/helpperf-stack', ephemeral: false, log: () => undefined });
const t1 = performance.now();
await superuser(stack, async (c) => {
  const ws = (await c.query(`select id from public.workspaces where slug = 'acme'`)).rows[0].id as string;
  if ((await c.query('select count(*)::int n from public.help_articles')).rows[0].n > 0) return;
  await c.query(
    `insert into public.help_collections (workspace_id, title, position)
     select $1, 'Collection ' || g, g from generate_series(1, $2) g`,
    [ws, Math.ceil(ARTICLES / 100)],
  );
  await c.query(
    `with words as (select $3::text[] as common, $4::text[] as tail),
          plan as (select g, case when g % 10 = 0 then 2000 else 300 + (g * 37) % 500 end as n from generate_series(1, $2) g)
     insert into public.help_articles (workspace_id, collection_id, title, body, status, position)
     select $1, (select c.id from public.help_collections c where c.workspace_id = $1 and c.position = 1 + (p.g - 1) / 100),
            initcap(w.tail[1 + p.g % 30000]) || ' and your ' || w.common[1 + p.g % 8] || ' ' || p.g,
            '## About ' || w.tail[1 + p.g % 30000] || E'\\n\\n' ||
            (select string_agg(case when i % 9 = 0 then w.common[1 + (i * p.g) % 8] else w.tail[1 + floor(30000 * power(((i * 7919 + p.g * 104729) % 10007) / 10007.0, 3))::int] end
                               || case when i % 60 = 0 then E'.\\n\\n' when i % 12 = 0 then '.' else '' end, ' ')
               from generate_series(1, p.n) i),
            'published', p.g
       from plan p, words w`,
    [ws, ARTICLES, COMMON, TAIL],
  );
  await c.query('vacuum (analyze) public.help_articles, private.help_words');
});
console.log(`articles in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
writeFileSync('/tmp/helpperf-stack.json', JSON.stringify({ dbUrl: stack.dbUrl, apiUrl: stack.apiUrl, anonKey: stack.anonKey }));
console.log(stack.dbUrl, stack.apiUrl);
process.on('SIGTERM', async () => { await stack.stop(); process.exit(0); });
process.on('SIGINT', async () => { await stack.stop(); process.exit(0); });
setInterval(() => undefined, 1 << 30);
