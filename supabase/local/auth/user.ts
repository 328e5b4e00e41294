// GET /user and PUT /user (GoTrue user.go; docs/reference/auth.md §1.8).
import { tx, type Handler } from './context.ts';
import { errors, sendJson } from './errors.ts';
import { obj, readJson } from './http.ts';
import { requireUser } from './guard.ts';
import { findById, userJson } from './users.ts';

export const getUser: Handler = async (ctx, req, res) => {
  const { user } = await requireUser(ctx, req);
  sendJson(res, 200, await userJson(ctx.pool, user));
};

export const putUser: Handler = async (ctx, req, res) => {
  const caller = await requireUser(ctx, req);
  const body = await readJson(req);
  if (body.app_metadata !== undefined) throw errors.notAdmin();
  if (body.email !== undefined || body.password !== undefined || body.phone !== undefined) {
    throw errors.validation('Only user metadata can be changed on the local stack', 422);
  }
  const data = obj(body.data);
  if (body.data !== undefined && !data) throw errors.validation('data must be an object');
  const updated = await tx(ctx.pool, async (c) => {
    if (data) {
      // GoTrue: shallow merge; keys set to null are removed.
      const merged: Record<string, unknown> = { ...(caller.user.raw_user_meta_data ?? {}) };
      for (const [k, v] of Object.entries(data))
        if (v === null) delete merged[k];
        else merged[k] = v;
      await c.query('update auth.users set raw_user_meta_data = $2, updated_at = now() where id = $1', [
        caller.user.id,
        merged,
      ]);
    }
    return (await findById(c, caller.user.id))!;
  });
  sendJson(res, 200, await userJson(ctx.pool, updated));
};
