// /admin/users…, /admin/generate_link and /invite, service_role only (GoTrue admin.go, mail.go adminGenerateLink,
// invite.go; docs/reference/auth.md §1.15, supabase-fidelity.md §1.7–1.9).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { tx, type AuthContext, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { requireAdmin } from './guard.ts';
import { isUuid, obj, readJson, str, validateEmail, validatePhone } from './http.ts';
import { verifyUrl } from './mail.ts';
import { checkPasswordStrength, hashPassword } from './password.ts';
import { allowedRedirect } from './redirect.ts';
import { generateOtp, sendInvite, storeToken, tokenHash } from './send.ts';
import { beforeUserCreated } from './signup.ts';
import {
  confirmEmail,
  confirmPhone,
  createUser,
  findByEmail,
  findById,
  findByPhone,
  INSTANCE_ID,
  mergeUserMetadata,
  userJson,
  type UserRow,
} from './users.ts';

async function loadUser(ctx: AuthContext, id: string): Promise<UserRow> {
  if (!isUuid(id)) throw new AuthError(404, 'validation_failed', 'user_id must be an UUID');
  const user = await findById(ctx.pool, id);
  if (!user) throw errors.userNotFound(404);
  return user;
}

/** Go's time.ParseDuration, in milliseconds (ban_duration: "24h", "1h30m", "none"). */
function banDuration(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  if (v === 'none') return 0;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let at = 0;
  const body = v.replace(/^[+-]/, '');
  while ((m = re.exec(body))) {
    total += Number(m[1]) * units[m[2]];
    at = re.lastIndex;
  }
  if (!body || at !== body.length)
    throw errors.validation(`invalid format for ban duration: time: invalid duration "${v}"`);
  return v.startsWith('-') ? -total : total;
}

/** models/user.go NewUserWithPasswordHash: a bcrypt hash (Argon2 and Firebase scrypt imports can't be checked here). */
function importedHash(hash: string) {
  if (!/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(hash)) throw errors.internal('Error creating user');
  return hash;
}

export const createUserAdmin: Handler = async (ctx, req, res) => {
  await requireAdmin(ctx, req);
  const body = await readJson(req);
  if (!str(body.email) && !str(body.phone))
    throw errors.validation('Cannot create a user without either an email or phone');
  const email = str(body.email) ? validateEmail(body.email) : undefined;
  if (email && (await findByEmail(ctx.pool, email))) throw errors.emailExists();
  const phone = str(body.phone) ? validatePhone(body.phone) : undefined;
  if (phone && (await findByPhone(ctx.pool, phone)))
    throw new AuthError(422, 'phone_exists', 'Phone number already registered by another user');
  const password = typeof body.password === 'string' ? body.password : undefined;
  const hash = str(body.password_hash) ?? '';
  if (body.password !== undefined && body.password !== null && hash)
    throw errors.validation('Only a password or a password hash should be provided');
  if (body.id !== undefined && body.id !== '') {
    if (typeof body.id !== 'string' || !isUuid(body.id))
      throw errors.validation('ID must conform to the uuid v4 format');
    if (/^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(body.id)) throw errors.validation('ID cannot be a nil uuid');
  }
  const ban = banDuration(body.ban_duration);
  // admin.go: no policy check here; without a password the user gets a random one.
  const passwordHash = hash ? importedHash(hash) : await hashPassword(password || randomUUID() + randomUUID());
  const user = await tx(ctx.pool, async (c) => {
    let u = await createUser(c, {
      email,
      phone,
      id: str(body.id) || undefined,
      passwordHash,
      userMetadata: obj(body.user_metadata),
      appMetadata: obj(body.app_metadata),
      metadata: 'given',
      role: str(body.role) || undefined,
    });
    if (body.email_confirm === true) u = await confirmEmail(c, u.id);
    if (body.phone_confirm === true) u = await confirmPhone(c, u.id);
    if (ban !== undefined) u = await setBan(c, u.id, ban);
    return u;
  });
  sendJson(res, 200, await userJson(ctx.pool, user));
};

