// Access tokens with GoTrue's claims (docs/reference/auth.md §2). Signed like GoTrue with GOTRUE_JWT_KEYS:
// the signing key's alg (ES256 by default) and its kid in the header, so auth-js getClaims() verifies
// them locally against /.well-known/jwks.json. Verification accepts HS256 with the JWT secret too
// (GOTRUE_JWT_VALID_METHODS=HS256,RS256,ES256): the anon/service_role keys are HS256.
import { createLocalJWKSet, decodeProtectedHeader, importJWK, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { publicJwk, signingKey, type Jwk } from '../signing-keys.ts';

export interface Claims extends JWTPayload {
  role?: string;
  email?: string;
  session_id?: string;
  is_anonymous?: boolean;
}

export function signer(secret: string, keys: Jwk[]) {
  const hmac = new TextEncoder().encode(secret);
  const signing = signingKey(keys);
  // WebCrypto refuses "verify" on a private EC key: import it for signing only, once, on first use.
  let privateKey: ReturnType<typeof importJWK> | undefined;
  const key = () =>
    (privateKey ??= importJWK({ ...signing, key_ops: ['sign'] } as Parameters<typeof importJWK>[0], signing.alg));
  const jwks = createLocalJWKSet({ keys: keys.map(publicJwk) as Parameters<typeof createLocalJWKSet>[0]['keys'] });
  return {
    sign: async (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: signing.alg!, kid: signing.kid!, typ: 'JWT' }).sign(await key()),
    /** Throws with jose's reason on a bad signature, an unknown kid or an expired token. */
    verify: async (token: string): Promise<Claims> => {
      // A token without a readable header goes to jwtVerify too, for jose's own reason ("Invalid Compact JWS").
      let alg: string | undefined;
      try {
        alg = decodeProtectedHeader(token).alg;
      } catch {
        alg = 'HS256';
      }
      const { payload } =
        alg === 'HS256'
          ? await jwtVerify(token, hmac, { algorithms: ['HS256'] })
          : await jwtVerify(token, jwks, { algorithms: ['ES256', 'RS256'] });
      return payload as Claims;
    },
    /** The public keys, as /.well-known/jwks.json publishes them. */
    publicKeys: keys.map(publicJwk),
  };
}
export type Signer = ReturnType<typeof signer>;
