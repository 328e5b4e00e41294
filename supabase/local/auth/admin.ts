// /admin/users… and /admin/generate_link, service_role only (GoTrue admin.go; docs/reference/auth.md §1.15).
import { tx, type AuthContext, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { isUuid, normalizeEmail, obj, readJson, str } from './http.ts';
import { requireAdmin } from './guard.ts';
import { verifyUrl } from './mail.ts';
import { issueToken } from './otp.ts';
import { allowedRedirect } from './redirect.ts';
import { createUser, findByEmail, findById, INSTANCE_ID, userJson, type UserRow } from './users.ts';

async function loadUser(ctx: AuthContext, id: string): Promise<UserRow> {
  if (!isUuid(id)) throw new AuthError(404, 'validation_failed', 'user_id must be an UUID');
  const user = await findById(ctx.pool, id);
  if (!user) throw errors.userNotFound(404);
  return user;
}

async function applyAttributes(ctx: AuthContext, user: UserRow, body: Record<string, unknown>): Promise<UserRow> {
  const sets: string[] = [];
  const values: unknown[] = [user.id];
  const set = (sql: string, v: unknown) => {
    values.push(v);
    sets.push(sql.replace('$?', `$${values.length}`));
  };
  const um = obj(body.user_metadata);
  if (um) set("raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || $?::jsonb", um);
  const am = obj(body.app_metadata);
  if (am) set("raw_app_meta_data = coalesce(raw_app_meta_data, '{}'::jsonb) || $?::jsonb", am);
  if (body.email_confirm === true) sets.push('email_confirmed_at = coalesce(email_confirmed_at, now())');
  if (typeof body.ban_duration === 'string') {
    const m = /^(\d+)h$/.exec(body.ban_duration);
    if (body.ban_duration === 'none') sets.push('banned_until = null');
    else if (m) set("banned_until = now() + ($?::int * interval '1 hour')", Number(m[1]));
    else throw errors.validation('invalid format for ban duration');
  }
  if (typeof body.role === 'string') set('role = $?', body.role);
  if (!sets.length) return user;
  return (
    await ctx.pool.query(
      `update auth.users set ${sets.join(', ')}, updated_at = now() where id = $1 returning *`,
      values,
    )
  ).rows[0];
}

export const createUserAdmin: Handler = async (ctx, req, res) => {
  await requireAdmin(ctx, req);
  const body = await readJson(req);
  if (!body.email && !body.phone)
    throw errors.validation('Unable to validate request body: email or phone is required');
  const email = normalizeEmail(body.email);
  if (!email) throw errors.validation('Unable to validate email address: invalid format');
  if (body.id !== undefined && (typeof body.id !== 'string' || !isUuid(body.id) || /^0{8}-/.test(body.id)))
    throw errors.validation('id must be a valid UUID');
  if (await findByEmail(ctx.pool, email))
    throw new AuthError(422, 'email_exists', 'A user with this email address has already been registered');
  let user = await createUser(ctx.pool, {
    email,
    id: str(body.id),
    userMetadata: obj(body.user_metadata),
    appMetadata: obj(body.app_metadata),
    confirmed: body.email_confirm === true,
    role: str(body.role),
    admin: true,
  });
  user = await applyAttributes(ctx, user, { ban_duration: body.ban_duration });
  sendJson(res, 200, await userJson(ctx.pool, user));
};

export const listUsers: Handler = async (ctx, req, res, url) => {
  await requireAdmin(ctx, req);
  const page = Math.max(1, Number(url.searchParams.get('page')) || 1);
  const perPage = Math.min(1000, Math.max(1, Number(url.searchParams.get('per_page')) || 50));
  const filter = url.searchParams.get('filter');
  const where = `instance_id = $1 and aud = 'authenticated'${filter ? ` and (email ilike $2 or raw_user_meta_data->>'full_name' ilike $2)` : ''}`;
  const args: unknown[] = [INSTANCE_ID, ...(filter ? [`%${filter}%`] : [])];
  const total = Number((await ctx.pool.query(`select count(*) from auth.users where ${where}`, args)).rows[0].count);
  const rows = (
    await ctx.pool.query(
      `select * from auth.users where ${where} order by created_at desc limit ${perPage} offset ${(page - 1) * perPage}`,
      args,
    )
  ).rows as UserRow[];
  const users = await Promise.all(rows.map((u) => userJson(ctx.pool, u, false)));
  // GoTrue: Link with `page` as the first query key (auth-js parses it naively).
  const last = Math.max(1, Math.ceil(total / perPage));
  const link = (p: number, rel: string) => `</admin/users?page=${p}&per_page=${perPage}>; rel="${rel}"`;
  const links = [...(page < last ? [link(page + 1, 'next')] : []), link(last, 'last')];
  sendJson(res, 200, { users, aud: 'authenticated' }, { 'x-total-count': String(total), link: links.join(', ') });
};

export const getUserAdmin =
  (id: string): Handler =>
  async (ctx, req, res) => {
    await requireAdmin(ctx, req);
    sendJson(res, 200, await userJson(ctx.pool, await loadUser(ctx, id)));
  };

export const updateUserAdmin =
  (id: string): Handler =>
  async (ctx, req, res) => {
    await requireAdmin(ctx, req);
    const user = await loadUser(ctx, id);
    const body = await readJson(req);
    if (body.email !== undefined) {
      const email = normalizeEmail(body.email);
      if (!email) throw errors.validation('Unable to validate email address: invalid format');
      const other = await findByEmail(ctx.pool, email);
      if (other && other.id !== user.id)
        throw new AuthError(422, 'email_exists', 'A user with this email address has already been registered');
      await ctx.pool.query('update auth.users set email = $2 where id = $1', [user.id, email]);
    }
    sendJson(
      res,
      200,
      await userJson(ctx.pool, await applyAttributes(ctx, (await findById(ctx.pool, user.id))!, body)),
    );
  };

export const deleteUserAdmin =
  (id: string): Handler =>
  async (ctx, req, res) => {
    await requireAdmin(ctx, req);
    const user = await loadUser(ctx, id);
    const body = await readJson(req);
    if (body.should_soft_delete === true) {
      await tx(ctx.pool, async (c) => {
        await c.query(
          `update auth.users set email = null, phone = null, encrypted_password = '', confirmation_token = '', recovery_token = '',
           raw_user_meta_data = '{}', raw_app_meta_data = '{}', deleted_at = now(), updated_at = now() where id = $1`,
          [user.id],
        );
        await c.query('delete from auth.sessions where user_id = $1', [user.id]);
        await c.query('delete from auth.identities where user_id = $1', [user.id]);
      });
    } else {
      try {
        await ctx.pool.query('delete from auth.users where id = $1', [user.id]);
      } catch {
        // GoTrue: an app FK without ON DELETE CASCADE makes the delete fail.
        throw new AuthError(500, 'unexpected_failure', 'Database error deleting user');
      }
    }
    sendJson(res, 200, {});
  };

const LINK_TYPES = new Set(['signup', 'invite', 'magiclink', 'recovery']);

export const generateLink: Handler = async (ctx, req, res, url) => {
  await requireAdmin(ctx, req);
  const body = await readJson(req);
  let type = str(body.type) ?? '';
  if (!LINK_TYPES.has(type)) throw errors.validation('Invalid email action link type requested');
  const email = normalizeEmail(body.email);
  if (!email) throw errors.validation('Unable to validate email address: invalid format');
  const redirectTo = allowedRedirect(
    ctx.config,
    str(body.redirect_to) ?? url.searchParams.get('redirect_to') ?? undefined,
  );
  const { user, token } = await tx(ctx.pool, async (c) => {
    let user = await findByEmail(c, email);
    if (!user) {
      if (type === 'recovery') throw errors.userNotFound(404);
      type = type === 'magiclink' ? 'signup' : type; // GoTrue: magiclink for an unknown email becomes signup
      user = await createUser(c, { email, userMetadata: obj(body.data), confirmed: false });
    } else if ((type === 'signup' || type === 'invite') && user.email_confirmed_at) {
      throw new AuthError(422, 'email_exists', 'A user with this email address has already been registered');
    }
    const token = await issueToken(
      c,
      ctx,
      user,
      type === 'magiclink' || type === 'recovery' ? 'magiclink' : 'signup',
      false,
    );
    return { user: (await findById(c, user.id))!, token };
  });
  sendJson(res, 200, {
    ...(await userJson(ctx.pool, user)),
    action_link: verifyUrl(ctx.apiUrl, token.hash, type, redirectTo),
    email_otp: token.otp,
    hashed_token: token.hash,
    verification_type: type,
    redirect_to: redirectTo,
  });
};
