// The contract between the gateway and the services behind it (auth, storage, realtime, functions).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type pg from 'pg';
import type { StackKeys } from './keys.ts';
import type { ProjectConfig } from './config.ts';
import type { Jwk } from './signing-keys.ts';
import type { TrustOptions } from './trust.ts';

/** A message as the mail catcher stores it. Addresses are lower-cased by the sender. */
export interface OutgoingMail {
  from: { name: string; email: string };
  to: { name?: string; email: string }[];
  subject: string;
  html: string;
  text: string;
  /** Extra fields shown by the inbox, e.g. the one-time code for the console line. */
  tags?: string[];
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

export interface StackContext {
  /** Repository root (where supabase/ lives). */
  projectDir: string;
  /** Data dir (default <projectDir>/.supabase-local). */
  dataDir: string;
  /** Public gateway URL, e.g. http://127.0.0.1:54321 */
  apiUrl: string;
  dbUrl: string;
  mailUrl: string;
  /** The mail catcher's SMTP port (functions send through it unless their env names another server). */
  smtpPort: number;
  keys: StackKeys;
  trust: TrustOptions;
  /** Private JWKs that sign user access tokens (signing-keys.ts). */
  signingKeys: Jwk[];
  config: ProjectConfig;
  /** Superuser pool for the stack's own services (they set roles themselves where RLS matters). */
  pool: pg.Pool;
  /** Connection URL as one of the stack's login roles (auth connects as supabase_auth_admin, like GoTrue). */
  dbUrlFor(
    role: 'postgres' | 'supabase_admin' | 'supabase_auth_admin' | 'supabase_storage_admin' | 'authenticator',
  ): string;
  /** Register a cleanup to run when the stack stops (in reverse order). */
  onStop(fn: () => Promise<void>): void;
  mailer: Mailer;
  log(service: string, message: string): void;
}

/**
 * A service mounted by the gateway under /<name>/v1. The gateway has already checked the apikey,
 * defaulted `Authorization` to `Bearer <apikey>` (mapping sb_ keys to their JWTs), stripped the
 * prefix (`path` is what follows it, query string included) and answered CORS preflights.
 */
export interface Service {
  name: 'auth' | 'rest' | 'storage' | 'realtime' | 'functions';
  handle(req: IncomingMessage, res: ServerResponse, path: string): void | Promise<void>;
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, path: string): void;
  stop?(): Promise<void>;
}
