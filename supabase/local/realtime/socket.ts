// The websocket side (Phoenix socket, docs/reference/realtime.md §1): the upgrade and its apikey check,
// the serializer, the heartbeat, and routing each client message to its channel. A connection
// handles its messages one at a time, in order, as Phoenix's socket process does.
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { type WebSocket, WebSocketServer } from 'ws';
import { xHeaders } from './authorization.ts';
import { Channel, JoinError } from './channel.ts';
import type { ChannelConnection, RealtimeContext } from './context.ts';
import { errors, type RealtimeError } from './errors.ts';
import { decode, encode, InvalidMessage, negotiate, type Inbound, type Message, type Vsn } from './serializer.ts';
import type { Claims } from './tokens.ts';

/** Phoenix closes a websocket that sent nothing for this long (transports/websocket.ex). */
const IDLE_TIMEOUT_MS = 60_000;
/** realtime endpoint.ex max_frame_size */
const MAX_FRAME_BYTES = 5_000_000;

export class Connection implements ChannelConnection {
  readonly channels = new Map<string, Channel>();
  private inbox: Promise<void> = Promise.resolve();
  private idle: NodeJS.Timeout;

  constructor(
    readonly ctx: RealtimeContext,
    private ws: WebSocket,
    readonly vsn: Vsn,
    /** The apikey as a JWT: channels without an access_token of their own use it. */
    readonly token: string,
    readonly claims: Claims,
    readonly headers: Record<string, string>,
  ) {
    this.idle = setTimeout(() => this.close(1000, 'idle'), IDLE_TIMEOUT_MS);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      this.idle.refresh();
      let inbound: Inbound;
      try {
        inbound = decode(vsn, data, isBinary);
      } catch (e) {
        if (e instanceof InvalidMessage) return ctx.log(`dropped a malformed message: ${e.message}`);
        throw e;
      }
      this.inbox = this.inbox
        .then(() => this.handle(inbound))
        .catch((e) => ctx.log(`message on ${this.topicOf(inbound)} failed: ${(e as Error).stack ?? e}`));
    });
    ws.on('close', () => this.closed());
    ws.on('error', () => this.closed());
  }

  private topicOf(inbound: Inbound) {
    return inbound.kind === 'message' ? inbound.message.topic : inbound.broadcast.topic;
  }

  private async handle(inbound: Inbound) {
    if (inbound.kind === 'user-broadcast') {
      const channel = this.channels.get(inbound.broadcast.topic);
      const msg = { joinRef: inbound.joinRef, ref: inbound.ref, topic: inbound.broadcast.topic };
      if (!channel) return this.reply(msg, 'error', { reason: 'unmatched topic' }, null);
      const reply = await channel.broadcast({ user: inbound.broadcast });
      if (reply) this.reply(msg, reply.status, reply.response);
      return;
    }
    const m = inbound.message;
    if (m.topic === 'phoenix' && m.event === 'heartbeat') return this.reply(m, 'ok', {}, null);
    if (m.event === 'phx_join') return this.join(m);
    const channel = this.channels.get(m.topic);
    if (!channel) {
      if (m.event === 'phx_leave') return this.reply(m, 'ok', {});
      return this.reply(m, 'error', { reason: 'unmatched topic' }, null);
    }
    switch (m.event) {
      case 'phx_leave':
        this.reply(m, 'ok', {});
        return channel.close();
      case 'access_token':
        return channel.refreshToken(m.payload);
      case 'broadcast': {
        const reply = await channel.broadcast({ json: m.payload });
        if (reply) this.reply(m, reply.status, reply.response);
        return;
      }
      case 'presence': {
        const reply = await channel.presence(m.payload);
        if (reply) this.reply(m, reply.status, reply.response);
        return;
      }
      default:
        // Unexpected events count and are otherwise ignored (handle_in fallback).
        this.ctx.limits.events.add();
    }
  }

  private async join(m: Message) {
    // A second join of a joined topic closes the first (Phoenix's duplicate join).
    this.channels.get(m.topic)?.close();
    if (!m.topic.startsWith('realtime:')) {
      return this.reply(m, 'error', { reason: 'unmatched topic' }, null);
    }
    const channel = new Channel(this.ctx, this, m.topic, m.joinRef ?? m.ref, m.payload);
    try {
      await channel.join();
    } catch (e) {
      channel.dispose(); // its token check may have set a timer
      if (!(e instanceof JoinError)) throw e;
      await sleep(this.ctx.joinErrorDelayMs);
      this.reply(m, 'error', { reason: e.reason });
      if (e.disconnect) this.close(1000, 'disconnect');
      return;
    }
    if (this.ws.readyState !== this.ws.OPEN) return channel.dispose();
    this.channels.set(m.topic, channel);
    this.reply(m, 'ok', channel.joinResponse());
    channel.afterJoin();
  }

  /** phx_reply to a client message; its join_ref unless told otherwise (heartbeats, unmatched topics). */
  private reply(
    m: { joinRef: string | null; ref: string | null; topic: string },
    status: string,
    response: object,
    joinRef = m.joinRef,
  ) {
    this.push({ joinRef, ref: m.ref, topic: m.topic, event: 'phx_reply', payload: { status, response } });
  }

  push(message: Message) {
    this.sendFrame(encode(this.vsn, message));
  }

  sendFrame(frame: string | Buffer) {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(frame, { binary: typeof frame !== 'string' });
  }

  /** A channel that ended; the connection stops counting as a user with none left. */
  forget(channel: Channel) {
    if (this.channels.get(channel.topic) === channel) this.channels.delete(channel.topic);
    if (!this.channels.size) this.ctx.users.delete(this);
  }

  close(code: number, reason: string) {
    this.ws.close(code, reason);
    this.closed();
  }

  private closed() {
    clearTimeout(this.idle);
    for (const channel of [...this.channels.values()]) channel.dispose();
    this.ctx.users.delete(this);
  }
}

