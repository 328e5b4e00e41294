// Access tokens with GoTrue's claims (reference/auth.md §2), HS256 with the project's JWT secret.
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';

export interface Claims extends JWTPayload {
  role?: string;
  email?: string;
  session_id?: string;
  is_anonymous?: boolean;
}

export function signer(secret: string) {
  const key = new TextEncoder().encode(secret);
  return {
    sign: (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key),
    /** Throws with jose's reason on a bad signature or an expired token. */
    verify: async (token: string): Promise<Claims> => (await jwtVerify(token, key, { algorithms: ['HS256'] })).payload as Claims,
  };
}
export type Signer = ReturnType<typeof signer>;
