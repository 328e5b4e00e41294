// npm run bench:search — the inbox's searches (public.inbox with a query, supabase/schemas/50_inbox.sql) as
// the database runs them: BENCH_CALLS calls per search in one session as an agent (the claims and role
// PostgREST sets, one transaction a call), Postgres CPU and wall time per call, on a fresh stack with
// BENCH_TICKETS (default 100 000) seed:bulk tickets. With BENCH_BASELINE=<another checkout> its
// public.inbox is installed beside this one (as public.inbox_baseline, from its 50_inbox.sql, with the search's
// own private functions it calls as private.<name>_baseline) and the two alternate in every round, so a change
// to the search is timed against the old one on the same data, and each answer is compared: the two must give
// the same tickets in the same order and cursors, and the same counts per view, or where one side's counts stop
// at a lower cap, counts that agree with it (countsAgree; the "counted" column says each side's total). The data:
// bench:inbox's tags ("billing" on one ticket in ten, "vip" on one in 500) for the `tag:` searches. A plain view and a
// tag's page without words are timed too, and each row's "CPU ÷ view" is its CPU a call over the view's, this side's
// (issues 26 and 27 set a search's targets as a multiple of a view's).
//   BENCH_ROUNDS=5 BENCH_CALLS=30 BENCH_TICKETS=100000 BENCH_BASELINE=../base npm run bench:search
// BENCH_ONLY=<regular expression>: only the searches whose label matches. BENCH_DB_URL=<a running stack's database>:
// that database as it is (seeded once and kept, e.g. 1 M tickets for EXPLAINs), not a fresh stack: no seed, the tags
// added if missing, the baseline's functions replaced.
import { readFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startStack } from '@tend/supabase-local';
import { BASELINE, keepSearchPairs, median, range, seedBulk, superuser } from './lib/bench.ts';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 30);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
const DB_URL = process.env.BENCH_DB_URL;
const AGENT = 'agent@acme.test';
const VIEW = 'view "all", no search';

// [label, view, query, tags]: bench:inbox's searches (scripts/bench-inbox.ts), terms from seed:bulk's texts.
const SEARCHES: [string, string, string | null, string[] | null][] = [
  // No search: a plain view and a tag's page, what a search's CPU is read against ("CPU ÷ view").
  [VIEW, 'all', null, null],
  ['"tag:vip" (no words)', 'all', null, ['vip']],
  ['open, tag vip (no words)', 'open', null, ['vip']],
  // A common tag's page: "billing" on fewer tickets than All and Unassigned have (its tickets walked since 118).
  ['tag billing (no words)', 'all', null, ['billing']],
  ['unassigned, tag billing (no words)', 'unassigned', null, ['billing']],
  ['common word "refund"', 'all', 'refund', null],
  ['rare word "espresso"', 'all', 'espresso', null],
  ['no match "zebra"', 'all', 'zebra', null],
  ['prefix "ref"', 'all', 'ref', null],
  ['"parcel" in Open', 'open', 'parcel', null],
  ['phrase "duplicate charge"', 'all', '"duplicate charge"', null],
  // Two common words that no ticket has together ("tracking" and "number" are in different customers' texts).
  ['two words "tracking number"', 'all', 'tracking number', null],
  ['two words "tracking number", open', 'open', 'tracking number', null],
  // Two common words many tickets have together, and two found together only in notes.
  ['two words "refund parcel"', 'all', 'refund parcel', null],
  ['two words "warehouse delay"', 'all', 'warehouse delay', null],
  ['"tag:billing refund"', 'all', 'refund', ['billing']],
  ['"tag:billing espresso"', 'all', 'espresso', ['billing']],
  // Common words with a tag: two found together in few of billing's tickets, and two no ticket has together.
  ['"tag:billing refund parcel"', 'all', 'refund parcel', ['billing']],
  ['"tag:vip tracking number"', 'all', 'tracking number', ['vip']],
  ['note word "warehouse", open', 'open', 'warehouse', null],
  // In notes only (seed:bulk's notes; "warehouse" is in agents' replies too).
  ['notes-only word "goodwill", open', 'open', 'goodwill', null],
  ["a requester's email", 'all', 'bulk7.acme@example.test', null],
  // A tag no ticket has: matches nothing, and must find that out at once (not by walking every ticket).
  ['"tag:nosuch warehouse", open', 'open', 'warehouse', ['nosuch']],
];