/** Answers an upgrade request with a plain HTTP response instead: an error's JSON, or an empty text body. */
export const rejectUpgrade = (socket: Duplex, err: RealtimeError | { status: number; body?: undefined }) => {
  const body = err.body ? JSON.stringify(err.body) : '';
  const type = err.body ? 'application/json' : 'text/plain';
  socket.end(
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status]}\r\n` +
      `content-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
};

/** Accepts /websocket (and the server's own /socket/websocket), checking the apikey as user_socket.ex connect/3. */
export function upgradeHandler(ctx: RealtimeContext, connections: Set<Connection>) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const handler = async (req: IncomingMessage, socket: Duplex, head: Buffer, path: string) => {
    const url = new URL(path, 'http://realtime');
    if (url.pathname !== '/websocket' && url.pathname !== '/socket/websocket')
      return rejectUpgrade(socket, errors.notFound());
    const vsn = negotiate(url.searchParams.get('vsn'));
    if (!vsn) return rejectUpgrade(socket, { status: 400 }); // Phoenix: an unknown serializer, no body
    const refuse = async (status: number, error: string) => {
      await sleep(ctx.connectErrorDelayMs);
      rejectUpgrade(socket, errors.connect(status, error));
    };
    const apikey = (req.headers['x-api-key'] as string | undefined) ?? url.searchParams.get('apikey');
    if (!apikey) return refuse(401, 'API key is missing');
    const check = await ctx.tokens.verify(apikey);
    if (!check.ok) {
      const messages: Record<string, string> = {
        expired: 'Token has expired',
        missing_claims: 'Fields `role` and `exp` are required in JWT',
        signature: 'Failed to validate JWT signature',
        signer: check.message,
      };
      return refuse(
        check.reason === 'invalid' ? 500 : 401,
        messages[check.reason] ??
          (check.reason === 'invalid' ? 'Error connecting to Realtime' : 'The token provided is not a valid JWT'),
      );
    }
    if (ctx.users.size >= ctx.config.maxConcurrentUsers) return refuse(429, 'Too many connected users');
    if (ctx.limits.joins.triggered) return refuse(429, 'Too many joins per second');
    const headers = xHeaders(req);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new Connection(ctx, ws, vsn, ctx.tokens.resolve(apikey), check.claims, headers);
      connections.add(conn);
      ws.on('close', () => connections.delete(conn));
    });
  };
  return { handler, wss };
}
