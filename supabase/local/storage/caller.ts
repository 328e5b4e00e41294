// Who is calling: storage-api's jwt plugin (src/http/plugins/jwt.ts). The gateway has already put
// the apikey's JWT in Authorization when the client sent none; user tokens are ES256 (the stack's
// signing keys), API keys HS256 (the JWT secret), both verified by the auth service's verifier.
import type { IncomingMessage } from 'node:http';
import type { Claims, Signer } from '../auth/jwt.ts';
import { errors } from './errors.ts';

export interface Caller {
  /** The raw token (request.jwt), '' when there is none. */
  jwt: string;
  claims: Claims;
  /** The Postgres role the caller's queries run as: the JWT's role claim, else anon. */
  role: string;
  /** The JWT's sub: the owner of what the caller uploads. */
  owner?: string;
  /** A valid JWT was presented (anon key included), as storage-api's request.isAuthenticated. */
  authenticated: boolean;
}

/** The service key user storage-api runs "superuser" queries as (role service_role, bypasses RLS). */
export const SERVICE: Caller = {
  jwt: '',
  claims: { role: 'service_role' },
  role: 'service_role',
  authenticated: true,
};

const ANON: Omit<Caller, 'jwt'> = { claims: { role: 'anon' }, role: 'anon', authenticated: false };

/** The caller of routes that read no JWT (public and signed URLs): they query as the service role. */
export const NOBODY: Caller = { ...ANON, jwt: '' };

/**
 * The caller of a route. With `allowInvalid` (GET/HEAD /object/{bucket}/…, /object/info/{bucket}/…)
 * a missing or bad token makes an unauthenticated anon caller; otherwise it is AccessDenied.
 */
export async function callerOf(req: IncomingMessage, signer: Signer, allowInvalid = false): Promise<Caller> {
  const jwt = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
  if (!jwt && allowInvalid) return { ...ANON, jwt };
  try {
    const claims = await signer.verify(jwt);
    return { jwt, claims, role: claims.role || 'anon', owner: claims.sub, authenticated: true };
  } catch (err) {
    if (allowInvalid) return { ...ANON, jwt };
    throw errors.accessDenied((err as Error).message);
  }
}
