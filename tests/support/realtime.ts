// Realtime clients for tests: supabase-js channels as an app uses them, raw websockets for the wire.
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { Stack } from '@tend/supabase-local';
import { accessToken } from '../../scripts/lib/jwt.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

// tests/fixtures/realtime-project: the agents of workspace 1 (Acme) and 2 (Globex).
export const AGENT_ACME = 'a0000000-0000-0000-0000-00000000000a';
export const AGENT_GLOBEX = 'b0000000-0000-0000-0000-00000000000b';

let users = 0;
/** A fresh requester id per call. */
export const newUser = () =>
  `c0000000-0000-4000-8000-${String(++users).padStart(8, '0')}${String(process.pid % 10000).padStart(4, '0')}`;

/** An access token for a signed-in user, as auth would issue (HS256 with the project's secret). */
export const userToken = (stack: Stack, sub: string, expiresInSeconds = 3600, extra: Record<string, unknown> = {}) =>
  accessToken(stack.jwtSecret, { sub, ...extra }, expiresInSeconds);

export interface TestClient {
  supabase: SupabaseClient;
  /** The token its channels use; change it and call supabase.realtime.setAuth() to refresh. */
  token: string | null;
  close(): Promise<void>;
}

/** A supabase-js client whose realtime uses `token` (anon when null), with serializer `vsn`. */
export function realtimeClient(
  stack: Stack,
  token: string | null,
  opts: { vsn?: '1.0.0' | '2.0.0'; key?: string } = {},
): TestClient {
  const client: TestClient = {
    token,
    supabase: undefined as unknown as SupabaseClient,
    close: async () => {
      await client.supabase.removeAllChannels();
      client.supabase.realtime.disconnect();
    },
  };
  client.supabase = createClient(stack.apiUrl, opts.key ?? stack.anonKey, {
    accessToken: async () => client.token ?? opts.key ?? stack.anonKey,
    realtime: opts.vsn ? { vsn: opts.vsn } : {},
  });
  return client;
}

/**
 * Subscribes and resolves once joined; rejects with the server's reason. Like an app that waits for
 * its session first, it lets the client fetch its token, so the join carries it (else realtime-js
 * joins with the apikey and sends the token just after).
 */
export async function subscribed(channel: RealtimeChannel, timeoutMs = 20_000): Promise<RealtimeChannel> {
  await channel.socket.setAuth();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${channel.topic}: not subscribed in ${timeoutMs} ms`)), timeoutMs);
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') {
        clearTimeout(timer);
        resolve(channel);
      } else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') {
        clearTimeout(timer);
        reject(err ?? new Error(status));
      }
    });
  });
}

export interface RawMessage {
  join_ref?: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

/** A bare websocket speaking the protocol, for the wire-level facts supabase-js hides. */
export async function rawSocket(stack: Stack, opts: { vsn?: string; apikey?: string } = {}) {
  const params = new URLSearchParams({ apikey: opts.apikey ?? stack.anonKey });
  if (opts.vsn) params.set('vsn', opts.vsn);
  const ws = new WebSocket(`${stack.apiUrl.replace('http', 'ws')}/realtime/v1/websocket?${params}`);
  const received: { text?: string; binary?: Buffer; message?: RawMessage }[] = [];
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) return received.push({ binary: data });
    const text = data.toString('utf8');
    const parsed = JSON.parse(text);
    const message: RawMessage = Array.isArray(parsed)
      ? { join_ref: parsed[0], ref: parsed[1], topic: parsed[2], event: parsed[3], payload: parsed[4] }
      : parsed;
    received.push({ text, message });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  let ref = 0;
  return {
    ws,
    received,
    /** Sends a V2 array (or V1 object when vsn is 1.0.0); returns the ref used. */
    send(topic: string, event: string, payload: object, joinRef: string | null = null) {
      const r = String(++ref);
      const jr = event === 'phx_join' ? r : joinRef;
      ws.send(
        JSON.stringify(
          opts.vsn === '2.0.0' ? [jr, r, topic, event, payload] : { topic, event, payload, ref: r, join_ref: jr },
        ),
      );
      return r;
    },
    sendBinary(frame: Buffer) {
      ws.send(frame);
    },
    /** The first message received (so far or later) matching `match`. */
    next(match: (m: RawMessage) => boolean, what: string, timeoutMs = 15_000) {
      return waitFor(what, () => received.find((r) => r.message && match(r.message))?.message, timeoutMs);
    },
    close() {
      ws.close();
    },
  };
}
