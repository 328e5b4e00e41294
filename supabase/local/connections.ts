// Every connection the stack's own code makes to Postgres (docs/decisions/031-a-database-crash-fails-requests-not-the-stack.md).
// Postgres can die under the stack at any moment (a crash, the OOM killer, kill -9; the supervisor
// restarts it), and a `pg` client that loses its connection emits `error`: with no listener, Node
// throws it and the whole stack process exits. Pools and clients made here listen on every
// connection, idle or checked out, so a lost connection fails only the query that was using it; a
// pool opens new connections once Postgres is back, and the clients that must stay connected
// (replication, LISTEN) reconnect by themselves.
import pg from 'pg';

const ignore = () => undefined;

/** A pool whose connections never take the process down: a lost one fails its query and leaves the pool. */
export function createPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', ignore); // an idle connection lost: pg-pool has already dropped it
  // pg-pool listens only while a connection is idle; one lost while checked out (a storage upload
  // streaming its file inside a transaction) would emit with nobody listening.
  pool.on('connect', (client) => client.on('error', ignore));
  return pool;
}

/** A single connection; `onError` (a reconnect, say) runs when it is lost, and nothing is thrown. */
export function createClient(config: pg.ClientConfig, onError: (err: Error) => void = ignore): pg.Client {
  const client = new pg.Client(config);
  client.on('error', onError);
  return client;
}

/** One-shot SQL on its own connection. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = createClient({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(ignore);
  }
}

// SQLSTATE class 08 (connection exception) and the shutdowns Postgres announces before it goes:
// 57P01 admin_shutdown (also "terminating connection due to unexpected postmaster exit"),
// 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, recovering).
const GONE_SQLSTATES = /^(08...|57P0[123])$/;
const GONE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
// What pg throws for a connection that is already gone (client.js, pg-pool's connect timeout).
const GONE_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

/** Whether `err` says the database went away (or is not back yet), rather than that the query was refused. */
export function isConnectionLost(err: unknown): boolean {
  if (err instanceof CommitUnknown) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (GONE_SQLSTATES.test(code) || GONE_ERRNOS.has(code))) return true;
  return GONE_MESSAGES.test(err.message);
}

/**
 * A COMMIT whose answer never came: the connection was lost after it was sent, so the transaction
 * may or may not have committed. Callers that wrote outside the database (a file) settle it later.
 */
export class CommitUnknown extends Error {
  constructor(cause: unknown) {
    super(`the connection was lost during COMMIT: ${(cause as Error)?.message ?? cause}`, { cause });
  }
}

/**
 * `fn` in a transaction on a connection of `pool`: committed if it returns, rolled back if it throws.
 * `begin` may carry more statements (one round trip). A connection lost mid-way leaves the pool.
 */
export async function transaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>, begin = 'begin'): Promise<T> {
  const c = await pool.connect();
  let lost: unknown;
  try {
    await c.query(begin);
    const out = await fn(c);
    try {
      await c.query('commit');
    } catch (err) {
      if (isConnectionLost(err)) throw new CommitUnknown(err);
      throw err;
    }
    return out;
  } catch (err) {
    if (isConnectionLost(err)) lost = err;
    else await c.query('rollback').catch((e) => (lost = e));
    throw err;
  } finally {
    c.release(lost as Error | undefined);
  }
}
