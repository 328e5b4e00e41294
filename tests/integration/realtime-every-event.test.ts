// postgres_changes loses no event (issue 25 item 7): 1 000 inserts, in bursts and one at a time, through
// PostgREST, on a durable stack (synchronous commits, as under npm run dev); every subscriber gets every
// row it may see, exactly once.
import { afterAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import {
  AGENT_ACME,
  AGENT_GLOBEX,
  newUser,
  realtimeClient,
  subscribed,
  userToken,
  type TestClient,
} from '../support/realtime.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

// Room for 1 000 changes × 4 receivers in a few seconds: over max_events_per_second (100 by default,
// averaged over 60 s) Realtime skips changes on purpose, as upstream's poller does.
const logged: string[] = [];
const stack = stackFixture({
  fixture: 'realtime-project',
  ephemeral: false,
  log: (line) => logged.push(line),
  configure: (c) => void (c.realtime.maxEventsPerSecond = 100_000),
});
const clients: TestClient[] = [];

afterAll(async () => {
  for (const c of clients) await c.close();
});

/** A client of `sub` counting the subjects of the tickets it is told about. */
async function subscriber(sub: string) {
  const client = realtimeClient(stack, await userToken(stack, sub));
  clients.push(client);
  const got = new Map<string, number>();
  let joined = false;
  const channel = client.supabase
    .channel(`every-${clients.length}`)
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'tickets' }, (p) => {
      const subject = (p.new as { subject: string }).subject;
      got.set(subject, (got.get(subject) ?? 0) + 1);
    })
    .on('system', {}, (p: { extension?: string; status?: string }) => {
      if (p.extension === 'postgres_changes' && p.status === 'ok') joined = true;
    });
  await subscribed(channel);
  await waitFor('postgres_changes joined', () => joined);
  return got;
}

async function insert(requester: string, subject: string) {
  const res = await fetch(`${stack.apiUrl}/rest/v1/tickets`, {
    method: 'POST',
    headers: {
      apikey: stack.anonKey,
      authorization: `Bearer ${await userToken(stack, requester)}`,
      'content-type': 'application/json',
      prefer: 'return=minimal',
    },
    body: JSON.stringify({ workspace_id: 1, requester_id: requester, subject }),
  });
  expect(res.status).toBe(201);
}

describe('postgres_changes', () => {
  it('delivers each of 1 000 inserts to every subscriber that may see it, once', { timeout: 180_000 }, async () => {
    const requester = newUser();
    const agents = await Promise.all([subscriber(AGENT_ACME), subscriber(AGENT_ACME), subscriber(AGENT_ACME)]);
    const own = await subscriber(requester);
    const other = await subscriber(AGENT_GLOBEX);
    const subjects: string[] = [];
    // 500 one at a time, each waiting for its answer, then 500 in bursts of 50 at once.
    for (let i = 0; i < 500; i++) {
      subjects.push(`single ${i}`);
      await insert(requester, `single ${i}`);
    }
    for (let b = 0; b < 10; b++) {
      const burst = Array.from({ length: 50 }, (_, i) => `burst ${b}.${i}`);
      subjects.push(...burst);
      await Promise.all(burst.map((s) => insert(requester, s)));
    }
    const missing = (got: Map<string, number>) => subjects.filter((s) => !got.has(s));
    for (const got of [...agents, own]) {
      await waitFor('every event at every subscriber', () => !missing(got).length, 30_000).catch(() => undefined);
      expect(missing(got)).toEqual([]);
      expect([...got.values()].filter((n) => n !== 1)).toEqual([]);
    }
    expect(other.size).toBe(0); // and nothing to an agent of another workspace
    expect(logged.filter((l) => l.startsWith('[realtime]'))).toEqual([]); // no change failed on its way
  });
});
