// Edge Functions on real Deno at /functions/v1/<name>: the router in front of the runtime, doing
// what the CLI's main service and hosted's gateway do (docs/reference/storage-functions.md B2, B3):
// find the function, check the JWT when verify_jwt is on, hand the request to its worker.
import path from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { signer } from '../auth/jwt.ts';
import type { Service, StackContext } from '../service.ts';
import { publicJwk } from '../signing-keys.ts';
import { DEFAULT_DENO_DIR } from './deno.ts';
import { sendPlatformError, sendUnauthorized, type Unauthorized } from './errors.ts';
import { findFunction, fingerprint, resolveEnvFile, userSecrets, type FunctionDef } from './project.ts';
import { createRuntime, type FunctionRuntime } from './runtime.ts';

export interface FunctionsOptions {
  /** `--env-file`: secrets for every function (default supabase/functions/.env, as the CLI). */
  envFile?: string;
  /** `functions serve --no-verify-jwt`: the flag beats config.toml (CLI serve.go). */
  noVerifyJwt?: boolean;
  /** Deno's cache (default node_modules/.cache/deno of this checkout). */
  denoDir?: string;
  /** Defaults for the functions' secrets, below the env file's (`npm run dev`: the app's APP_URL). */
  env?: Record<string, string>;
}

export type FunctionsService = Service & { processes: FunctionRuntime['processes'] };

export function createFunctionsService(ctx: StackContext, options: FunctionsOptions = {}): FunctionsService {
  const { config, keys } = ctx;
  const jwt = signer(keys.jwtSecret, ctx.signingKeys);
  const log = (slug: string, line: string) => ctx.log('functions', `${slug}: ${line}`);
  const envFile = () => resolveEnvFile(ctx.projectDir, options.envFile);

  // CLI serve.go + main.ts: the SUPABASE_* variables every function gets, then the user's secrets.
  const platformEnv = {
    SUPABASE_URL: ctx.apiUrl,
    SUPABASE_ANON_KEY: keys.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: keys.serviceRoleKey,
    SUPABASE_DB_URL: ctx.dbUrl,
    SUPABASE_JWKS: JSON.stringify({ keys: ctx.signingKeys.map(publicJwk) }),
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: keys.publishableKey }),
    SUPABASE_SECRET_KEYS: JSON.stringify({ default: keys.secretKey }),
  };

  const runtime = createRuntime({
    denoDir: options.denoDir ?? DEFAULT_DENO_DIR,
    logDir: path.join(ctx.dataDir, 'logs', 'functions'),
    policy: config.edgeRuntime.policy,
    memoryLimitMb: config.edgeRuntime.memoryLimitMb,
    wallClockLimitMs: config.edgeRuntime.wallClockLimitMs,
    requestIdleTimeoutMs: config.edgeRuntime.requestIdleTimeoutMs,
    env: (def) => ({
      // Mail goes to the local catcher unless the project's secrets name an SMTP server (README "Email").
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(ctx.smtpPort),
      ...options.env,
      ...userSecrets(config.edgeRuntime.secrets, envFile(), (m) => log(def.slug, m)),
      ...platformEnv,
    }),
    log,
  });
  ctx.onStop(() => runtime.stop());

  // Tokens found good, each until it expires (the keys don't change while the stack runs): the database
  // calls notify with the same service-role key for every email, and each check is a WebCrypto HMAC.
  const good = new Map<string, number>();

  /** The legacy JWT check: signature and expiry only, any role passes (CLI main.ts). */
  async function checkJwt(authorization: string | undefined): Promise<Unauthorized | null> {
    if (!authorization) return 'UNAUTHORIZED_NO_AUTH_HEADER';
    const [scheme, token, extra] = authorization.split(' ');
    if (scheme !== 'Bearer' || !token || extra !== undefined) return 'UNAUTHORIZED_INVALID_JWT_FORMAT';
    if (Date.now() < (good.get(token) ?? 0)) return null;
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      return 'UNAUTHORIZED_INVALID_JWT_FORMAT';
    }
    if (alg !== 'HS256' && alg !== 'ES256' && alg !== 'RS256') return 'UNAUTHORIZED_UNSUPPORTED_TOKEN_ALGORITHM';
    try {
      const { exp } = await jwt.verify(token);
      if (good.size >= 1000) good.clear();
      good.set(token, exp === undefined ? Number.POSITIVE_INFINITY : exp * 1000);
      return null;
    } catch {
      return alg === 'HS256' ? 'UNAUTHORIZED_LEGACY_JWT' : 'UNAUTHORIZED_ASYMMETRIC_JWT';
    }
  }

  return {
    name: 'functions',
    processes: runtime.processes,
    async handle(req, res, url) {
      const m = /^\/([^/?]*)([^?]*)(\?.*)?$/.exec(url);
      const slug = decodeURIComponent(m?.[1] ?? '');
      const def: FunctionDef | undefined = slug ? findFunction(ctx.projectDir, config, slug) : undefined;
      if (!def) {
        req.resume();
        return sendPlatformError(res, 'NOT_FOUND');
      }
      // Preflights reach the function unchecked: it answers CORS itself, as on hosted (functions/cors guide).
      if (req.method !== 'OPTIONS' && def.verifyJwt && !options.noVerifyJwt) {
        const denied = await checkJwt(req.headers.authorization);
        if (denied) {
          req.resume();
          return sendUnauthorized(res, denied);
        }
      }
      await runtime.handle(def, fingerprint(def, envFile()), req, res, `${m?.[2] ?? ''}${m?.[3] ?? ''}`);
    },
  };
}
