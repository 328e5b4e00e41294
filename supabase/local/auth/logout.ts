// POST /logout?scope=global|local|others (GoTrue logout.go; docs/reference/auth.md §1.9).
import type { Handler } from './context.ts';
import { errors } from './errors.ts';
import { requireUser } from './guard.ts';

export const logout: Handler = async (ctx, req, res, url) => {
  const scope = url.searchParams.get('scope') || 'global';
  if (!['global', 'local', 'others'].includes(scope)) throw errors.validation(`Unsupported logout scope "${scope}"`);
  const { user, sessionId } = await requireUser(ctx, req);
  // Deleting sessions cascades to their refresh tokens and amr claims.
  if (scope === 'global' || !sessionId) await ctx.pool.query('delete from auth.sessions where user_id = $1', [user.id]);
  else if (scope === 'local') await ctx.pool.query('delete from auth.sessions where id = $1', [sessionId]);
  else await ctx.pool.query('delete from auth.sessions where user_id = $1 and id <> $2', [user.id, sessionId]);
  res.writeHead(204);
  res.end();
};
