// One joined channel (realtime_channel.ex): the join and its checks, the access token and its expiry,
// leaving and being closed, and the client's broadcast and presence messages.
import { randomUUID } from 'node:crypto';
import { readPolicies, writePolicies, DatabaseUnavailable, type Extension, type Policies } from './authorization.ts';
import { fanOut, type Member, topicKey } from './broadcast.ts';
import type { ChannelConnection, RealtimeContext } from './context.ts';
import { payloadTooLarge } from './limits.ts';
import { parseSubscription, subscriptionId, type SubscriptionParams } from './postgres-changes.ts';
import type { UserBroadcast } from './serializer.ts';
import type { Claims } from './tokens.ts';

/** A join refused: `reason` is what the reply says ("Code: message", as upstream's log_error builds it). */
export class JoinError extends Error {
  constructor(
    readonly reason: string,
    readonly disconnect = false,
  ) {
    super(reason);
  }
}

/** Ecto's FlexibleBoolean: true/false or "true"/"false". */
const flag = (v: unknown) => v === true || v === 'true';
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

const CONFIRM_TOKEN_MS = 5 * 60_000;
let channelIds = 0;

export class Channel implements Member {
  readonly id = ++channelIds;
  readonly subTopic: string;
  readonly isPrivate: boolean;
  readonly key: string;
  readonly selfBroadcast: boolean;
  readonly ackBroadcast: boolean;
  readonly presenceKey: string;
  private readonly replay: boolean;
  presenceEnabled: boolean;
  accessToken: string;
  claims!: Claims;
  /** The claims as JSON: channels with equal claims share one RLS check per change. */
  claimsKey = '';
  policies: Policies | null = null;
  closed = false;
  /** The postgres_changes entries as requested, each with its id (the join reply echoes them). */
  readonly pgEntries: {
    id: number;
    requested: Record<string, unknown>;
    parsed: ReturnType<typeof parseSubscription>;
  }[];
  private tracked: string | null = null;
  private presenceCalls = { count: 0, resetAt: 0 };
  private confirmTimer?: NodeJS.Timeout;
  private subscribeTimer?: NodeJS.Timeout;

  constructor(
    readonly ctx: RealtimeContext,
    readonly conn: ChannelConnection,
    readonly topic: string,
    readonly joinRef: string | null,
    params: Record<string, unknown>,
  ) {
    this.subTopic = topic.slice('realtime:'.length);
    const config = obj(params.config);
    const broadcast = obj(config.broadcast);
    const presence = obj(config.presence);
    this.isPrivate = flag(config.private);
    this.key = topicKey(this.isPrivate, this.subTopic);
    this.selfBroadcast = flag(broadcast.self);
    this.ackBroadcast = flag(broadcast.ack);
    this.replay = 'replay' in broadcast;
    this.presenceEnabled = flag(presence.enabled);
    this.presenceKey =
      presence.key === undefined || presence.key === null || presence.key === '' ? randomUUID() : String(presence.key);
    // An sb_ key or no token: the channel uses the connection's apikey (assign_access_token).
    const token = params.access_token ?? params.user_token;
    this.accessToken = typeof token === 'string' && !token.startsWith('sb_') ? token : conn.token;
    const requested = Array.isArray(config.postgres_changes) ? config.postgres_changes : [];
    this.pgEntries = requested
      .filter((p) => p !== null && p !== undefined)
      .map((p) => ({ id: subscriptionId(p), requested: obj(p), parsed: parseSubscription(obj(p)) }));
  }

  private get authorizationContext() {
    return { topic: this.subTopic, claims: this.claims, headers: this.conn.headers };
  }