/**
 * The search's and tags' own private functions (50_inbox.sql), which the baseline's public.inbox calls by these names
 * (those its 50_inbox.sql doesn't have are left out).
 */
const SEARCH_FUNCTIONS = [
  'inbox_query',
  'inbox_query_rare',
  'inbox_notes_common',
  'inbox_query_stats',
  'inbox_pin',
  'inbox_prefix_words',
  'inbox_newest_matches',
  'inbox_words_newest',
  'inbox_search_plan',
  'inbox_where',
  'inbox_tag_semijoin',
  'inbox_where_tag',
  'inbox_no_counts',
  'inbox_tag_tickets',
  'inbox_tag_common',
  'inbox_rare_tag',
  'inbox_tag_page_sql',
  'inbox_tags_meet',
  'inbox_tag_hashed',
];

type Counts = Record<string, number> & { capped: boolean };

/**
 * Two answers' counts per view agree: the same, or one side stopped at a lower cap (a search's counts stop at
 * 100 since docs/decisions/092-search-count-cap.md): it says capped, counted fewer in all, and no view more than
 * the other side's when that side counted them exactly.
 */
function countsAgree(a: Counts, b: Counts): boolean {
  if (JSON.stringify(a) === JSON.stringify(b)) return true;
  // (Of two equal totals the capped one is the lower bound: "0+" against an exact 0.)
  const [low, high] = a.all < b.all || (a.all === b.all && a.capped) ? [a, b] : [b, a];
  return low.capped && (high.capped || Object.keys(high).every((k) => k === 'capped' || low[k]! <= high[k]!));
}

/** CPU ms (user + system) a local backend has used, from /proc. */
function backendCpuMs(pid: number): number {
  const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // USER_HZ 100
}

