// Realtime's wire protocol through the gateway: the upgrade, join and its replies, heartbeat, both
// serializers, leaving, tokens (refresh, expiry) and the project's limits.
import { describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import WebSocket from 'ws';
import { AGENT_ACME, rawSocket, realtimeClient, subscribed, userToken } from '../support/realtime.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const stack = stackFixture({
  fixture: 'realtime-project',
  configure: (c) => {
    c.realtime.maxChannelsPerClient = 3;
    c.realtime.maxConcurrentUsers = 5;
    c.realtime.maxEventsPerSecond = 20;
  },
});

describe('the websocket', () => {
  it('answers a heartbeat on topic phoenix with an ok reply carrying the same ref', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    const ref = s.send('phoenix', 'heartbeat', {});
    const reply = await s.next((m) => m.ref === ref, 'heartbeat reply');
    expect(reply).toEqual({
      join_ref: null,
      ref,
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
    });
    s.close();
  });

  it('closes a connection that sends a frame over 5 MB with 1009, as Phoenix past max_frame_size', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    const closed = new Promise<number>((resolve) => s.ws.once('close', (code: number) => resolve(code)));
    s.ws.send(JSON.stringify([null, '1', 'realtime:big', 'broadcast', { pad: 'x'.repeat(5_000_000) }]));
    expect(await closed).toBe(1009);
  });

  it('speaks 1.0.0 as JSON objects without join_ref, the default when no vsn is given', async () => {
    const s = await rawSocket(stack);
    const ref = s.send('realtime:v1-room', 'phx_join', { config: {} });
    const reply = await s.next((m) => m.ref === ref, 'join reply');
    const raw = JSON.parse(s.received.find((r) => r.message === reply)!.text!);
    expect(raw).toEqual({
      topic: 'realtime:v1-room',
      event: 'phx_reply',
      payload: { status: 'ok', response: { postgres_changes: [] } },
      ref,
    });
    s.close();
  });

  it('refuses an unknown serializer version and a missing or bad apikey at the upgrade', async () => {
    const url = `${stack.apiUrl.replace('http', 'ws')}/realtime/v1/websocket`;
    const refused = (query: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${url}?${query}`);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => resolve(101));
      });
    expect(await refused(`apikey=${stack.anonKey}&vsn=3.0.0`)).toBe(400);
    expect(await refused('vsn=2.0.0')).toBe(401);
    expect(await refused(`apikey=${stack.anonKey}x&vsn=2.0.0`)).toBe(401);
  });

  it('replies "unmatched topic" to a message for a channel not joined, and ok to leaving one', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    const ref = s.send('realtime:nowhere', 'broadcast', { type: 'broadcast', event: 'x', payload: {} }, '9');
    expect((await s.next((m) => m.ref === ref, 'reply')).payload).toEqual({
      status: 'error',
      response: { reason: 'unmatched topic' },
    });
    const leave = s.send('realtime:nowhere', 'phx_leave', {}, '9');
    expect((await s.next((m) => m.ref === leave, 'leave reply')).payload).toEqual({ status: 'ok', response: {} });
    s.close();
  });
});

describe('joining', () => {
  it('replies ok echoing each postgres_changes entry with an id, then says the subscription is live', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    const entries = [
      { event: 'INSERT', schema: 'public', table: 'tickets' },
      { event: '*', schema: 'public', table: 'announcements', filter: 'pinned=eq.true' },
    ];
    const ref = s.send('realtime:join-shape', 'phx_join', {
      config: {
        broadcast: { ack: false, self: false },
        presence: { key: '', enabled: false },
        postgres_changes: entries,
        private: false,
      },
      access_token: await userToken(stack, AGENT_ACME),
    });
    const reply = await s.next((m) => m.ref === ref, 'join reply');
    expect(reply.join_ref).toBe(ref);
    expect(reply.payload.status).toBe('ok');
    const echoed = (reply.payload.response as { postgres_changes: Record<string, unknown>[] }).postgres_changes;
    expect(echoed.map(({ id: _id, ...rest }) => rest)).toEqual(entries);
    for (const e of echoed) expect(Number.isInteger(e.id) && (e.id as number) >= 0).toBe(true);
    const system = await s.next((m) => m.event === 'system', 'system message');
    expect(system).toEqual({
      join_ref: ref,
      ref: null,
      topic: 'realtime:join-shape',
      event: 'system',
      payload: {
        extension: 'postgres_changes',
        status: 'ok',
        message: 'Subscribed to PostgreSQL',
        channel: 'join-shape',
      },
    });
    s.close();
  });

  it('gives identical entries identical ids, and reports a table outside the publication as a system error', async () => {
    const client = realtimeClient(stack, await userToken(stack, AGENT_ACME));
    const systems: Record<string, unknown>[] = [];
    const channel = client.supabase
      .channel('not-published')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'drafts' }, () => undefined)
      .on('system', {}, (p) => systems.push(p));
    await subscribed(channel);
    const error = await waitFor('system error', () => systems.find((p) => p.status === 'error'));
    expect(error).toMatchObject({
      extension: 'postgres_changes',
      channel: 'not-published',
      message:
        'Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [event: *, schema: public, table: drafts, filters: [], select: nil]',
    });
    await client.close();
  });

  it('reports a filter on a column the user may not read as an exception', async () => {
    const client = realtimeClient(stack, await userToken(stack, AGENT_ACME));
    const systems: Record<string, unknown>[] = [];
    const channel = client.supabase
      .channel('hidden-column-filter')
      .on(
        'postgres_changes',
        { event: '*', schema: 'public', table: 'tickets', filter: 'internal_note=eq.x' },
        () => undefined,
      )
      .on('system', {}, (p) => systems.push(p));
    await subscribed(channel);
    const error = await waitFor('system error', () => systems.find((p) => p.status === 'error'));
    expect(error.message).toBe(
      'Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [event: *, schema: public, table: tickets, filters: [{"internal_note", "eq", "x", false}], select: nil]. Exception: ERROR P0001 (raise_exception) invalid column for filter internal_note',
    );
    await client.close();
  });

  it('refuses a join with an expired token as upstream words it', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    const ref = s.send('realtime:expired', 'phx_join', {
      config: {},
      access_token: await userToken(stack, AGENT_ACME, -10),
    });
    const reply = await s.next((m) => m.ref === ref, 'join reply', 20_000);
    expect(reply.payload.status).toBe('error');
    expect((reply.payload.response as { reason: string }).reason).toMatch(
      /^InvalidJWTToken: Token has expired \d+ seconds ago$/,
    );
    s.close();
  });

  it('refuses a channel past max_channels_per_client with ChannelRateLimitReached', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    for (const n of [1, 2, 3]) {
      const ref = s.send(`realtime:many-${n}`, 'phx_join', { config: {} });
      expect((await s.next((m) => m.ref === ref, `join ${n}`)).payload.status).toBe('ok');
    }
    const ref = s.send('realtime:many-4', 'phx_join', { config: {} });
    const reply = await s.next((m) => m.ref === ref, 'fourth join', 20_000);
    expect(reply.payload).toEqual({
      status: 'error',
      response: { reason: 'ChannelRateLimitReached: Too many channels' },
    });
    s.close();
  });

  it('refuses a connection past max_concurrent_users (connections with a channel) with 429', async () => {
    const sockets = [];
    for (let n = 0; n < 5; n++) {
      const s = await rawSocket(stack, { vsn: '2.0.0' });
      const ref = s.send(`realtime:crowd-${n}`, 'phx_join', { config: {} });
      expect((await s.next((m) => m.ref === ref, 'join')).payload.status).toBe('ok');
      sockets.push({ s, ref, topic: `realtime:crowd-${n}` });
    }
    const refused = await new Promise<{ status?: number; body: string }>((resolve) => {
      const ws = new WebSocket(
        `${stack.apiUrl.replace('http', 'ws')}/realtime/v1/websocket?apikey=${stack.anonKey}&vsn=2.0.0`,
      );
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      ws.on('open', () => resolve({ body: 'opened' }));
    });
    expect(refused).toEqual({ status: 429, body: JSON.stringify({ error: 'Too many connected users' }) });
    // Leaving its last channel, a connection stops counting (known once phx_close arrives).
    for (const { s, ref, topic } of sockets) {
      s.send(topic, 'phx_leave', {}, ref);
      await s.next((m) => m.event === 'phx_close', 'close');
      s.close();
    }
  });

  it('holds max_concurrent_users when many connections join at the same moment', async () => {
    const sockets = await Promise.all(Array.from({ length: 12 }, () => rawSocket(stack, { vsn: '2.0.0' })));
    const refs = sockets.map((s, n) => s.send(`realtime:rush-${n}`, 'phx_join', { config: {} }));
    const replies = await Promise.all(sockets.map((s, n) => s.next((m) => m.ref === refs[n], `join ${n}`, 20_000)));
    const joined = replies.flatMap((r, n) => (r.payload.status === 'ok' ? [n] : []));
    expect(joined).toHaveLength(5);
    expect(new Set(replies.filter((r) => r.payload.status !== 'ok').map((r) => JSON.stringify(r.payload)))).toEqual(
      new Set([
        JSON.stringify({
          status: 'error',
          response: { reason: 'ConnectionRateLimitReached: Too many connected users' },
        }),
      ]),
    );
    for (const n of joined) {
      sockets[n]!.send(`realtime:rush-${n}`, 'phx_leave', {}, refs[n]);
      await sockets[n]!.next((m) => m.event === 'phx_close', 'close');
    }
    for (const s of sockets) s.close();
  });

  it('closes the channel on leave: an ok reply, then phx_close with the join ref', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    const join = s.send('realtime:leaving', 'phx_join', { config: {} });
    await s.next((m) => m.ref === join, 'join');
    const leave = s.send('realtime:leaving', 'phx_leave', {}, join);
    expect(await s.next((m) => m.ref === leave, 'leave reply')).toMatchObject({
      join_ref: join,
      payload: { status: 'ok', response: {} },
    });
    expect(await s.next((m) => m.event === 'phx_close', 'close')).toEqual({
      join_ref: join,
      ref: join,
      topic: 'realtime:leaving',
      event: 'phx_close',
      payload: {},
    });
    s.close();
  });
});

describe('access tokens', () => {
  it('closes a channel when its token expires, and keeps one whose token was refreshed in time', async () => {
    // The refreshed client's first token expires before the other's: once the other is closed for
    // expiry, the refreshed one has outlived its first token.
    const refreshed = realtimeClient(stack, await userToken(stack, AGENT_ACME, 2));
    const expiring = realtimeClient(stack, await userToken(stack, AGENT_ACME, 4));
    const systems: Record<string, unknown>[] = [];
    const statuses: string[] = [];
    const kept = refreshed.supabase
      .channel('kept', { config: { broadcast: { ack: true } } })
      .on('system', {}, (p) => systems.push(p));
    await subscribed(kept);
    refreshed.token = await userToken(stack, AGENT_ACME, 3600);
    await refreshed.supabase.realtime.setAuth();

    const closing = expiring.supabase
      .channel('expiring')
      .on('system', {}, (p) => systems.push({ ...p, on: 'expiring' }));
    closing.subscribe((status) => statuses.push(status));
    const error = await waitFor('expiry', () => systems.find((p) => p.status === 'error'), 15_000);
    expect(error).toMatchObject({ on: 'expiring', extension: 'system', channel: 'expiring' });
    expect(error.message).toMatch(/^Token has expired \d+ seconds ago$/);
    await waitFor('the expired channel closed', () => statuses.includes('CLOSED'));

    expect(await kept.send({ type: 'broadcast', event: 'still-here', payload: {} })).toBe('ok');
    expect(systems.filter((p) => p.on !== 'expiring')).toEqual([]);
    await refreshed.close();
    await expiring.close();
  });

  it('closes the channel when a refreshed token is not a valid JWT', async () => {
    const s = await rawSocket(stack, { vsn: '2.0.0' });
    const join = s.send('realtime:bad-refresh', 'phx_join', {
      config: {},
      access_token: await userToken(stack, AGENT_ACME),
    });
    await s.next((m) => m.ref === join, 'join');
    s.send('realtime:bad-refresh', 'access_token', { access_token: 'not-a-jwt' }, join);
    expect((await s.next((m) => m.event === 'system', 'system error')).payload).toEqual({
      extension: 'system',
      status: 'error',
      message: 'The token provided is not a valid JWT',
      channel: 'bad-refresh',
    });
    expect(await s.next((m) => m.event === 'phx_close', 'close')).toMatchObject({ ref: join, join_ref: join });
    s.close();
  });
});

// Last in the file: the project stays over its limit for up to a minute after.
describe('events per second', () => {
  it('closes channels with "Too many messages per second" once the project is over max_events_per_second', async () => {
    const client = realtimeClient(stack, null);
    const systems: Record<string, unknown>[] = [];
    const statuses: string[] = [];
    const channel = client.supabase
      .channel('flood', { config: { broadcast: { self: true, ack: true } } })
      .on('broadcast', { event: '*' }, () => undefined)
      .on('system', {}, (p) => systems.push(p));
    channel.subscribe((status) => statuses.push(status));
    await waitFor('subscribed', () => statuses.includes('SUBSCRIBED'));
    // Each acknowledged send is an event in and one out; the server looks at its counts every 5 s.
    const deadline = Date.now() + 20_000;
    while (!systems.length && Date.now() < deadline)
      await channel.send({ type: 'broadcast', event: 'flood', payload: {} });
    expect(systems[0]).toEqual({
      extension: 'system',
      status: 'error',
      message: 'Too many messages per second',
      channel: 'flood',
    });
    await waitFor('the channel closed', () => statuses.includes('CLOSED'));
    await client.close();
  });
});