  /** Runs the join's checks in upstream's order; throws JoinError with its reply. */
  async join() {
    const { ctx, conn } = this;
    const { config, limits } = ctx;
    if (!this.subTopic) throw new JoinError('TopicNameRequired: You must provide a topic name');
    if (config.privateOnly && !this.isPrivate)
      throw new JoinError('PrivateOnly: This project only allows private channels');
    if (!ctx.users.has(conn) && ctx.users.size >= config.maxConcurrentUsers)
      throw new JoinError('ConnectionRateLimitReached: Too many connected users');
    // Counted from here, not from the ok reply: joins on many connections at once wait on their token
    // and policy checks together, and each must see the others (dispose lets go if the join fails).
    ctx.users.add(conn);
    if (limits.joins.triggered) throw new JoinError('ClientJoinRateLimitReached: Too many joins per second', true);
    limits.joins.add();
    if (conn.channels.size >= config.maxChannelsPerClient)
      throw new JoinError('ChannelRateLimitReached: Too many channels');
    await this.confirmToken(true);
    if (this.isPrivate) await this.checkReadPolicies(true);
    // Replaying stored broadcasts is not supported here; hosted refuses it on public channels too.
    if (this.replay && !this.isPrivate)
      throw new JoinError('UnableToReplayMessages: Replay is not allowed for public channels');
  }

  /** What the ok reply carries: every postgres_changes entry echoed with its id. */
  joinResponse() {
    return { postgres_changes: this.pgEntries.map((e) => ({ ...e.requested, id: e.id })) };
  }

  /** After the ok reply: presence_state, then the postgres_changes subscription. */
  afterJoin() {
    this.ctx.hub.add(this);
    this.ctx.users.add(this.conn);
    if (this.presenceEnabled && (!this.isPrivate || this.policies?.presence.read === true)) this.pushPresenceState();
    if (this.pgEntries.length) this.subscribePostgres();
  }

  private pushPresenceState() {
    if (this.ctx.limits.presence.avg > this.ctx.config.maxPresenceEventsPerSecond)
      return this.shutdown('Too many presence messages per second');
    this.ctx.limits.presence.add();
    this.send('presence_state', this.ctx.presence.state(this.key));
  }

  /**
   * Subscribes the channel's postgres_changes once the replication stream is up; says so with a
   * `system` message, or why not (retrying after 5–10 s when the database may come back).
   */
  subscribePostgres(delayMs = 0) {
    clearTimeout(this.subscribeTimer);
    this.subscribeTimer = setTimeout(async () => {
      if (this.closed) return;
      const invalid = this.pgEntries.find((e) => !e.parsed.ok);
      if (invalid && !invalid.parsed.ok) return this.system('postgres_changes', 'error', invalid.parsed.error);
      // While the stream is down there is nothing to subscribe to: wait for it (upstream retries 1–3 s).
      if (!this.ctx.replicationUp()) return this.subscribePostgres(1000 + Math.random() * 2000);
      const entries = this.pgEntries.map((e) => ({
        id: e.id,
        params: (e.parsed as { params: SubscriptionParams }).params,
      }));
      const result = await this.ctx.changes.subscribe(this, entries);
      if (this.closed) return;
      this.system('postgres_changes', result.ok ? 'ok' : 'error', result.message);
      if (result.retry) this.subscribePostgres(5000 + Math.random() * 5000);
    }, delayMs);
  }

  /** Verifies the channel's token; schedules the next check at min(5 min, expiry). */
  private async confirmToken(joining: boolean) {
    const check = await this.ctx.tokens.verify(this.accessToken);
    if (!check.ok) {
      if (!joining) throw new JoinError(check.message);
      const code: Record<string, string> = {
        malformed: 'MalformedJWT',
        signature: 'JwtSignatureError',
        signer: 'JwtSignerError',
        expired: 'InvalidJWTToken',
        missing_claims: 'InvalidJWTToken',
      };
      throw new JoinError(code[check.reason] ? `${code[check.reason]}: ${check.message}` : 'Unknown Error on Channel');
    }
    this.claims = check.claims;
    this.claimsKey = JSON.stringify(check.claims);
    clearTimeout(this.confirmTimer);
    const inMs = Math.min(CONFIRM_TOKEN_MS, (check.claims.exp - Math.floor(Date.now() / 1000)) * 1000);
    this.confirmTimer = setTimeout(() => {
      this.confirmToken(false).catch((e: JoinError) => this.shutdown(e.reason));
    }, inMs);
    this.confirmTimer.unref();
  }

