// The realtime service restarting and its database connections breaking (as when Postgres restarts):
// clients are told, rejoin on their own, and get changes again; no replication slot is left behind.
import type { RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import { afterAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { AGENT_ACME, newUser, realtimeClient, userToken, type TestClient } from '../support/realtime.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const stack = stackFixture({ fixture: 'realtime-project' });
const clients: TestClient[] = [];

afterAll(async () => {
  for (const c of clients) await c.close();
});

/** An agent listening to ticket inserts, with every subscribe status and system message it sees. */
async function agent() {
  const client = realtimeClient(stack, await userToken(stack, AGENT_ACME));
  clients.push(client);
  await client.supabase.realtime.setAuth();
  const log = { statuses: [] as string[], systems: [] as Record<string, unknown>[], subjects: [] as string[] };
  client.supabase
    .channel('inbox')
    .on(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'tickets' },
      (p: RealtimePostgresChangesPayload<{ subject: string }>) =>
        log.subjects.push((p.new as { subject: string }).subject),
    )
    .on('system', {}, (p) => log.systems.push(p))
    .subscribe((status) => log.statuses.push(status));
  return log;
}

const live = (log: Awaited<ReturnType<typeof agent>>) =>
  log.systems.filter((s) => s.extension === 'postgres_changes' && s.status === 'ok').length;

const insertTicket = (subject: string) =>
  stack.sql('insert into public.tickets (workspace_id, requester_id, subject) values (1, $1, $2)', [
    newUser(),
    subject,
  ]);

const slots = async () => (await stack.sql('select slot_name, temporary from pg_replication_slots')).rows;

describe('resilience', () => {
  it('uses one temporary replication slot, which goes with the service', async () => {
    await waitFor('the slot', async () => (await slots()).length === 1);
    const before = await slots();
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ temporary: true });
    await stack.realtime!.stop();
    // Postgres drops the slot as the connection's backend exits, a moment after the connection closes.
    await waitFor('the slot dropped', async () => (await slots()).length === 0);
    await stack.realtime!.start();
    await waitFor('a new slot', async () => (await slots()).length === 1);
  });

  it('clients reconnect after the realtime service restarts and get changes again', async () => {
    const log = await agent();
    await waitFor('subscribed', () => live(log) === 1);
    await insertTicket('before the restart');
    await waitFor('the first ticket', () => log.subjects.length === 1);

    await stack.realtime!.stop();
    await waitFor('the client noticing', () => log.statuses.includes('CHANNEL_ERROR'));
    await stack.realtime!.start();
    await waitFor('subscribed again', () => live(log) === 2, 30_000);
    await insertTicket('after the restart');
    await waitFor('the second ticket', () => log.subjects.length === 2);
    expect(log.subjects).toEqual(['before the restart', 'after the restart']);
  });

  it('tells channels when the database connection breaks, and they get changes again once it is back', async () => {
    const log = await agent();
    await waitFor('subscribed', () => live(log) === 1);
    // What a Postgres restart does to the service's connections: every one of them ends.
    await stack.sql(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where pid <> pg_backend_pid() and (backend_type = 'walsender' or usename = 'supabase_admin')`,
    );
    const lost = await waitFor('the error', () => log.systems.find((s) => s.status === 'error'));
    expect(lost).toEqual({
      extension: 'postgres_changes',
      status: 'error',
      message: 'Realtime was unable to connect to the project database',
      channel: 'inbox',
    });
    await waitFor('rejoined', () => log.statuses.filter((s) => s === 'SUBSCRIBED').length === 2, 30_000);
    await waitFor('subscribed again', () => live(log) === 2, 30_000);
    await insertTicket('after the outage');
    await waitFor('the ticket', () => log.subjects.includes('after the outage'));
    expect(await slots()).toHaveLength(1);
  });
});
