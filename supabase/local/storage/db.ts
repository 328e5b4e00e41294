// Metadata queries run as the caller, as storage-api runs them (src/internal/database/postgres/scope.ts):
// each in a transaction that first sets the role, the JWT claims and the operation, so the
// storage.objects / storage.buckets policies written for hosted Supabase decide (auth.uid() and
// storage.foldername() included). The service role bypasses RLS.
import pg from 'pg';
import { transaction } from '../connections.ts';
import type { Caller } from './caller.ts';
import { fromPgError, StorageError } from './errors.ts';

export type Tx = pg.PoolClient;

export interface Scope {
  caller: Caller;
  /** storage-api's ROUTE_OPERATIONS name, readable in policies through storage.operation(). */
  operation: string;
  method?: string;
  path?: string;
}

/** storage-api's scope as one SELECT of set_configs (a simple query takes no parameters: literals are escaped). */
function scoped(scope: Scope): string {
  const { caller } = scope;
  const set = (name: string, value: string) => `set_config('${name}', ${pg.escapeLiteral(value)}, true)`;
  return `select ${[
    set('role', caller.role),
    set('request.jwt.claim.role', caller.role),
    set('request.jwt', caller.jwt),
    set('request.jwt.claim.sub', caller.owner ?? ''),
    set('request.jwt.claims', JSON.stringify(caller.claims)),
    set('request.method', scope.method ?? ''),
    set('request.path', scope.path ?? ''),
    set('storage.operation', scope.operation),
    set('storage.allow_delete_query', 'true'),
  ].join(', ')}`;
}

class Rollback extends Error {}

export class StorageDb {
  constructor(readonly pool: pg.Pool) {}

  /**
   * Runs `fn` in a transaction scoped to the caller; Postgres errors become storage-api's errors. A
   * lost connection throws as pg threw it (storage-api's InternalError), or CommitUnknown from COMMIT.
   */
  async tx<T>(scope: Scope, fn: (c: Tx) => Promise<T>): Promise<T> {
    try {
      return await transaction(this.pool, fn, `begin; ${scoped(scope)}`); // one round trip
    } catch (err) {
      if (err instanceof pg.DatabaseError) throw fromPgError(err);
      throw err;
    }
  }

  /**
   * One read in one round trip: the scope and the query go as one simple query, which Postgres runs
   * as one transaction, so the scope's local settings hold for the query. `$n` are text parameters.
   */
  async read<T extends pg.QueryResultRow>(scope: Scope, text: string, params: string[]): Promise<T[]> {
    const c = await this.pool.connect();
    try {
      const query = text.replace(/\$(\d+)/g, (_, n) => pg.escapeLiteral(params[Number(n) - 1]!));
      const results = (await c.query(`${scoped(scope)}; ${query}`)) as unknown as pg.QueryResult<T>[];
      return results[results.length - 1]!.rows;
    } catch (err) {
      if (err instanceof pg.DatabaseError) throw fromPgError(err);
      throw err;
    } finally {
      c.release();
    }
  }

  /** storage-api testPermission: run the would-be write as the caller, then roll it back. */
  async test(scope: Scope, fn: (c: Tx) => Promise<unknown>): Promise<void> {
    try {
      await this.tx(scope, async (c) => {
        await fn(c);
        throw new Rollback();
      });
    } catch (err) {
      if (!(err instanceof Rollback)) throw err;
    }
  }
}

export const isStorageError = (err: unknown, code: string): err is StorageError =>
  err instanceof StorageError && err.code === code;