  private async checkReadPolicies(joining: boolean) {
    const extensions: Extension[] = this.presenceEnabled ? ['broadcast', 'presence'] : ['broadcast'];
    const unauthorized = `You do not have permissions to read from this Channel topic: ${this.subTopic}`;
    try {
      this.policies = await readPolicies(this.ctx.pool, this.authorizationContext, extensions, {
        broadcast: {},
        presence: {},
      });
    } catch (e) {
      if (e instanceof DatabaseUnavailable)
        throw new JoinError(
          joining
            ? 'UnableToConnectToProject: Realtime was unable to connect to the project database'
            : 'Realtime was unable to connect to the project database',
        );
      this.ctx.log(`RlsPolicyError on ${this.subTopic}: ${(e as Error).message}`);
      throw new JoinError(joining ? `Unauthorized: ${unauthorized}` : unauthorized);
    }
    if (!this.policies.broadcast.read && !this.policies.presence.read)
      throw new JoinError(joining ? `Unauthorized: ${unauthorized}` : unauthorized);
  }

  /** `access_token`: a new token for the channel (realtime-js sends one after each refresh). */
  async refreshToken(payload: Record<string, unknown>) {
    const token = payload.access_token;
    if (typeof token !== 'string' || token.startsWith('sb_') || token === this.accessToken) return;
    const previous = this.policies;
    this.accessToken = token;
    this.policies = null;
    try {
      await this.confirmToken(false);
      if (this.isPrivate) {
        await this.checkReadPolicies(false);
        const revoked = (a?: boolean, b?: boolean) => a === true && b === false;
        if (
          revoked(previous?.broadcast.read, this.policies!.broadcast.read) ||
          revoked(previous?.presence.read, this.policies!.presence.read)
        )
          throw new JoinError(`You no longer have permission to read from this Channel topic: ${this.subTopic}`);
      }
    } catch (e) {
      return this.shutdown((e as JoinError).reason ?? String(e));
    }
    if (this.pgEntries.length) this.subscribePostgres();
  }

  /** `broadcast` from this channel's client; the reply, if any, is returned. */
  async broadcast(message: { json: Record<string, unknown> } | { user: UserBroadcast }) {
    const { ctx } = this;
    if (this.isPrivate) {
      if (this.policies?.broadcast.write === undefined) {
        try {
          this.policies = await writePolicies(
            ctx.pool,
            this.authorizationContext,
            ['broadcast', 'presence'],
            this.policies!,
          );
        } catch (e) {
          ctx.log(`broadcast on ${this.subTopic}: ${(e as Error).message}`);
          return null;
        }
      }
      if (!this.policies.broadcast.write) return null; // dropped silently, no reply even with ack
    }
    ctx.limits.events.add();
    const bytes = 'json' in message ? Buffer.byteLength(JSON.stringify(message.json)) : message.user.payload.length;
    if (payloadTooLarge(ctx.config, bytes))
      return this.ackBroadcast ? { status: 'error', response: { error: 'payload_size_exceeded' } } : null;
    fanOut(
      ctx.hub,
      this.key,
      'json' in message ? { json: message.json } : { user: { ...message.user, metadata: null } },
      this,
    );
    return this.ackBroadcast ? { status: 'ok', response: {} } : null;
  }

