// The local Realtime service at /realtime/v1 (docs/reference/realtime.md): Phoenix channels over a
// websocket with broadcast, presence and postgres_changes, and broadcast over REST. Laid out as the
// server is: socket (serializers, heartbeat), channel (join, token), one module per extension.
import { createPool } from '../connections.ts';
import type { Service, StackContext } from '../service.ts';
import { fanOut, Hub, topicKey } from './broadcast.ts';
import type { Channel } from './channel.ts';
import { payloadTooLarge, projectLimits } from './limits.ts';
import type { RowChange, Transaction } from './pgoutput.ts';
import { PostgresChanges } from './postgres-changes.ts';
import { Presence } from './presence.ts';
import { startReplication, type Replication } from './replication.ts';
import { handleRest } from './rest.ts';
import type { RealtimeContext } from './context.ts';
import { errors, sendError } from './errors.ts';
import { type Connection, rejectUpgrade, upgradeHandler } from './socket.ts';
import { tokenVerifier } from './tokens.ts';

export interface RealtimeService extends Service {
  /** Starts serving (the stack starts it once; tests stop and start it again). */
  start(): Promise<void>;
  /** Closes every connection, ends the replication stream (its slot goes with it) and stops answering. */
  stop(): Promise<void>;
}

export interface RealtimeOptions {
  /** Upstream's CHANNEL_ERROR_BACKOFF_MS (5 s) and CONNECT_ERROR_BACKOFF_MS (2 s). */
  joinErrorDelayMs?: number;
  connectErrorDelayMs?: number;
}

const RETENTION_SQL = `delete from realtime.messages where inserted_at < now() - interval '3 days'`;

export function createRealtimeService(stack: StackContext, options: RealtimeOptions = {}): RealtimeService {
  const log = (m: string) => stack.log('realtime', m);
  let running: {
    ctx: RealtimeContext;
    connections: Set<Connection>;
    replication: Replication;
    upgrade: ReturnType<typeof upgradeHandler>;
    retention: NodeJS.Timeout;
  } | null = null;

  const isBroadcast = (change: RowChange) =>
    change.relation.schema === 'realtime' && change.relation.table === 'messages';

  /** A row inserted into realtime.messages (realtime.send and friends) goes to the topic's subscribers. */
  function broadcastFromDatabase(ctx: RealtimeContext, change: RowChange) {
    const row = change.new;
    if (change.action !== 'INSERT' || !row) return;
    const { id, topic, event, private: isPrivate, payload, binary_payload: binary } = row;
    if (!id || !topic || !event || isPrivate === undefined || isPrivate === null) return;
    const body =
      binary !== null && binary !== undefined
        ? { encoding: 'binary' as const, bytes: Buffer.from(binary.replace(/^\\x/, ''), 'hex') }
        : payload !== null && payload !== undefined
          ? { encoding: 'json' as const, bytes: Buffer.from(payload) }
          : null;
    if (!body || payloadTooLarge(ctx.config, body.bytes.length) || ctx.limits.events.triggered) return;
    ctx.limits.events.add();
    fanOut(ctx.hub, topicKey(isPrivate === 't', topic), {
      user: { topic, event, encoding: body.encoding, payload: body.bytes, metadata: { id } },
    });
  }

  async function start() {
    if (running) return;
    const config = stack.config.realtime;
    const pool = createPool({
      connectionString: stack.dbUrlFor('supabase_admin'),
      max: 8,
      options: '-c statement_timeout=10s',
    });
    const limits = projectLimits(config);
    const hub = new Hub();
    const changes = new PostgresChanges(pool, limits);
    const connections = new Set<Connection>();
    let up = false;
    const ctx: RealtimeContext = {
      config,
      limits,
      tokens: tokenVerifier(stack.keys, stack.signingKeys),
      pool,
      hub,
      presence: new Presence(hub, (n) => limits.presence.add(n)),
      changes,
      users: new Set(),
      replicationUp: () => up,
      joinErrorDelayMs: options.joinErrorDelayMs ?? 5000,
      connectErrorDelayMs: options.connectErrorDelayMs ?? 2000,
      log,
    };
    const replication = startReplication({
      url: stack.dbUrlFor('supabase_admin'),
      log,
      onUp: () => {
        up = true;
      },
      // Changes made while the stream was down are lost to it: channels listening for them are told
      // (a `system` error, then phx_error) so their clients rejoin and catch up.
      onDown: (reason) => {
        up = false;
        log(`replication lost: ${reason}`);
        const listening = new Set<Channel>();
        for (const conn of connections)
          for (const channel of conn.channels.values()) if (channel.pgEntries.length) listening.add(channel);
        for (const channel of listening) {
          channel.system('postgres_changes', 'error', 'Realtime was unable to connect to the project database');
          channel.error();
        }
      },
      // Database broadcasts go out as their transaction is decoded, not behind the postgres_changes of earlier
      // transactions: upstream sends them from a replication connection of their own, apart from
      // postgres_changes. A 1 000-message insert's changes, each decided by a query for every page listening to
      // messages, held a ticket page's "who is viewing" and "typing" signals back for over 10 s.
      onDecoded: (tx: Transaction) => {
        for (const change of tx.changes) if (isBroadcast(change)) broadcastFromDatabase(ctx, change);
      },
      onTransaction: async (tx: Transaction) => {
        for (const change of tx.changes) {
          if (isBroadcast(change)) continue;
          await changes
            .deliver(change, tx.commitTime, tx.xid)
            .catch((e) => log(`postgres_changes: ${(e as Error).message}`));
        }
      },
    });
    limits.start();
    const trim = () => pool.query(RETENTION_SQL).catch(() => undefined);
    void trim();
    const retention = setInterval(trim, 3600_000);
    retention.unref();
    running = { ctx, connections, replication, upgrade: upgradeHandler(ctx, connections), retention };
  }

  async function stop() {
    const r = running;
    if (!r) return;
    running = null;
    clearInterval(r.retention);
    r.ctx.limits.stop();
    for (const conn of [...r.connections]) conn.close(1001, 'going away');
    r.upgrade.wss.close();
    await r.replication.stop();
    await r.ctx.pool.end().catch(() => undefined);
  }

  return {
    name: 'realtime',
    start,
    stop,
    async handle(req, res, path) {
      if (!running) return sendError(res, errors.notRunning());
      await handleRest(running.ctx, req, res, path);
    },
    upgrade(req, socket, head, path) {
      if (!running) return rejectUpgrade(socket, errors.notRunning());
      void running.upgrade.handler(req, socket, head, path).catch((e) => {
        log(`upgrade failed: ${(e as Error).message}`);
        socket.destroy();
      });
    },
  };
}
