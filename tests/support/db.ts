// A stack with Tend's own migrations and seed, and clients signed in as the seeded people.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startStack, type Stack, type StackOptions } from '@tend/supabase-local';
import { accessToken } from '../../scripts/lib/jwt.ts';
import { templateFor } from './template.ts';

/** An access token for a signed-in user, as Auth would issue it (HS256 with the stack's secret). */
export const userJwt = (jwtSecret: string, who: { id: string; email: string }) =>
  accessToken(jwtSecret, { sub: who.id, email: who.email, session_id: crypto.randomUUID() });

export const PEOPLE = {
  acmeAdmin: { id: 'a0000000-0000-4000-8000-000000000001', email: 'admin@acme.test' },
  acmeAgent: { id: 'a0000000-0000-4000-8000-000000000002', email: 'agent@acme.test' },
  acmeAgent2: { id: 'a0000000-0000-4000-8000-000000000003', email: 'agent2@acme.test' },
  globexAdmin: { id: 'b0000000-0000-4000-8000-000000000001', email: 'admin@globex.test' },
  globexAgent: { id: 'b0000000-0000-4000-8000-000000000002', email: 'agent@globex.test' },
  acmeCustomer: { id: 'c0000000-0000-4000-8000-000000000001', email: 'customer@example.test' },
  acmeCustomer2: { id: 'c0000000-0000-4000-8000-000000000002', email: 'customer2@example.test' },
  globexCustomer: { id: 'c0000000-0000-4000-8000-000000000003', email: 'customer3@example.test' },
} as const;
export type Person = keyof typeof PEOPLE;

export const ACME = 'd0000000-0000-4000-8000-000000000a01';
export const GLOBEX = 'd0000000-0000-4000-8000-000000000b01';

export interface DbStack {
  stack: Stack;
  /** PostgREST as a seeded person, with a JWT like the one auth issues them. */
  as(person: Person): Promise<SupabaseClient>;
  anon(): SupabaseClient;
  service(): SupabaseClient;
  sql(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  teardown(): Promise<void>;
}

export async function startDbStack(opts: Pick<StackOptions, 'functionsEnvFile'> = {}): Promise<DbStack> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-db-'));
  chmodSync(dir, 0o755);
  const template = await templateFor('tend');
  const stack = await startStack({ port: 0, dir, template, ephemeral: true, log: () => undefined, ...opts });
  const pool = new pg.Pool({ connectionString: stack.dbUrl, max: 4 });
  // A client still closing when the stack shuts Postgres down gets 57P01; that is the teardown, not a failure.
  pool.on('error', () => undefined);
  const client = (apikey: string, jwt?: string) =>
    createClient(stack.apiUrl, apikey, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: jwt ? { headers: { Authorization: `Bearer ${jwt}` } } : {},
    });
  return {
    stack,
    as: async (person) => {
      const p = PEOPLE[person];
      const jwt = await userJwt(stack.jwtSecret, p);
      return client(stack.anonKey, jwt);
    },
    anon: () => client(stack.anonKey),
    service: () => client(stack.serviceRoleKey),
    sql: (text, params) => pool.query(text, params),
    teardown: async () => {
      await pool.end();
      await stack.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh ticket at Acme opened by `person` through create_ticket. */
export async function openTicket(db: DbStack, person: Person = 'acmeCustomer', subject = 'Printer on fire') {
  const c = await db.as(person);
  const { data, error } = await c.rpc('create_ticket', {
    p_workspace_slug: 'acme',
    p_subject: subject,
    p_body: 'Please help, it is smoking.',
  });
  if (error) throw new Error(`create_ticket: ${error.message}`);
  return data[0] as { id: string; number: number };
}

/**
 * The sessions waiting for a lock that session `pid` holds (Postgres's own view of who queues
 * behind whom), by process and role: PostgREST's are `authenticator`'s; the stack's own (realtime
 * making its replication slot, say) wait too at times, and are no test's business.
 */
export async function waitingFor(db: DbStack, pid: number): Promise<{ pid: number; role: string }[]> {
  const { rows } = await db.sql(
    'select pid, usename as role from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
    [pid],
  );
  return rows;
}

/** The server process of a connection, as pg_stat_activity names it. */
export async function backendPid(client: pg.Client): Promise<number> {
  return (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
}

/** A new auth user (and, by trigger, profile), as GoTrue would store one. */
export async function createUser(
  db: DbStack,
  email = `user-${crypto.randomUUID().slice(0, 8)}@example.test`,
): Promise<string> {
  const id = crypto.randomUUID();
  await db.sql(
    `insert into auth.users (instance_id, id, aud, role, email, email_confirmed_at, confirmation_token, recovery_token, email_change_token_new,
       email_change, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
     values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2, now(), '', '', '', '', '{}', '{}', now(), now())`,
    [id, email],
  );
  await db.sql(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
     values ($1::text, $1::uuid, jsonb_build_object('sub', $1::text, 'email', $2::text, 'email_verified', true), 'email', now(), now())`,
    [id, email],
  );
  return id;
}

/** `npm run seed:bulk -- --workspace acme --tickets <n> [options]` against the stack's database (run from the repository). */
export async function seedBulk(db: DbStack, tickets: number, options: string[] = []): Promise<void> {
  const args = ['--workspace', 'acme', '--tickets', String(tickets), '--db-url', db.stack.dbUrl, ...options];
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/seed-bulk.ts', ...args]);
}
