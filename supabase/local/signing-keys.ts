// JWT signing keys, as the Supabase CLI sets them up (docs/reference/auth.md §2 "Signing keys"): user
// access tokens are ES256 with an asymmetric key whose public half is published at
// /auth/v1/.well-known/jwks.json, while the anon/service_role keys stay HS256 with the JWT secret.
// The default key is the CLI's built-in local key (public, like the default JWT secret), so tokens
// from `supabase start` and from this stack verify alike; `[auth] signing_keys_path` replaces it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { importJWK, SignJWT } from 'jose';

export interface Jwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  ext?: boolean;
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
  n?: string;
  e?: string;
  p?: string;
  q?: string;
  dp?: string;
  dq?: string;
  qi?: string;
  k?: string;
}

export const DEFAULT_SIGNING_KEY: Jwk = {
  kty: 'EC',
  kid: 'b81269f1-21d8-4f2e-b719-c2240a840d90',
  use: 'sig',
  key_ops: ['sign', 'verify'],
  alg: 'ES256',
  ext: true,
  crv: 'P-256',
  x: 'M5Sjqn5zwC9Kl1zVfUUGvv9boQjCGd45G8sdopBExB4',
  y: 'P6IXMvA2WYXSHSOMTBH2jsw_9rrzGy89FjPf6oOsIxQ',
  d: 'dIhR8wywJlqlua4y_yMq2SLhlFXDZJBCvFrY1DCHyVU',
};

const PRIVATE_PARTS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'] as const;

/** The signing keys: the file at `[auth] signing_keys_path` (a JSON array of private JWKs), or the default. */
export function loadSigningKeys(projectDir: string, signingKeysPath: string | undefined): Jwk[] {
  if (!signingKeysPath) return [DEFAULT_SIGNING_KEY];
  const file = path.resolve(projectDir, 'supabase', signingKeysPath);
  let keys: unknown;
  try {
    keys = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`auth.signing_keys_path: cannot read ${file}: ${(err as Error).message}`);
  }
  if (!Array.isArray(keys) || !keys.length)
    throw new Error(`auth.signing_keys_path: ${file} must hold a JSON array of JWKs`);
  for (const k of keys as Jwk[]) {
    if (!k.kid || (k.alg !== 'ES256' && k.alg !== 'RS256'))
      throw new Error(`auth.signing_keys_path: every key needs a kid and alg ES256 or RS256`);
  }
  return keys as Jwk[];
}

/** The key that signs: the first with "sign" in key_ops (GoTrue conf/jwk.go), else the first. */
export function signingKey(keys: Jwk[]): Jwk {
  return keys.find((k) => k.key_ops?.includes('sign')) ?? keys[0]!;
}

/** A key without its private parts, marked verify-only: what /.well-known/jwks.json publishes. */
export function publicJwk(key: Jwk): Jwk {
  const out: Jwk = { ...key, key_ops: ['verify'] };
  for (const part of PRIVATE_PARTS) delete out[part];
  return out;
}

/**
 * The JWKS the API services verify with (PostgREST's jwt-secret, CLI config.go ResolveJWKS): every
 * public key, plus the JWT secret as an `oct` key unless `signing_keys_path` is set, so the HS256
 * API keys keep working by default and, with a project's own keys, only tokens signed with them pass.
 */
export function verificationJwks(keys: Jwk[], jwtSecret: string, ownKeys: boolean): { keys: Jwk[] } {
  const secret = { kty: 'oct', k: Buffer.from(jwtSecret).toString('base64url') };
  return { keys: [...keys.filter((k) => k.kty !== 'oct').map(publicJwk), ...(ownKeys ? [] : [secret])] };
}

const TEN_YEARS = 10 * 365 * 24 * 3600;

/**
 * The anon and service_role keys the CLI derives from `signing_keys_path` (pkg/config/apikeys.go
 * generateJWT): `{iss, role, exp}` signed with the file's first key, its kid in the header, valid
 * ten years from now, so each start makes new ones; the gateway takes any key these keys sign.
 */
export async function apiKeysFrom(keys: Jwk[]): Promise<{ anonKey: string; serviceRoleKey: string }> {
  const first = keys[0]!;
  const key = await importJWK({ ...first, key_ops: ['sign'] } as Parameters<typeof importJWK>[0], first.alg);
  const exp = Math.floor(Date.now() / 1000) + TEN_YEARS;
  const sign = (role: string) =>
    new SignJWT({ iss: 'supabase-demo', role, exp })
      .setProtectedHeader({ alg: first.alg!, kid: first.kid!, typ: 'JWT' })
      .sign(key);
  return { anonKey: await sign('anon'), serviceRoleKey: await sign('service_role') };
}