  /** `presence` (track/untrack); returns the reply. */
  async presence(payload: Record<string, unknown>): Promise<{ status: string; response: object } | null> {
    const { ctx } = this;
    if (typeof payload.event !== 'string') return { status: 'ok', response: {} };
    const now = Date.now();
    if (!this.presenceCalls.resetAt || now > this.presenceCalls.resetAt)
      this.presenceCalls = { count: 1, resetAt: now + ctx.config.clientPresenceWindowMs };
    else if (this.presenceCalls.count >= ctx.config.maxClientPresenceEventsPerWindow) {
      this.shutdown('Client presence rate limit exceeded');
      return null;
    } else this.presenceCalls.count++;

    const event = payload.event.toLowerCase();
    if (event === 'untrack') {
      ctx.presence.untrack(this);
      this.tracked = null;
      return { status: 'ok', response: {} };
    }
    if (event !== 'track') return { status: 'error', response: {} };
    if (this.isPrivate && this.policies?.presence.write === undefined) {
      try {
        if (this.policies?.presence.read === undefined)
          this.policies = await readPolicies(
            ctx.pool,
            this.authorizationContext,
            ['broadcast', 'presence'],
            this.policies!,
          );
        this.policies = await writePolicies(
          ctx.pool,
          this.authorizationContext,
          ['broadcast', 'presence'],
          this.policies,
        );
      } catch {
        return { status: 'error', response: {} };
      }
    }
    if (this.isPrivate && !this.policies?.presence.write) return { status: 'error', response: {} };
    const meta = payload.payload ?? {};
    if (!meta || typeof meta !== 'object' || Array.isArray(meta))
      return { status: 'error', response: { reason: 'Presence track payload must be a map' } };
    const serialized = JSON.stringify(meta);
    if (serialized === this.tracked) return { status: 'ok', response: {} };
    if (payloadTooLarge(ctx.config, Buffer.byteLength(serialized))) {
      this.shutdown('Track message size exceeded');
      return null;
    }
    if (ctx.limits.presence.avg > ctx.config.maxPresenceEventsPerSecond) {
      this.shutdown('Too many presence messages per second');
      return null;
    }
    ctx.limits.presence.add();
    ctx.presence.track(this, meta as Record<string, unknown>);
    this.tracked = serialized;
    this.presenceEnabled = true;
    return { status: 'ok', response: {} };
  }

  /** A push on this channel: join_ref set and no ref, or (fanOut) neither, as upstream's fan-outs. */
  send(event: string, payload: Record<string, unknown>, opts: { fanOut?: boolean } = {}) {
    if (this.closed) return;
    const joinRef = opts.fanOut ? null : this.joinRef;
    this.conn.push({ joinRef, ref: null, topic: this.topic, event, payload });
  }

  /** An already encoded broadcast frame. */
  deliverFrame(frame: string | Buffer) {
    if (this.closed) return;
    this.conn.sendFrame(frame);
    this.countEvent();
  }

  /** Every message delivered counts; past the project's limit the channel is shut (handle_info :update_rate_counter). */
  private countEvent() {
    this.ctx.limits.events.add();
    if (this.ctx.limits.events.triggered) this.shutdown('Too many messages per second');
  }

  system(extension: string, status: 'ok' | 'error', message: string) {
    this.send('system', { extension, status, message, channel: this.subTopic });
  }

  /** Server-side close with a reason: a `system` error, then phx_close (shutdown_response). */
  shutdown(message: string) {
    if (this.closed) return;
    this.system('system', 'error', message);
    this.close();
  }

  /** phx_close (ref = join_ref); the client won't rejoin. */
  close() {
    if (this.closed) return;
    this.conn.push({ joinRef: this.joinRef, ref: this.joinRef, topic: this.topic, event: 'phx_close', payload: {} });
    this.dispose();
  }

  /** phx_error: the client marks the channel errored and rejoins with back-off. */
  error() {
    if (this.closed) return;
    this.conn.push({
      joinRef: this.joinRef,
      ref: this.joinRef,
      topic: this.topic,
      event: 'phx_error',
      payload: { reason: 'channel_crash' },
    });
    this.dispose();
  }

  /** Forgets the channel everywhere (its socket too); presence leaves are sent. */
  dispose() {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.confirmTimer);
    clearTimeout(this.subscribeTimer);
    this.ctx.presence.untrack(this);
    this.ctx.changes.unsubscribe(this);
    this.ctx.hub.remove(this);
    this.conn.forget(this);
  }
}