const setBan = async (c: pg.PoolClient, id: string, ms: number): Promise<UserRow> =>
  (
    await c.query(
      `update auth.users set banned_until = case when $2::float8 = 0 then null else now() + $2::float8 * interval '1 millisecond' end
       where id = $1 returning *`,
      [id, ms],
    )
  ).rows[0];

const DEFAULT_PER_PAGE = 50;

/** pagination.go paginate: page and per_page as unsigned integers, the error text Go's strconv gives. */
function pageParam(url: URL, name: 'page' | 'per_page', d: number): number {
  const v = url.searchParams.get(name);
  if (v === null || v === '') return d;
  if (!/^\d+$/.test(v) || Number(v) > Number.MAX_SAFE_INTEGER)
    throw errors.validation(
      `Bad Pagination Parameters: strconv.ParseUint: parsing ${JSON.stringify(v)}: invalid syntax`,
    );
  return Number(v);
}

export const listUsers: Handler = async (ctx, req, res, url) => {
  await requireAdmin(ctx, req);
  const page = pageParam(url, 'page', 1);
  const perPage = pageParam(url, 'per_page', DEFAULT_PER_PAGE);
  // Upstream divides by per_page=0 and panics (500); a clear 400 says the same thing.
  if (perPage === 0) throw errors.validation('Bad Pagination Parameters: per_page must be greater than 0');
  // sorting.go: only created_at, asc or desc.
  let order = 'created_at desc';
  for (const sort of url.searchParams.getAll('sort')) {
    const [field, dir = 'desc'] = sort.split(' ', 2);
    if (field !== 'created_at') throw errors.validation(`Bad Sort Parameters: bad field for sort '${field}'`);
    if (!['asc', 'desc'].includes(dir.toLowerCase()))
      throw errors.validation(`Bad Sort Parameters: bad direction for sort '${dir}', only 'asc' and 'desc' allowed`);
    order = `created_at ${dir.toLowerCase()}`;
  }
  const filter = url.searchParams.get('filter');
  // models/user.go FindUsersInAudience: email LIKE (case-sensitive), full_name ILIKE.
  const where = `instance_id = $1 and aud = 'authenticated'${filter ? ` and (email like $2 or raw_user_meta_data->>'full_name' ilike $2)` : ''}`;
  const args: unknown[] = [INSTANCE_ID, ...(filter ? [`%${filter}%`] : [])];
  const total = Number((await ctx.pool.query(`select count(*) from auth.users where ${where}`, args)).rows[0].count);
  const rows = (
    await ctx.pool.query(
      `select * from auth.users where ${where} order by ${order} limit ${perPage} offset ${(Math.max(page, 1) - 1) * perPage}`,
      args,
    )
  ).rows as UserRow[];
  const users = await Promise.all(rows.map((u) => userJson(ctx.pool, u, false)));
  // pagination.go addPaginationHeaders: the request's own query, keys sorted (so `page` usually first).
  const last = Math.ceil(total / perPage);
  const link = (p: number, rel: string) => {
    const q = new URLSearchParams(url.searchParams);
    q.set('page', String(p));
    q.sort();
    return `</admin/users?${q}>; rel="${rel}"`;
  };
  const links = [...(last > page ? [link(page + 1, 'next')] : []), link(last, 'last')];
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
    const email = str(body.email) ? validateEmail(body.email) : undefined;
    const phone = str(body.phone) ? validatePhone(body.phone) : undefined;
    const ban = banDuration(body.ban_duration);
    let passwordHash: string | undefined;
    if (typeof body.password === 'string') {
      checkPasswordStrength(ctx.config, body.password);
      passwordHash = await hashPassword(body.password);
    }
    if (email) {
      const other = await findByEmail(ctx.pool, email);
      if (other && other.id !== user.id) throw errors.emailExists();
    }
    const updated = await tx(ctx.pool, async (c) => {
      if (str(body.role)) await c.query('update auth.users set role = $2 where id = $1', [id, body.role]);
      if (body.email_confirm === true) await confirmEmail(c, id);
      if (body.phone_confirm === true) await confirmPhone(c, id);
      if (passwordHash !== undefined)
        await c.query(
          `with ott as (delete from auth.one_time_tokens where user_id = $1), sessions as (delete from auth.sessions where user_id = $1)
           update auth.users set encrypted_password = $2, recovery_token = '', confirmation_token = '', reauthentication_token = '' where id = $1`,
          [id, passwordHash],
        );
      // admin.go: the email or phone identity follows the new address (made if missing), verified as email_confirm says.
      for (const [provider, value, verified] of [
        ['email', email, body.email_confirm === true],
        ['phone', phone, body.phone_confirm === true],
      ] as const) {
        if (!value) continue;
        const data =
          provider === 'email'
            ? { email: value, email_verified: verified }
            : { phone: value, phone_verified: verified };
        const changed = await c.query(
          `update auth.identities set identity_data = identity_data || $3::jsonb, updated_at = now() where user_id = $1 and provider = $2`,
          [id, provider, data],
        );
        if (!changed.rowCount)
          await c.query(
            `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at, last_sign_in_at)
             values ($1::text, $1::uuid, $3, $2, now(), now(), now())`,
            [id, provider, { sub: id, email_verified: false, phone_verified: false, ...data }],
          );
        await c.query(
          `update auth.users set ${provider} = $2, is_anonymous = case when $3 then false else is_anonymous end where id = $1`,
          [id, value, verified],
        );
      }
      const am = obj(body.app_metadata);
      if (am)
        await c.query(
          "update auth.users set raw_app_meta_data = coalesce(raw_app_meta_data, '{}'::jsonb) || $2::jsonb where id = $1",
          [id, am],
        );
      const um = obj(body.user_metadata);
      if (um) await mergeUserMetadata(c, id, um);
      if (ban !== undefined) await setBan(c, id, ban);
      return (await c.query('update auth.users set updated_at = now() where id = $1 returning *', [id])).rows[0];
    });
    sendJson(res, 200, await userJson(ctx.pool, updated));
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
        throw errors.internal('Database error deleting user');
      }
    }
    sendJson(res, 200, {});
  };

