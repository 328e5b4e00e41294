// What every realtime module gets (as auth/context.ts and storage/context.ts): the service's state and
// settings, and what a channel may ask of its websocket connection.
import type pg from 'pg';
import type { RealtimeConfig } from '../config.ts';
import type { Hub, Member } from './broadcast.ts';
import type { ProjectLimits } from './limits.ts';
import type { PostgresChanges } from './postgres-changes.ts';
import type { Presence } from './presence.ts';
import type { Message, Vsn } from './serializer.ts';
import type { TokenVerifier } from './tokens.ts';

export interface RealtimeContext {
  config: RealtimeConfig;
  limits: ProjectLimits;
  tokens: TokenVerifier;
  /** Superuser pool for policy checks and postgres_changes decisions. */
  pool: pg.Pool;
  hub: Hub;
  presence: Presence;
  changes: PostgresChanges;
  /** Connections with at least one channel: hosted's "concurrent users". */
  users: Set<ChannelConnection>;
  replicationUp(): boolean;
  /** Upstream sleeps before refusing a join (CHANNEL_ERROR_BACKOFF_MS) or a connection (CONNECT_ERROR_BACKOFF_MS). */
  joinErrorDelayMs: number;
  connectErrorDelayMs: number;
  log(message: string): void;
}

/** A websocket connection as its channels see it (socket.ts's Connection). */
export interface ChannelConnection {
  readonly vsn: Vsn;
  /** The apikey as a JWT: channels without an access_token of their own use it. */
  readonly token: string;
  /** The upgrade request's x- headers (request.headers in policies). */
  readonly headers: Record<string, string>;
  readonly channels: ReadonlyMap<string, Member>;
  push(message: Message): void;
  sendFrame(frame: string | Buffer): void;
  /** A channel that ended. */
  forget(channel: Member): void;
}
