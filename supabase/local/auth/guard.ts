// Who is calling: GoTrue's requireAuthentication / requireAdmin middleware (auth.go; docs/reference/auth.md §1.8, §1.15).
import type { IncomingMessage } from 'node:http';
import type { AuthContext } from './context.ts';
import { AuthError, errors } from './errors.ts';
import { bearer, isUuid } from './http.ts';
import type { Claims } from './jwt.ts';
import { findById, isBanned, type UserRow } from './users.ts';

async function claimsOf(ctx: AuthContext, req: IncomingMessage): Promise<Claims> {
  const token = bearer(req);
  if (!token) throw errors.noAuthorization();
  try {
    return await ctx.signer.verify(token);
  } catch (err) {
    throw errors.badJwt((err as Error).message);
  }
}

export interface Caller {
  claims: Claims;
  user: UserRow;
  sessionId?: string;
  /** The JWT's session: when it began and its assurance level (aal1, or aal2 after MFA). */
  session: { created_at: Date; aal: string | null };
}

export async function requireUser(ctx: AuthContext, req: IncomingMessage): Promise<Caller> {
  const claims = await claimsOf(ctx, req);
  if (!claims.sub) throw errors.badJwt('invalid claim: missing sub claim');
  if (!isUuid(claims.sub)) throw new AuthError(400, 'bad_jwt', 'invalid claim: sub claim must be a UUID');
  const user = await findById(ctx.pool, claims.sub);
  if (!user) throw errors.userNotFound();
  const sessionId =
    claims.session_id && claims.session_id !== '00000000-0000-0000-0000-000000000000' ? claims.session_id : undefined;
  const session = sessionId
    ? (await ctx.pool.query('select created_at, aal from auth.sessions where id = $1', [sessionId])).rows[0]
    : { created_at: new Date(0), aal: null };
  if (!session) throw errors.sessionNotFound();
  if (isBanned(user)) throw errors.userBanned();
  return { claims, user, sessionId, session };
}

/** Admin routes: a JWT whose role is service_role (CLI: GOTRUE_JWT_ADMIN_ROLES=service_role). */
export async function requireAdmin(ctx: AuthContext, req: IncomingMessage): Promise<Claims> {
  const claims = await claimsOf(ctx, req);
  if (claims.role !== 'service_role' && claims.role !== 'supabase_admin') throw errors.notAdmin();
  return claims;
}
