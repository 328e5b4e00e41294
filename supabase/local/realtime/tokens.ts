// JWT checks as Realtime makes them at connect, join, token refresh and REST (docs/reference/realtime.md
// §6.1; realtime jwt_verification.ex, channels_authorization.ex): HS* with the JWT secret, ES*/RS*
// with the project's public keys by kid; `exp` must lie ahead; `role` and `exp` are required.
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type CryptoKey } from 'jose';
import { publicJwk, type Jwk } from '../signing-keys.ts';
import type { StackKeys } from '../keys.ts';

export interface Claims {
  role: string;
  exp: number;
  sub?: string;
  [claim: string]: unknown;
}

export type TokenError =
  | { reason: 'malformed'; message: string }
  | { reason: 'signature'; message: string }
  | { reason: 'signer'; message: string }
  | { reason: 'expired'; message: string }
  | { reason: 'missing_claims'; message: string }
  | { reason: 'invalid'; message: string };

export type TokenCheck = { ok: true; claims: Claims } | ({ ok: false } & TokenError);

const HS = ['HS256', 'HS384', 'HS512'];
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'];

const fail = (reason: TokenError['reason'], message: string): TokenCheck =>
  ({ ok: false, reason, message }) as TokenCheck;

export function tokenVerifier(keys: StackKeys, signingKeys: Jwk[]) {
  const secret = new TextEncoder().encode(keys.jwtSecret);
  const publicKeys = signingKeys.filter((k) => k.kty !== 'oct').map(publicJwk);
  const imported = new Map<string, Promise<CryptoKey | Uint8Array>>();
  // Kong's part in the CLI: the opaque keys stand for the legacy JWTs (docs/reference/realtime.md §1.1).
  const opaque = new Map([
    [keys.publishableKey, keys.anonKey],
    [keys.secretKey, keys.serviceRoleKey],
  ]);

  async function signer(alg: string, kid: unknown): Promise<CryptoKey | Uint8Array | null> {
    if (HS.includes(alg)) return secret;
    if (!ASYMMETRIC.includes(alg) || typeof kid !== 'string') return null;
    const jwk = publicKeys.find((k) => k.kid === kid && k.kty === (alg.startsWith('ES') ? 'EC' : 'RSA'));
    if (!jwk) return null;
    const key = `${alg}:${kid}`;
    if (!imported.has(key)) imported.set(key, importJWK(jwk as Parameters<typeof importJWK>[0], alg));
    return imported.get(key)!;
  }

  return {
    /** An opaque sb_ key as the JWT it stands for; anything else unchanged. */
    resolve: (token: string) => opaque.get(token) ?? token,

    async verify(raw: string): Promise<TokenCheck> {
      let token = raw;
      try {
        token = decodeURIComponent(raw);
      } catch {
        /* not URL-encoded */
      }
      token = opaque.get(token.trim()) ?? token.replace(/\s/g, '');
      let header: ReturnType<typeof decodeProtectedHeader>;
      let claims: Record<string, unknown>;
      try {
        header = decodeProtectedHeader(token);
        claims = decodeJwt(token);
      } catch {
        return fail('malformed', 'The token provided is not a valid JWT');
      }
      const key = await signer(String(header.alg), header.kid);
      if (!key)
        return fail(
          'signer',
          typeof header.kid === 'string'
            ? `Failed to generate JWT signer for key ID (kid) "${header.kid}", check your JWT secret or JWKS configuration`
            : 'Failed to generate JWT signer, check your JWT secret or JWKS configuration',
        );
      try {
        await compactVerify(token, key, { algorithms: [String(header.alg)] });
      } catch {
        return fail('signature', 'Failed to validate JWT signature');
      }
      const now = Math.floor(Date.now() / 1000);
      if ('exp' in claims && !(typeof claims.exp === 'number' && claims.exp > now)) {
        return typeof claims.exp === 'number'
          ? fail('expired', `Token has expired ${now - Math.round(claims.exp)} seconds ago`)
          : fail('invalid', 'Invalid token');
      }
      if ('iat' in claims && typeof claims.iat !== 'number') return fail('invalid', 'Invalid token');
      if (!('role' in claims) || !('exp' in claims))
        return fail('missing_claims', 'Fields `role` and `exp` are required in JWT');
      const rounded = { ...claims, exp: Math.round(claims.exp as number) } as Claims;
      if (typeof claims.iat === 'number') rounded.iat = Math.round(claims.iat);
      return { ok: true, claims: rounded };
    },
  };
}

export type TokenVerifier = ReturnType<typeof tokenVerifier>;
