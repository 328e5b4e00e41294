// npm run bench:promises: create_ticket's p50/p95 through PostgREST (as the portal calls it) in a
// workspace with SLA targets in business hours and automatic assignment (round robin among three
// agents) beside an identical one without either (today's create_ticket),
// in alternating rounds on one fresh local stack, and the ratio of the two. Issue 28's figure: p95 with
// the promises ≤ 1.5× without, same run. BENCH_CONNECTIONS clients at once, each sending its next
// request when the last is answered. Noisy on a shared machine: read the range of the rounds.
//   BENCH_SECONDS=5 BENCH_ROUNDS=4 BENCH_CONNECTIONS=4 npm run bench:promises
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '@tend/supabase-local';
import { accessToken } from './lib/jwt.ts';
import { median, range, superuser } from './lib/bench.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const TARGET_RATIO = 1.5;
const AGENTS = [
  'a0000000-0000-4000-8000-000000000001',
  'a0000000-0000-4000-8000-000000000002',
  'a0000000-0000-4000-8000-000000000003',
];
const CUSTOMER = { id: 'c0000000-0000-4000-8000-000000000001', email: 'customer@example.test' };

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-promises-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** CONNECTIONS clients creating tickets in `slug` for DURATION seconds: p50, p95 (ms) and how many. */
async function round(slug: string, token: string) {
  const times: number[] = [];
  const until = performance.now() + DURATION * 1000;
  const headers = { apikey: stack.anonKey, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        const res = await fetch(`${stack.apiUrl}/rest/v1/rpc/create_ticket`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ p_workspace_slug: slug, p_subject: 'Printer on fire', p_body: 'It is smoking.' }),
        });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`create_ticket in ${slug}: ${res.status}`);
        times.push(performance.now() - started);
      }
    }),
  );
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), n: times.length };
}

try {
  // Two workspaces alike but for the promises: Mon–Fri hours with a lunch break, a holiday, targets for
  // every priority in business hours.
  await superuser(stack, async (c) => {
    const { rows } = await c.query(
      `insert into workspaces (name, slug, time_zone) values ('Plain', 'bench-plain', 'Europe/Berlin'), ('Promises', 'bench-sla', 'Europe/Berlin')
       returning id, slug`,
    );
    const sla = rows.find((r) => r.slug === 'bench-sla').id;
    await c.query(
      `insert into business_hours (workspace_id, weekday, opens, closes)
       select $1, d, o, c from generate_series(1, 5) d, (values (time '08:00', time '12:00'), (time '13:30', time '18:00')) p(o, c)`,
      [sla],
    );
    await c.query(`insert into holidays (workspace_id, day, name) values ($1, current_date + 3, 'Holiday')`, [sla]);
    await c.query(
      `insert into sla_targets (workspace_id, priority, first_response_minutes, next_response_minutes, resolution_minutes)
       select $1, p, 60, 120, 960 from unnest(enum_range(null::ticket_priority)) p`,
      [sla],
    );
    // The same three seeded agents in both; only one hands tickets out.
    for (const r of rows)
      await c.query(
        `insert into memberships (workspace_id, user_id, role)
         select $1, u, 'agent' from unnest($2::uuid[]) u`,
        [r.id, AGENTS],
      );
    await c.query(`insert into assignment_settings (workspace_id, mode) values ($1, 'round_robin')`, [sla]);
  });
  const token = await accessToken(stack.jwtSecret, {
    sub: CUSTOMER.id,
    email: CUSTOMER.email,
    session_id: crypto.randomUUID(),
  });
  // Warm-up: connections, plans, caches.
  await round('bench-plain', token);
  await round('bench-sla', token);

  const rows: { round: number; plain: Awaited<ReturnType<typeof round>>; sla: Awaited<ReturnType<typeof round>> }[] =
    [];
  for (let i = 1; i <= ROUNDS; i++) {
    // Alternate which goes first, so drift on the machine falls on both alike.
    const [a, b] = i % 2 ? ['bench-plain', 'bench-sla'] : ['bench-sla', 'bench-plain'];
    const first = await round(a, token);
    const second = await round(b, token);
    rows.push({ round: i, plain: a === 'bench-plain' ? first : second, sla: a === 'bench-sla' ? first : second });
  }
  const ratios = rows.map((r) => r.sla.p95 / r.plain.p95);
  console.log(`\ncreate_ticket through PostgREST, ${CONNECTIONS} clients, ${DURATION} s a round, ${ROUNDS} rounds`);
  console.table(
    rows.map((r, i) => ({
      round: r.round,
      'without p50 ms': r.plain.p50.toFixed(1),
      'without p95 ms': r.plain.p95.toFixed(1),
      'with promises p50 ms': r.sla.p50.toFixed(1),
      'with promises p95 ms': r.sla.p95.toFixed(1),
      'p95 ratio': ratios[i]!.toFixed(2),
      tickets: r.plain.n + r.sla.n,
    })),
  );
  const ratio = median(ratios);
  console.log(
    `median p95: without ${median(rows.map((r) => r.plain.p95)).toFixed(1)} ms, with promises ${median(rows.map((r) => r.sla.p95)).toFixed(1)} ms;` +
      ` ratio ${ratio.toFixed(2)} (rounds ${range(ratios)}), target ≤ ${TARGET_RATIO}${ratio > TARGET_RATIO ? '  ← MISSED' : ''}`,
  );
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