/** public.inbox as the baseline checkout has it, renamed public.inbox_baseline, with its search functions. */
function baselineInbox(dir: string): string {
  const schema = readFileSync(path.join(dir, 'supabase', 'schemas', '50_inbox.sql'), 'utf8');
  const body = /^create function public\.inbox\([\s\S]*?^end \$\$;$/m.exec(schema)?.[0];
  if (!body) throw new Error(`no public.inbox in ${dir}'s 50_inbox.sql`);
  let sql = body.replace('create function public.inbox(', 'create or replace function public.inbox_baseline(');
  for (const name of SEARCH_FUNCTIONS) {
    const fn = new RegExp(`^create function private\\.${name}\\([\\s\\S]*?^(end \\$\\$|\\$\\$);$`, 'm').exec(
      schema,
    )?.[0];
    if (fn) sql += `\n${fn.replace('create function', 'create or replace function')}`;
  }
  for (const name of SEARCH_FUNCTIONS) sql = sql.replaceAll(`private.${name}(`, `private.${name}_baseline(`);
  return sql;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-search-'));
chmodSync(dir, 0o755);
const stack = DB_URL
  ? { dbUrl: DB_URL, stop: async () => undefined }
  : await startStack({
      port: 0,
      dir: path.join(dir, 'data'),
      ephemeral: true,
      log: () => undefined,
    });
try {
  if (TICKETS > 0 && !DB_URL) {
    seedBulk(stack, TICKETS);
    await keepSearchPairs(stack);
  }
  await superuser(stack, async (c) => {
    const tagged = DB_URL
      ? (
          await c.query(
            `select exists (select from ticket_tags r join tags g on g.id = r.tag_id where g.name = 'vip') as x`,
          )
        ).rows[0].x
      : false;
    // bench:inbox's tags, without their history (the row triggers off: each row takes its ticket's time here).
    if (!tagged) {
      await c.query('begin');
      await c.query('set local session_replication_role = replica');
      await c.query(
        `insert into tags (workspace_id, name, colour) select id, 'billing', 'blue' from workspaces where slug = 'acme'
       union all select id, 'vip', 'purple' from workspaces where slug = 'acme' on conflict (workspace_id, name) do nothing`,
      );
      await c.query(
        `insert into ticket_tags (ticket_id, tag_id, workspace_id, last_message_at)
       select t.id, g.id, t.workspace_id, t.last_message_at from tickets t join tags g on g.workspace_id = t.workspace_id
        where (g.name = 'billing' and t.number % 10 = 3) or (g.name = 'vip' and t.number % 500 = 7)
       on conflict do nothing`,
      );
      await c.query('commit');
      await c.query('analyze tags, ticket_tags');
      await c.query('checkpoint');
    }
    if (BASELINE) {
      // Owned by public.inbox's owner, as a security definer function it runs as that role.
      const owner = (
        await c.query(
          `select pg_get_userbyid(proowner) as owner from pg_proc where proname = 'inbox' and pronamespace = 'public'::regnamespace`,
        )
      ).rows[0].owner as string;
      await c.query(`set role "${owner}"`);
      await c.query(baselineInbox(BASELINE));
      await c.query('grant execute on function public.inbox_baseline to authenticated');
      await c.query('reset role');
    }
  });
  const client = new pg.Client({ connectionString: stack.dbUrl });
  await client.connect();
  const agent = (await client.query('select id from auth.users where email = $1', [AGENT])).rows[0].id as string;
  const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid as number;
  const claims = JSON.stringify({ sub: agent, role: 'authenticated' });
  /** One call as PostgREST makes it; the page's ticket ids. */
  const call = async (fn: string, view: string, query: string | null, tags: string[] | null) => {
    await client.query('begin');
    await client.query(`select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`, [
      claims,
    ]);
    const { rows } = await client.query(`select ${fn}('acme', p_view => $1, p_query => $2, p_tags => $3) as page`, [
      view,
      query,
      tags,
    ]);
    await client.query('commit');
    const page = rows[0].page as {
      tickets: { id: string }[];
      search_counts: Counts;
      older: unknown;
    };
    return {
      page: JSON.stringify([page.tickets.map((t) => t.id), page.older]),
      counts: page.search_counts,
    };
  };
  const fns = BASELINE ? ['public.inbox', 'public.inbox_baseline'] : ['public.inbox'];
  const table: Record<string, string | number>[] = [];
  const cpuOf = new Map<string, number>();
  for (const [label, view, query, tags] of SEARCHES.filter(([l]) => !ONLY || ONLY.test(l))) {
    const answers = await Promise.all(fns.map(async (fn) => call(fn, view, query, tags)));
    if (answers.some((a) => a.page !== answers[0]!.page || !countsAgree(a.counts, answers[0]!.counts)))
      throw new Error(`${label}: the two functions answer differently: ${JSON.stringify(answers)}`);
    const wall = fns.map(() => [] as number[]);
    const cpu = fns.map(() => [] as number[]);
    for (let r = 0; r < ROUNDS; r++) {
      // Which goes first alternates with the round.
      for (const i of r % 2 ? [...fns.keys()].reverse() : [...fns.keys()]) {
        const cpu0 = backendCpuMs(pid);
        const t0 = performance.now();
        for (let k = 0; k < CALLS; k++) await call(fns[i]!, view, query, tags);
        wall[i]!.push((performance.now() - t0) / CALLS);
        cpu[i]!.push((backendCpuMs(pid) - cpu0) / CALLS);
      }
    }
    const row: Record<string, string | number> = {
      search: label,
      counted: answers.map((a) => (a.counts ? `${a.counts.all}${a.counts.capped ? '+' : ''}` : '—')).join(' / '),
      'ms/call': median(wall[0]!).toFixed(2),
      'CPU ms/call': median(cpu[0]!).toFixed(2),
    };
    if (BASELINE) {
      const ratios = wall[0]!.map((w, i) => w / wall[1]![i]!);
      const cpuRatios = cpu[0]!.map((c, i) => c / Math.max(cpu[1]![i]!, 0.01));
      Object.assign(row, {
        'baseline ms/call': median(wall[1]!).toFixed(2),
        'baseline CPU ms/call': median(cpu[1]!).toFixed(2),
        'ms ÷ baseline': median(ratios).toFixed(2),
        rounds: range(ratios),
        'CPU ÷ baseline': median(cpuRatios).toFixed(2),
        'CPU rounds': range(cpuRatios),
      });
    }
    table.push(row);
    cpuOf.set(label, median(cpu[0]!));
  }
  // Each search's CPU a call ÷ the plain view's, this side's medians.
  const view = cpuOf.get(VIEW);
  if (view) for (const row of table) row['CPU ÷ view'] = (cpuOf.get(row.search as string)! / view).toFixed(2);
  await client.end();
  console.log(
    `\nbench:search — public.inbox's searches as SQL calls, ${DB_URL ? 'a kept database' : `${TICKETS} bulk tickets`}, medians of ${ROUNDS} rounds of ${CALLS} calls (load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  console.table(table);
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
