// npm run bench:triage: Spam and Trash at volume (docs/decisions/063-spam-and-trash.md), on one fresh local
// stack, in rounds, medians printed:
//   - bulk "Mark as spam" of 1 000 tickets (public.move_tickets through PostgREST, as the inbox's bulk bar
//     calls it per batch), beside a bulk priority change of the same 1 000 (bulk_update_tickets) in the
//     same round, and the ratio of the two;
//   - the scheduler's purge (private.purge_trash, one run: up to 1 000 tickets 30 days in Trash, each with
//     3 messages and a file's row), the database's time per run, and a run with nothing due (what every
//     minute costs).
// Noisy on a shared machine: read the range of the rounds.
//   BENCH_ROUNDS=5 BENCH_TICKETS=1000 npm run bench:triage
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '@tend/supabase-local';
import { accessToken } from './lib/jwt.ts';
import { median, range, superuser } from './lib/bench.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TICKETS = Number(process.env.BENCH_TICKETS ?? 1000);
const AGENT = { id: 'a0000000-0000-4000-8000-000000000002', email: 'agent@acme.test' };
const ACME = 'd0000000-0000-4000-8000-000000000a01';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-triage-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });

/** TICKETS new tickets at Acme, each with 3 messages (and, for the purge, a file's row): their ids. */
const makeTickets = (withFiles: boolean) =>
  superuser(stack, async (c) => {
    const { rows } = await c.query(
      `insert into tickets (workspace_id, requester_id, subject)
       select $1, 'c0000000-0000-4000-8000-000000000001', 'Bench ticket ' || g from generate_series(1, $2) g returning id`,
      [ACME, TICKETS],
    );
    const ids = rows.map((r) => r.id as string);
    await c.query(
      `insert into messages (ticket_id, author_id, kind, body)
       select t, 'c0000000-0000-4000-8000-000000000001', 'reply', 'Message ' || g from unnest($1::uuid[]) t, generate_series(1, 3) g`,
      [ids],
    );
    if (withFiles)
      await c.query(
        `insert into attachments (id, message_id, ticket_id, workspace_id, uploader_id, path, file_name, size, mime_type)
         select gen_random_uuid(), m.id, m.ticket_id, $2::uuid, m.author_id, $2::text || '/' || m.ticket_id || '/' || m.id || '/a.pdf',
                'a.pdf', 10, 'application/pdf'
           from (select distinct on (ticket_id) id, ticket_id, author_id from messages where ticket_id = any ($1::uuid[])) m`,
        [ids, ACME],
      );
    return ids;
  });

/** An RPC through PostgREST as the agent: ms from request to the end of the answer. */
async function rpc(token: string, name: string, body: unknown) {
  const started = performance.now();
  const res = await fetch(`${stack.apiUrl}/rest/v1/rpc/${name}`, {
    method: 'POST',
    headers: { apikey: stack.anonKey, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${name}: ${res.status} ${text}`);
  return performance.now() - started;
}

/** One statement as the superuser (the scheduler's job): ms. */
const timed = (sql: string) =>
  superuser(stack, async (c) => {
    const started = performance.now();
    await c.query(sql);
    return performance.now() - started;
  });

try {
  const token = await accessToken(stack.jwtSecret, {
    sub: AGENT.id,
    email: AGENT.email,
    session_id: crypto.randomUUID(),
  });
  const rows: { round: number; spam: number; priority: number; purge: number; idle: number }[] = [];
  for (let i = 0; i <= ROUNDS; i++) {
    const ids = await makeTickets(false);
    // Alternate which goes first, so drift on the machine falls on both alike.
    const priority = () =>
      rpc(token, 'bulk_update_tickets', { p_ticket_ids: ids, p_action: 'priority', p_value: 'high' });
    const spam = () => rpc(token, 'move_tickets', { p_ticket_ids: ids, p_action: 'spam' });
    const [a, b] = i % 2 ? [await priority(), await spam()] : [await spam(), await priority()];
    const [spamMs, priorityMs] = i % 2 ? [b, a] : [a, b];
    // Back, and the requester with them: the next batch isn't born in Spam.
    await rpc(token, 'move_tickets', { p_ticket_ids: ids, p_action: 'not_spam' });

    const purged = await makeTickets(true);
    await rpc(token, 'move_tickets', { p_ticket_ids: purged, p_action: 'trash' });
    await superuser(stack, (c) =>
      c.query(`update tickets set trashed_at = now() - interval '31 days' where id = any ($1::uuid[])`, [purged]),
    );
    const purge = await timed('select private.purge_trash()');
    const idle = await timed('select private.purge_trash()');
    // Round 0 warms connections, plans and caches.
    if (i > 0) rows.push({ round: i, spam: spamMs, priority: priorityMs, purge, idle });
  }
  const left = await superuser(stack, (c) =>
    c.query('select count(*)::int as n from tickets where trashed_at is not null'),
  );
  console.log(`\nSpam and Trash at Acme, ${TICKETS} tickets a batch, ${ROUNDS} rounds (after a warm-up round)`);
  console.table(
    rows.map((r) => ({
      round: r.round,
      'bulk spam ms': r.spam.toFixed(0),
      'bulk priority ms': r.priority.toFixed(0),
      'spam / priority': (r.spam / r.priority).toFixed(2),
      'purge run ms': r.purge.toFixed(0),
      'idle purge run ms': r.idle.toFixed(1),
    })),
  );
  console.log(
    `median: bulk spam of ${TICKETS} ${median(rows.map((r) => r.spam)).toFixed(0)} ms, bulk priority ${median(rows.map((r) => r.priority)).toFixed(0)} ms,` +
      ` ratio ${median(rows.map((r) => r.spam / r.priority)).toFixed(2)} (rounds ${range(rows.map((r) => r.spam / r.priority))});` +
      ` purge run of ${TICKETS} ${median(rows.map((r) => r.purge)).toFixed(0)} ms, idle run ${median(rows.map((r) => r.idle)).toFixed(1)} ms;` +
      ` tickets left in Trash ${left.rows[0].n}`,
  );
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
