// Broadcast (self, ack, binary frames, REST, from the database), presence, and private channels
// authorized by RLS on realtime.messages, through the gateway with realtime-js.
import type { RealtimeChannel } from '@supabase/supabase-js';
import { afterAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import {
  AGENT_ACME,
  AGENT_GLOBEX,
  newUser,
  rawSocket,
  realtimeClient,
  subscribed,
  userToken,
  type TestClient,
} from '../support/realtime.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

type Broadcast = { type: string; event: string; payload: Record<string, unknown>; meta?: { id: string } };

const stack = stackFixture({ fixture: 'realtime-project' });
const clients: TestClient[] = [];

afterAll(async () => {
  for (const c of clients) await c.close();
});

async function client(sub: string | null, opts: { vsn?: '1.0.0' | '2.0.0' } = {}) {
  const c = realtimeClient(stack, sub ? await userToken(stack, sub) : null, opts);
  clients.push(c);
  return c;
}

/** Joins `topic` and collects its broadcasts. */
async function join(c: TestClient, topic: string, config: Record<string, unknown> = {}) {
  const received: Broadcast[] = [];
  const channel = c.supabase
    .channel(topic, { config })
    .on('broadcast', { event: '*' }, (m) => received.push(m as Broadcast));
  await subscribed(channel);
  return { channel, received };
}

const events = (received: Broadcast[]) => received.map((m) => m.event);

describe('broadcast', () => {
  it('reaches the other subscribers, and the sender only with self', async () => {
    // With ack, each send resolves once the server has sent it on, so the order is known.
    const a = await join(await client(null), 'room-self', { broadcast: { self: true, ack: true } });
    const b = await join(await client(null), 'room-self', { broadcast: { ack: true } });
    await a.channel.send({ type: 'broadcast', event: 'from-a', payload: { n: 1 } });
    await b.channel.send({ type: 'broadcast', event: 'from-b', payload: { n: 2 } });
    await a.channel.send({ type: 'broadcast', event: 'from-a-again', payload: { n: 3 } });
    await waitFor('the broadcasts', () => a.received.length >= 3 && b.received.length >= 2);
    expect(events(a.received)).toEqual(['from-a', 'from-b', 'from-a-again']);
    expect(events(b.received)).toEqual(['from-a', 'from-a-again']);
    expect(b.received[0]).toEqual({ type: 'broadcast', event: 'from-a', payload: { n: 1 } });
  });

  it('replies only when ack is asked for', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    const quiet = s.send('realtime:room-ack', 'phx_join', { config: { broadcast: { ack: false } } });
    await s.next((m) => m.ref === quiet, 'join');
    const unacked = s.send('realtime:room-ack', 'broadcast', { type: 'broadcast', event: 'e', payload: {} }, quiet);
    // Messages are handled in order: once the heartbeat is answered, the broadcast was handled.
    const beat = s.send('phoenix', 'heartbeat', {});
    await s.next((m) => m.ref === beat, 'heartbeat');
    expect(s.received.some((r) => r.message?.ref === unacked)).toBe(false);
    s.close();

    const c = await client(null);
    const { channel } = await join(c, 'room-ack', { broadcast: { ack: true } });
    expect(await channel.send({ type: 'broadcast', event: 'acked', payload: {} })).toBe('ok');
  });

  it('sends a v2 client’s broadcast as a binary frame to v2 subscribers and as JSON to v1 ones', async () => {
    const v1 = await join(await client(null, { vsn: '1.0.0' }), 'room-frames');
    const raw = await rawSocket(stack, { vsn: '2.0.0' });
    const ref = raw.send('realtime:room-frames', 'phx_join', { config: {} });
    await raw.next((m) => m.ref === ref, 'join');
    const sender = await join(await client(null, { vsn: '2.0.0' }), 'room-frames');
    await sender.channel.send({ type: 'broadcast', event: 'hello', payload: { text: 'hi' } });

    await waitFor('the v1 copy', () => v1.received.length);
    expect(v1.received).toEqual([{ type: 'broadcast', event: 'hello', payload: { text: 'hi' } }]);
    const frame = await waitFor('the binary frame', () => raw.received.find((r) => r.binary)?.binary);
    // Kind 4: topic, event and metadata lengths, payload encoding 1 (JSON).
    expect([...frame.subarray(0, 5)]).toEqual([4, 'realtime:room-frames'.length, 'hello'.length, 0, 1]);
    expect(frame.subarray(5).toString()).toBe('realtime:room-frameshello{"text":"hi"}');
    raw.close();
  });

  it('carries binary payloads between v2 clients and not to v1 ones', async () => {
    const v1 = await join(await client(null, { vsn: '1.0.0' }), 'room-bytes');
    const v2 = await join(await client(null), 'room-bytes');
    const sender = await join(await client(null), 'room-bytes');
    await sender.channel.send({ type: 'broadcast', event: 'bytes', payload: new Uint8Array([1, 2, 3]).buffer });
    await sender.channel.send({ type: 'broadcast', event: 'json', payload: {} });
    await waitFor('the messages', () => v2.received.length >= 2 && v1.received.length);
    expect(new Uint8Array(v2.received[0]!.payload as unknown as ArrayBuffer)).toEqual(new Uint8Array([1, 2, 3]));
    expect(events(v1.received)).toEqual(['json']);
  });

  it('takes broadcasts over REST: the batch endpoint and the per-event one (202, no body)', async () => {
    const sub = await join(await client(null), 'room-rest');
    const headers = { apikey: stack.anonKey, 'content-type': 'application/json' };
    const batch = await fetch(`${stack.apiUrl}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ messages: [{ topic: 'room-rest', event: 'batched', payload: { n: 1 }, id: 'm-1' }] }),
    });
    expect(batch.status).toBe(202);
    expect(await batch.text()).toBe('');
    const single = await fetch(`${stack.apiUrl}/realtime/v1/api/broadcast/room-rest/events/single`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ n: 2 }),
    });
    expect(single.status).toBe(202);
    await waitFor('both', () => sub.received.length >= 2);
    expect(sub.received).toEqual([
      { type: 'broadcast', event: 'batched', payload: { n: 1 }, meta: { id: 'm-1' } },
      { type: 'broadcast', event: 'single', payload: { n: 2 } },
    ]);
    // realtime-js: httpSend() posts to the per-event endpoint; send() before joining, to the batch one.
    const unjoined = (await client(null)).supabase.channel('room-rest');
    expect(await unjoined.httpSend('via-http-send', { n: 3 })).toEqual({ success: true });
    expect(await unjoined.send({ type: 'broadcast', event: 'via-send', payload: { n: 4 } })).toBe('ok');
    await waitFor('both', () => sub.received.length >= 4);
    expect(sub.received.slice(2)).toEqual([
      { type: 'broadcast', event: 'via-http-send', payload: { n: 3 } },
      { type: 'broadcast', event: 'via-send', payload: { n: 4 } },
    ]);
  });

  it('answers bad REST broadcasts with upstream’s 4xx', async () => {
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${stack.apiUrl}/realtime/v1/api/broadcast${path}`, {
        method: 'POST',
        headers: { apikey: stack.anonKey, 'content-type': 'application/json', ...headers },
        body,
      });
    const invalid = await post(
      '',
      JSON.stringify({
        messages: [
          { topic: 'x', event: 'e' },
          { topic: 'x', event: 'e', payload: 'no' },
        ],
      }),
    );
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toEqual({
      errors: { messages: [{ payload: ["can't be blank"] }, { payload: ['is invalid'] }] },
    });
    expect((await post('', '{}')).status).toBe(422);
    const unauthorized = await post('', JSON.stringify({ messages: [] }), { authorization: 'Bearer nope' });
    expect([unauthorized.status, await unauthorized.json()]).toEqual([401, { message: 'Unauthorized' }]);
    const media = await post('/t/events/e', 'x', { 'content-type': 'text/plain' });
    expect([media.status, await media.json()]).toEqual([
      415,
      { error: 'Unsupported Media Type. Use application/json or application/octet-stream' },
    ]);
    const notJson = await post('', '{nope');
    expect(notJson.status).toBe(400);
  });

  it('sends realtime.send() from the database, with its id as meta and in the payload', async () => {
    const sub = await join(await client(null), 'room-db');
    await stack.sql(`select realtime.send('{"text": "from SQL"}', 'db-event', 'room-db', false)`);
    const message = await waitFor('the database broadcast', () => sub.received[0]);
    expect(message).toMatchObject({ type: 'broadcast', event: 'db-event', payload: { text: 'from SQL' } });
    expect(message!.meta!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(message!.payload.id).toBe(message!.meta!.id);
  });
});

describe('private channels', () => {
  it('lets a user join a topic the policies let them read, and refuses others', async () => {
    const owner = newUser();
    const other = newUser();
    await join(await client(owner), `room:${owner}`, { private: true });
    const refused = (await client(other)).supabase.channel(`room:${owner}`, { config: { private: true } });
    await expect(subscribed(refused)).rejects.toThrow(
      `Unauthorized: You do not have permissions to read from this Channel topic: room:${owner}`,
    );
    await refused.unsubscribe();
  });

  it('drops broadcasts from users who may not write and delivers those who may', async () => {
    const owner = newUser();
    const visitor = newUser();
    const listener = await join(await client(owner), 'room:lobby', { private: true, broadcast: { ack: true } });
    const guest = await join(await client(visitor), 'room:lobby', { private: true, broadcast: { ack: true } });
    // The lobby is readable by all signed-in users but writable by none: no delivery, no ack.
    const dropped = guest.channel.send({ type: 'broadcast', event: 'graffiti', payload: {} });
    const own = await join(await client(visitor), `room:${visitor}`, {
      private: true,
      broadcast: { ack: true, self: true },
    });
    expect(await own.channel.send({ type: 'broadcast', event: 'mine', payload: {} })).toBe('ok');
    await waitFor('the own-room broadcast', () => own.received.length);
    expect(events(own.received)).toEqual(['mine']);
    expect(await dropped).toBe('timed out');
    expect(listener.received).toEqual([]);
  });

  it('delivers private database broadcasts (broadcast_changes from a trigger) to readers only', async () => {
    const acme = await join(await client(AGENT_ACME), 'workspace:1', { private: true });
    const globex = (await client(AGENT_GLOBEX)).supabase.channel('workspace:1', { config: { private: true } });
    await expect(subscribed(globex)).rejects.toThrow(/Unauthorized/);
    await globex.unsubscribe();
    await stack.sql(`insert into public.tickets (workspace_id, requester_id, subject) values (1, $1, 'Via trigger')`, [
      newUser(),
    ]);
    const message = await waitFor('the trigger broadcast', () => acme.received[0]);
    expect(message).toMatchObject({
      event: 'INSERT',
      payload: {
        operation: 'INSERT',
        table: 'tickets',
        schema: 'public',
        old_record: null,
        record: { subject: 'Via trigger' },
      },
    });
  });

  it('refuses REST broadcasts to a private topic the sender may not write (403)', async () => {
    const res = await fetch(`${stack.apiUrl}/realtime/v1/api/broadcast/room:lobby/events/e?private=true`, {
      method: 'POST',
      headers: {
        apikey: stack.anonKey,
        authorization: `Bearer ${await userToken(stack, newUser())}`,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect([res.status, await res.json()]).toEqual([403, { message: 'Unauthorized' }]);
  });
});

describe('presence', () => {
  it('syncs joins and leaves between clients', async () => {
    const watch = (channel: RealtimeChannel) => {
      const log: string[] = [];
      channel
        .on('presence', { event: 'join' }, ({ key }) => log.push(`join ${key}`))
        .on('presence', { event: 'leave' }, ({ key }) => log.push(`leave ${key}`));
      return log;
    };
    const a = (await client(null)).supabase.channel('lobby-presence', { config: { presence: { key: 'alice' } } });
    const aLog = watch(a);
    await subscribed(a);
    expect(await a.track({ typing: false })).toBe('ok');
    const bClient = await client(null);
    const b = bClient.supabase.channel('lobby-presence', { config: { presence: { key: 'bob' } } });
    watch(b);
    await subscribed(b);
    await waitFor('bob sees alice', () => Object.keys(b.presenceState()).length === 1);
    expect(b.presenceState().alice).toEqual([{ presence_ref: expect.any(String), typing: false }]);
    await b.track({ typing: true });
    await waitFor('alice sees bob', () => aLog.includes('join bob'));
    expect(a.presenceState().bob).toEqual([{ presence_ref: expect.any(String), typing: true }]);
    await b.untrack();
    await waitFor('alice sees bob leave', () => aLog.includes('leave bob'));
    expect(Object.keys(a.presenceState())).toEqual(['alice']);
  });

  it('sends presence_state and presence_diff with Phoenix’s metas and phx_ref', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    const join = s.send('realtime:presence-raw', 'phx_join', { config: { presence: { key: 'me', enabled: true } } });
    await s.next((m) => m.ref === join, 'join');
    expect(await s.next((m) => m.event === 'presence_state', 'state')).toEqual({
      join_ref: join,
      ref: null,
      topic: 'realtime:presence-raw',
      event: 'presence_state',
      payload: {},
    });
    const track = s.send(
      'realtime:presence-raw',
      'presence',
      { type: 'presence', event: 'track', payload: { at: 1 } },
      join,
    );
    expect((await s.next((m) => m.ref === track, 'track reply')).payload).toEqual({ status: 'ok', response: {} });
    const diff = await s.next((m) => m.event === 'presence_diff', 'diff');
    expect(diff).toMatchObject({ join_ref: null, ref: null });
    const joins = diff.payload.joins as Record<string, { metas: Record<string, unknown>[] }>;
    expect(diff.payload.leaves).toEqual({});
    expect(joins.me!.metas).toEqual([{ at: 1, phx_ref: expect.stringMatching(/^[\w-]{16}$/) }]);
    const first = joins.me!.metas[0]!.phx_ref;

    s.send('realtime:presence-raw', 'presence', { type: 'presence', event: 'track', payload: { at: 2 } }, join);
    const update = await s.next((m) => m.event === 'presence_diff' && m !== diff, 'update diff');
    expect(update.payload.leaves).toEqual({ me: { metas: [{ at: 1, phx_ref: first }] } });
    expect((update.payload.joins as typeof joins).me!.metas).toEqual([
      { at: 2, phx_ref: expect.any(String), phx_ref_prev: first },
    ]);
    const bad = s.send('realtime:presence-raw', 'presence', { type: 'presence', event: 'track', payload: 'x' }, join);
    expect((await s.next((m) => m.ref === bad, 'refusal')).payload).toEqual({
      status: 'error',
      response: { reason: 'Presence track payload must be a map' },
    });
    s.close();
  });
});
