// Private channels: RLS policies on realtime.messages decide, as on hosted (docs/reference/realtime.md §6.2;
// realtime tenants/authorization.ex). Read: insert a probe row per extension, then SELECT them as the
// user with realtime.topic set; visible means allowed. Write: INSERT one as the user; an RLS refusal
// (insufficient_privilege) means denied. Everything is rolled back.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { isConnectionLost } from '../connections.ts';
import type { Claims } from './tokens.ts';

export type Extension = 'broadcast' | 'presence';

/** undefined = not checked yet. */
export interface Policies {
  broadcast: { read?: boolean; write?: boolean };
  presence: { read?: boolean; write?: boolean };
}

export interface AuthorizationContext {
  topic: string;
  claims: Claims;
  /** The x- headers of the websocket upgrade or REST request (request.headers). */
  headers: Record<string, string>;
}

/** What policies see as request.headers: the request's x- headers (Phoenix connect_info x_headers). */
export const xHeaders = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(req.headers).filter(([k, v]) => k.startsWith('x-') && typeof v === 'string') as [string, string][],
  );

/** A failure of the database itself (unreachable, restarting), as opposed to a policy raising an error. */
export class DatabaseUnavailable extends Error {}

/** Policies that raise, as hosted's :rls_policy_error. */
export class PolicyError extends Error {}

const isSqlError = (e: unknown) =>
  typeof (e as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((e as { code: string }).code);

async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw new DatabaseUnavailable((e as Error).message);
  }
  let broken = false;
  try {
    await client.query('begin');
    return await fn(client);
  } catch (e) {
    if (!isSqlError(e) || isConnectionLost(e)) {
      broken = true;
      throw new DatabaseUnavailable((e as Error).message);
    }
    throw new PolicyError((e as Error).message);
  } finally {
    await client.query('rollback').catch(() => (broken = true));
    client.release(broken);
  }
}

function setConfig(c: pg.PoolClient, ctx: AuthorizationContext) {
  return c.query(
    `select set_config('role', $1, true), set_config('realtime.topic', $2, true),
            set_config('request.jwt.claims', $3, true), set_config('request.jwt.claim.sub', $4, true),
            set_config('request.jwt.claim.role', $1, true), set_config('request.headers', $5, true)`,
    [
      String(ctx.claims.role),
      ctx.topic,
      JSON.stringify(ctx.claims),
      ctx.claims.sub ?? null,
      JSON.stringify(ctx.headers),
    ],
  );
}

export async function readPolicies(
  pool: pg.Pool,
  ctx: AuthorizationContext,
  extensions: Extension[],
  policies: Policies,
): Promise<Policies> {
  return inTransaction(pool, async (c) => {
    const probes = extensions.map((extension) => ({ extension, id: randomUUID() }));
    for (const p of probes)
      await c.query('insert into realtime.messages (id, topic, extension) values ($1, $2, $3)', [
        p.id,
        ctx.topic,
        p.extension,
      ]);
    await setConfig(c, ctx);
    const { rows } = await c.query('select id from realtime.messages where id = any($1::uuid[])', [
      probes.map((p) => p.id),
    ]);
    const seen = new Set(rows.map((r) => r.id));
    const next = structuredClone(policies);
    for (const p of probes) next[p.extension].read = seen.has(p.id);
    return next;
  });
}

export async function writePolicies(
  pool: pg.Pool,
  ctx: AuthorizationContext,
  extensions: Extension[],
  policies: Policies,
): Promise<Policies> {
  return inTransaction(pool, async (c) => {
    await setConfig(c, ctx);
    const next = structuredClone(policies);
    for (const extension of ['broadcast', 'presence'] as const) {
      if (!extensions.includes(extension)) {
        next[extension].write = false;
        continue;
      }
      await c.query('savepoint probe');
      try {
        await c.query('insert into realtime.messages (topic, extension) values ($1, $2)', [ctx.topic, extension]);
        next[extension].write = true;
      } catch (e) {
        if ((e as { code?: string }).code !== '42501') throw e;
        next[extension].write = false;
      }
      await c.query('rollback to savepoint probe');
    }
    return next;
  });
}
