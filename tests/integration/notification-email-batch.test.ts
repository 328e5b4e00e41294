// Notifications emailed "each time" go out in batches (docs/decisions/101-notification-emails-in-batches.md):
// one call of notify sends every queued one. Notices committed while batches run are all sent, each once,
// without the retry job; a batch whose Deno worker is killed with kill -9 mid-send, and a call that pg_net's
// sender took and never delivered, leave nothing unsent: the retry job (and the next notice) send them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { waitFor } from '../../scripts/lib/wait.ts';
import { ACME, PEOPLE, openTicket, startDbStack, type DbStack } from '../support/db.ts';

const AGENT = PEOPLE.acmeAgent2;
let db: DbStack;
let envDir: string;
let relay: net.Server;
let catcherPort = 0;
// While held, what notify writes to the catcher waits in the relay: its SMTP sessions stall mid-send.
let held = false;
const sessions = new Set<{ client: net.Socket; upstream: net.Socket; queue: Buffer[] }>();

beforeAll(async () => {
  relay = net.createServer((client) => {
    const upstream = net.connect(catcherPort, '127.0.0.1');
    const s = { client, upstream, queue: [] as Buffer[] };
    sessions.add(s);
    client.on('data', (d) => (held ? s.queue.push(d) : upstream.write(d)));
    upstream.on('data', (d) => client.write(d));
    for (const x of [client, upstream]) {
      x.on('error', () => undefined);
      x.on('close', () => {
        sessions.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  envDir = mkdtempSync(path.join(os.tmpdir(), 'tend-batch-'));
  const envFile = path.join(envDir, '.env');
  const port = (relay.address() as net.AddressInfo).port;
  writeFileSync(envFile, `APP_URL=http://localhost:3999\nSMTP_HOST=127.0.0.1\nSMTP_PORT=${port}\n`);
  db = await startDbStack({ functionsEnvFile: envFile });
  catcherPort = db.stack.smtpPort;
}, 120_000);
afterAll(async () => {
  for (const s of sessions) s.client.destroy();
  relay?.close();
  await db?.teardown();
  rmSync(envDir, { recursive: true, force: true });
});

function release() {
  held = false;
  for (const s of sessions) for (const d of s.queue.splice(0)) s.upstream.write(d);
}

/** `n` tickets, and Agent 2 told of each ("assigned", emailed each time), each in a transaction of its own. */
async function notices(n: number, label: string, clients = 1) {
  const tickets: { id: string }[] = [];
  for (let i = 0; i < n; i++) tickets.push(await openTicket(db, 'acmeCustomer', `${label} ${i}`));
  const ids: string[] = [];
  const per = Math.ceil(n / clients);
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (const t of tickets.slice(c * per, (c + 1) * per)) {
        const { rows } = await db.sql(`select private.notify_member($1, $2, 'assigned', $3, null, null) as id`, [
          ACME,
          AGENT.id,
          t.id,
        ]);
        ids.push(rows[0].id);
      }
    }),
  );
  return ids;
}

/** How many emails of `label`'s tickets the catcher holds, by subject. */
async function received(label: string) {
  const counts = new Map<string, number>();
  for (const m of await messagesTo(db.stack.mailUrl, AGENT.email, { notifications: true }))
    if (m.Subject.includes(label)) counts.set(m.Subject, (counts.get(m.Subject) ?? 0) + 1);
  return counts;
}

const emailed = async (ids: string[]) =>
  (await db.sql('select count(*)::int as n from notifications where id = any($1) and emailed_at is not null', [ids]))
    .rows[0].n as number;

const setProjectUrl = (url: string) =>
  db.sql(`select vault.update_secret(id, $1) from vault.secrets where name = 'project_url'`, [url]);

const deliveries = async (ids: string[], status: string) =>
  (
    await db.sql(
      `select count(*)::int as n from email_deliveries d join notifications n on d.message_id = '<n.' || n.id || '@tend.localhost>'
        where n.id = any($1) and d.status = $2`,
      [ids, status],
    )
  ).rows[0].n as number;

describe('notifications emailed in batches', () => {
  it('sends every notice committed while batches run, each once, without the retry job', async () => {
    const ids = await notices(40, 'Busy', 4);
    await waitFor('every notice emailed', async () => (await emailed(ids)) === 40);
    const counts = await received('Busy');
    expect(counts.size).toBe(40);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(await deliveries(ids, 'sent')).toBe(40);
    expect((await db.sql('select count(*)::int as n from private.notification_emails')).rows[0].n).toBe(0);
  });

  it('after kill -9 of notify’s worker mid-batch, the retry job sends what it had claimed, once', async () => {
    held = true;
    const ids = await notices(10, 'Killed');
    // The batch claimed all ten and is stuck writing to the catcher.
    await waitFor('the batch claimed every notice', async () => (await deliveries(ids, 'sending')) === 10);
    const pid = db.stack.processes().find((p) => p.name === 'deno notify')!.pid;
    process.kill(pid, 'SIGKILL');
    await waitFor('the worker gone', () => !db.stack.processes().some((p) => p.pid === pid));
    for (const s of sessions) s.queue.length = 0; // what the dead worker had half-written never arrives
    release();
    expect(await emailed(ids)).toBe(0);
    // Two minutes later the claims count as dead; the retry job (every 10 minutes) asks again.
    await db.sql(
      `update email_deliveries set claimed_at = claimed_at - interval '3 minutes' where message_id like '<n.%' and status = 'sending'`,
    );
    await db.sql('select private.retry_failed_emails()'); // as the cron job runs it
    await waitFor('every notice emailed', async () => (await emailed(ids)) === 10);
    const counts = await received('Killed');
    expect(counts.size).toBe(10);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  });

  it('when pg_net’s sender took a call and never delivered it, the next notice or the retry job sends the queue', async () => {
    // Calls that go nowhere: what a sender killed after taking them from the queue leaves.
    const { rows } = await db.sql(
      `select decrypted_secret as url from vault.decrypted_secrets where name = 'project_url'`,
    );
    await setProjectUrl('http://127.0.0.1:9');
    let lost: string[];
    try {
      lost = await notices(3, 'Lost');
      await waitFor('the call answered (refused)', async () => {
        const q = await db.sql('select count(*)::int as n from net.http_request_queue');
        return q.rows[0].n === 0;
      });
    } finally {
      await setProjectUrl(rows[0].url);
    }
    // A notice within the lost call's 30 s counts on it: nothing goes yet.
    const waiting = await notices(1, 'Lost later');
    expect((await db.sql('select count(*)::int as n from net.http_request_queue')).rows[0].n).toBe(0);
    expect(await emailed([...lost, ...waiting])).toBe(0);
    // A minute later the retry job asks for the queue.
    await db.sql(`update private.notification_emails set queued_at = queued_at - interval '2 minutes'`);
    await db.sql('select private.retry_failed_emails()'); // as the cron job runs it
    await waitFor('the queue emailed', async () => (await emailed([...lost, ...waiting])) === 4);
    expect((await received('Lost')).size).toBe(4);

    // Again, and this time the next notice after the call's 30 s sends the queue with it.
    await setProjectUrl('http://127.0.0.1:9');
    let stranded: string[];
    try {
      stranded = await notices(2, 'Stranded');
    } finally {
      await setProjectUrl(rows[0].url);
    }
    await waitFor('the call answered (refused)', async () => {
      const q = await db.sql('select count(*)::int as n from net.http_request_queue');
      return q.rows[0].n === 0;
    });
    await db.sql(`update private.notification_email_calls set queued_at = queued_at - interval '31 seconds'`);
    const next = await notices(1, 'Stranded next');
    await waitFor('the queue emailed', async () => (await emailed([...stranded, ...next])) === 3);
  });
});