/** POST /invite: a new (or still unconfirmed) user and the invitation email (invite.go). */
export const invite: Handler = async (ctx, req, res, url) => {
  await requireAdmin(ctx, req);
  const body = await readJson(req);
  const email = validateEmail(body.email);
  const redirectTo = allowedRedirect(
    ctx.config,
    str(body.redirect_to) ?? url.searchParams.get('redirect_to') ?? undefined,
  );
  const draft = { id: randomUUID(), email, passwordHash: '', userMetadata: obj(body.data), metadata: 'given' as const };
  if (!(await findByEmail(ctx.pool, email))) await beforeUserCreated(ctx, req, draft);
  const user = await tx(ctx.pool, async (c) => {
    await c.query('select pg_advisory_xact_lock(hashtext($1))', [email]);
    let u = await findByEmail(c, email, true);
    if (u?.email_confirmed_at) throw errors.emailExists();
    u ??= await createUser(c, draft);
    await sendInvite(c, ctx, req, u, redirectTo);
    return (await findById(c, u.id))!;
  });
  sendJson(res, 200, await userJson(ctx.pool, user));
};

const LINK_TYPES = new Set(['signup', 'invite', 'magiclink', 'recovery', 'email_change_current', 'email_change_new']);

/** POST /admin/generate_link (mail.go adminGenerateLink): the link and code an email would carry, no email sent. */
export const generateLink: Handler = async (ctx, req, res, url) => {
  await requireAdmin(ctx, req);
  const body = await readJson(req);
  const email = validateEmail(body.email);
  let type = str(body.type) ?? '';
  const requested = str(body.redirect_to) ?? url.searchParams.get('redirect_to') ?? undefined;
  const redirectTo = allowedRedirect(ctx.config, requested);
  const data = obj(body.data);
  const existing = await findByEmail(ctx.pool, email);
  let password = str(body.password) ?? '';
  if (!existing) {
    if (type === 'magiclink') {
      type = 'signup'; // mail.go: a magic link for an unknown address signs it up, with a random password
      password = randomUUID() + randomUUID();
    } else if (type === 'recovery' || type === 'email_change_current' || type === 'email_change_new')
      throw new AuthError(404, 'user_not_found', 'User with this email not found');
  }
  if (!LINK_TYPES.has(type)) throw errors.validation(`Invalid email action link type requested: ${type}`);
  let draft: (Parameters<typeof createUser>[1] & { id: string }) | undefined;
  if (!existing && (type === 'signup' || type === 'invite')) {
    // signup.go validateSignupParams for a new signup; an invitation has no password.
    if (type === 'signup') {
      if (!password) throw errors.validation('Signup requires a valid password');
      checkPasswordStrength(ctx.config, password);
    }
    draft = {
      id: randomUUID(),
      email,
      passwordHash: type === 'signup' ? await hashPassword(password) : '',
      userMetadata: data,
      metadata: 'given',
    };
    await beforeUserCreated(ctx, req, draft);
  }
  const otp = generateOtp(ctx.config.email.otpLength);
  const hashed = tokenHash(email, otp);
  const user = await tx(ctx.pool, async (c) => {
    let u = await findByEmail(c, email, true);
    switch (type) {
      case 'magiclink':
      case 'recovery':
        await storeToken(c, u!.id, 'recovery_token', hashed, email);
        break;
      case 'invite':
      case 'signup':
        if (u?.email_confirmed_at) throw errors.emailExists();
        if (u && type === 'signup' && data) await mergeUserMetadata(c, u.id, data);
        u ??= await createUser(c, draft!);
        await storeToken(c, u.id, 'confirmation_token', hashed, email, type === 'invite' ? ', invited_at = now()' : '');
        break;
      default: {
        // email_change_current / email_change_new
        if (!ctx.config.email.doubleConfirmChanges && type === 'email_change_current')
          throw errors.validation('Enable secure email change to generate link for current email');
        const newEmail = validateEmail(body.new_email);
        const other = await findByEmail(c, newEmail);
        if (other && other.id !== u!.id) throw errors.emailExists();
        const current = type === 'email_change_current';
        await c.query(
          `update auth.users set email_change = $2, email_change_confirm_status = 0, email_change_token_current = '', email_change_token_new = ''
           where id = $1`,
          [u!.id, newEmail],
        );
        await storeToken(
          c,
          u!.id,
          current ? 'email_change_token_current' : 'email_change_token_new',
          current ? hashed : tokenHash(newEmail, otp),
          current ? email : newEmail,
        );
      }
    }
    return (await findById(c, u!.id))!;
  });
  // templatemailer.go GetEmailActionLink: the stored token, both email change types as type=email_change.
  const stored =
    type === 'magiclink' || type === 'recovery'
      ? user.recovery_token
      : type === 'signup' || type === 'invite'
        ? user.confirmation_token
        : type === 'email_change_current'
          ? user.email_change_token_current
          : user.email_change_token_new;
  sendJson(res, 200, {
    ...(await userJson(ctx.pool, user)),
    action_link: verifyUrl(ctx.apiUrl, stored!, type.startsWith('email_change') ? 'email_change' : type, redirectTo),
    email_otp: otp,
    hashed_token: hashed,
    verification_type: type,
    redirect_to: redirectTo,
  });
};
