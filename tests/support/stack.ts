// A local stack per test file: fixture project in a temp dir, free ports, fast settings.
import { cpSync } from 'node:fs';
import path from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import { type ProjectConfig, PROJECT_DIR, startStack, type Stack, type StackOptions } from '@tend/supabase-local';
import { waitForMail } from '../../scripts/lib/mail.ts';
import { tempProject, type TempProject } from '../../scripts/lib/project.ts';
import { templateFor } from './template.ts';

export interface TestStack extends Stack {
  project: TempProject;
  /** SQL as the cluster superuser, for arranging what a test needs (never for asserting through RLS). */
  sql(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  teardown(): Promise<void>;
}

/**
 * Every request of a test comes from 127.0.0.1, which Auth's per-IP limits count as one client; a
 * test stack lifts them unless `hostedLimits` (tests of the limits themselves) keeps config.toml's.
 */
export function liftPerIpLimits(config: ProjectConfig) {
  Object.assign(config.auth.rateLimit, { signInSignUps: 100_000, tokenVerifications: 100_000, tokenRefresh: 100_000 });
}

export async function startTestStack(
  opts: {
    fixture?: string;
    configure?: (c: ProjectConfig) => void;
    log?: (line: string) => void;
    hostedLimits?: boolean;
    /** False: Postgres with a durable stack's settings (fsync, synchronous commits), as under npm run dev. */
    ephemeral?: boolean;
    trust?: StackOptions['trust'];
  } = {},
): Promise<TestStack> {
  const project = tempProject(opts.fixture);
  // Tend's own email templates, so tests read the mails users get (config.toml points at them).
  cpSync(path.join(PROJECT_DIR, 'supabase', 'templates'), path.join(project.projectDir, 'supabase', 'templates'), {
    recursive: true,
  });
  const stack = await startStack({
    port: 0,
    dir: project.dataDir,
    projectDir: project.projectDir,
    template: await templateFor(opts.fixture ?? 'stack-project', project.projectDir),
    ephemeral: opts.ephemeral ?? true,
    configure: (config) => {
      if (!opts.hostedLimits) liftPerIpLimits(config);
      opts.configure?.(config);
    },
    trust: opts.trust,
    log: opts.log ?? (() => undefined),
  });
  const pool = new pg.Pool({ connectionString: stack.dbUrl.replace('//postgres:', '//supabase_admin:'), max: 2 });
  // A client still closing when the stack shuts Postgres down gets 57P01; that is the teardown, not a failure.
  pool.on('error', () => undefined);
  return {
    ...stack,
    project,
    sql: (text, params) => pool.query(text, params),
    teardown: async () => {
      await pool.end();
      await stack.stop();
      project.remove();
    },
  };
}

/** An in-memory Storage for auth-js sessions (one per client, like one browser). */
export function memoryStorage() {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}

let emails = 0;
/** A fresh address per call, so tests never share a user or an inbox. */
export const newEmail = (tag = 'user') => `${tag}${++emails}.${process.pid}.${Date.now()}@example.test`;

/** A supabase-js client for the test stack, its session kept in memory. */
export function clientFor(stack: Stack, opts: { key?: string; pkce?: boolean } = {}): SupabaseClient {
  return createClient(stack.apiUrl, opts.key ?? stack.anonKey, {
    auth: {
      persistSession: true,
      autoRefreshToken: false,
      storage: memoryStorage(),
      flowType: opts.pkce ? 'pkce' : 'implicit',
    },
  });
}

/** Signs a user in as a person would: request a code, read it from the inbox, type it in. */
export async function signInWithCode(stack: Stack, email = newEmail()) {
  const c = clientFor(stack);
  const sent = await c.auth.signInWithOtp({ email });
  if (sent.error) throw sent.error;
  const { code } = await waitForMail(stack.mailUrl, email);
  const { data, error } = await c.auth.verifyOtp({ email, token: code, type: 'email' });
  if (error) throw error;
  return { c, email, session: data.session! };
}
