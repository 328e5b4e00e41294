// auth.users and auth.identities, read and written as GoTrue does (docs/reference/auth.md §1.11, §4).
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { errors } from './errors.ts';

export const INSTANCE_ID = '00000000-0000-0000-0000-000000000000';

export interface UserRow {
  id: string;
  aud: string;
  role: string;
  email: string | null;
  phone: string | null;
  encrypted_password: string | null;
  email_confirmed_at: Date | null;
  phone_confirmed_at: Date | null;
  confirmed_at: Date | null;
  invited_at: Date | null;
  confirmation_token: string | null;
  confirmation_sent_at: Date | null;
  recovery_token: string | null;
  recovery_sent_at: Date | null;
  email_change: string | null;
  email_change_token_new: string | null;
  email_change_token_current: string | null;
  email_change_confirm_status: number | null;
  email_change_sent_at: Date | null;
  phone_change: string | null;
  phone_change_token: string | null;
  phone_change_sent_at: Date | null;
  reauthentication_token: string | null;
  reauthentication_sent_at: Date | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Record<string, unknown> | null;
  raw_user_meta_data: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  banned_until: Date | null;
  deleted_at: Date | null;
  is_anonymous: boolean;
  is_sso_user: boolean;
}

type Db = pg.Pool | pg.PoolClient;

/** `lock` takes the row for the transaction, so two requests can't both use one code. */
export async function findByEmail(db: Db, email: string, lock = false): Promise<UserRow | undefined> {
  const r = await db.query(
    `select * from auth.users where instance_id = $1 and lower(email) = $2 and is_sso_user = false and deleted_at is null limit 1${
      lock ? ' for update' : ''
    }`,
    [INSTANCE_ID, email],
  );
  return r.rows[0];
}

/** GoTrue FindUserByPhoneAndAudience: phones are stored without "+". */
export async function findByPhone(db: Db, phone: string, lock = false): Promise<UserRow | undefined> {
  const r = await db.query(
    `select * from auth.users where instance_id = $1 and phone = $2 and is_sso_user = false and deleted_at is null limit 1${
      lock ? ' for update' : ''
    }`,
    [INSTANCE_ID, phone],
  );
  return r.rows[0];
}

export async function findById(db: Db, id: string, lock = false): Promise<UserRow | undefined> {
  return (await db.query(`select * from auth.users where id = $1${lock ? ' for update' : ''}`, [id])).rows[0];
}

/**
 * An unguessable stand-in for the random password GoTrue hashes for users made by /otp: a well-formed
 * bcrypt string no password matches, without bcrypt's cost on the code sign-in path.
 */
export const randomPasswordHash = () =>
  '$2a$10$' +
  randomBytes(40)
    .toString('base64')
    .replace(/[^a-zA-Z0-9./]/g, '')
    .slice(0, 53);

/** GoTrue provider.Claims for a new email or phone identity (structs.Map: the *_verified flags always present). */
export const identityClaims = (id: string, o: { email?: string; phone?: string; emailVerified?: boolean }) => ({
  sub: id,
  ...(o.email ? { email: o.email } : {}),
  ...(o.phone ? { phone: o.phone } : {}),
  email_verified: o.emailVerified ?? false,
  phone_verified: false,
});

export interface NewUser {
  email?: string;
  phone?: string;
  /** The stored hash; '' for a user without a password (invited, anonymous). */
  passwordHash: string;
  userMetadata?: Record<string, unknown>;
  appMetadata?: Record<string, unknown>;
  /**
   * 'signup' (/signup, /otp): user_metadata becomes the identity's data with `data` added
   * (RemoveUnconfirmedIdentities); 'given' (admin, invite, generate_link): `data` as passed.
   */
  metadata: 'signup' | 'given';
  /** Email confirmed now (autoconfirm, email_confirm): email_verified true in user_metadata (User.Confirm). */
  confirmed?: boolean;
  phoneConfirmed?: boolean;
  anonymous?: boolean;
  invited?: boolean;
  id?: string;
  role?: string;
}

/** A new user and its email/phone identities, as GoTrue's signup, admin create, invite and anonymous sign-in make them. */
export async function createUser(db: Db, o: NewUser): Promise<UserRow> {
  const id = o.id ?? randomUUID();
  const providers = [...(o.email ? ['email'] : []), ...(o.phone ? ['phone'] : [])];
  const data = o.userMetadata ?? {};
  const claims = identityClaims(id, o);
  // signup.go: the identity's claims win over `data` keys of the same name.
  const userMetadata = {
    ...(o.metadata === 'signup' ? { ...data, ...claims } : data),
    ...(o.confirmed ? { email_verified: true } : {}),
  };
  // signup.go ToUserModel: anonymous users get no provider; admin create merges app_metadata over it.
  const appMetadata = {
    ...(o.anonymous ? {} : { provider: providers[0], providers }),
    ...(o.appMetadata ?? {}),
  };
  // Token columns are '' not NULL: GoTrue scans them into plain strings (supabase/auth#1940).
  // An app trigger on auth.users that fails answers as GoTrue does (signup.go signupNewUser).
  const r = await db
    .query(
      `insert into auth.users (instance_id, id, aud, role, email, phone, encrypted_password, email_confirmed_at, phone_confirmed_at,
       invited_at, confirmation_token, recovery_token, email_change_token_new, email_change, raw_app_meta_data, raw_user_meta_data,
       is_super_admin, created_at, updated_at, is_anonymous)
     values ($1, $2, 'authenticated', $3, $4, $5, $6, case when $7 then now() end, case when $8 then now() end,
       case when $9 then now() end, '', '', '', '', $10, $11, false, now(), now(), $12)
     returning *`,
      [
        INSTANCE_ID,
        id,
        o.role ?? 'authenticated',
        o.email ?? null,
        o.phone ?? null,
        o.passwordHash,
        !!o.confirmed,
        !!o.phoneConfirmed,
        !!o.invited,
        appMetadata,
        userMetadata,
        !!o.anonymous,
      ],
    )
    .catch((err) => {
      throw Object.assign(errors.internal('Database error saving new user'), {
        cause: err,
      });
    });
  for (const provider of o.anonymous ? [] : providers)
    await db.query(
      `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at, last_sign_in_at)
       values ($1::text, $2::uuid, $3, $4, now(), now(), now())`,
      [
        id,
        id,
        provider === 'email' ? identityClaims(id, { email: o.email }) : identityClaims(id, { phone: o.phone }),
        provider,
      ],
    );
  return r.rows[0];
}

/** User.UpdateAppMetaDataProviders: provider and providers from the user's identities. */
export async function updateProviders(db: Db, userId: string): Promise<UserRow> {
  return (
    await db.query(
      `update auth.users u set raw_app_meta_data = coalesce(u.raw_app_meta_data, '{}'::jsonb) ||
         (select case when count(*) = 0 then jsonb_build_object('providers', '[]'::jsonb)
                 else jsonb_build_object('provider', (array_agg(provider order by first))[1], 'providers', jsonb_agg(provider order by first)) end
          from (select provider, min(created_at) as first from auth.identities where user_id = u.id group by provider) p)
       where id = $1 returning *`,
      [userId],
    )
  ).rows[0];
}

/** User.Confirm: email confirmed now, email_verified in user_metadata, every one-time code gone. */
export async function confirmEmail(db: Db, userId: string): Promise<UserRow> {
  return (
    await db.query(
      `with ott as (delete from auth.one_time_tokens where user_id = $1)
       update auth.users set confirmation_token = '', email_confirmed_at = now(), updated_at = now(),
         raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || '{"email_verified": true}'::jsonb
       where id = $1 returning *`,
      [userId],
    )
  ).rows[0];
}

/** User.ConfirmPhone. */
export async function confirmPhone(db: Db, userId: string): Promise<UserRow> {
  return (
    await db.query(
      `with ott as (delete from auth.one_time_tokens where user_id = $1)
       update auth.users set confirmation_token = '', phone_confirmed_at = now(), updated_at = now() where id = $1 returning *`,
      [userId],
    )
  ).rows[0];
}

/** User.UpdateUserMetaData: a shallow merge, keys set to null removed. */
export async function mergeUserMetadata(db: Db, userId: string, data: Record<string, unknown>): Promise<UserRow> {
  const set = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== null));
  const removed = Object.keys(data).filter((k) => data[k] === null);
  return (
    await db.query(
      `update auth.users set raw_user_meta_data = (coalesce(raw_user_meta_data, '{}'::jsonb) || $2::jsonb) - $3::text[], updated_at = now()
       where id = $1 returning *`,
      [userId, set, removed],
    )
  ).rows[0];
}

/** A row of auth.identities as pg returns it. */
export interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: unknown;
  provider: string;
  email: string | null;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : undefined);

/** The JSON GoTrue serializes for a user (models/user.go): nulls omitted, tokens never included. */
/** `identities`: load them (true), leave them out (false, as GoTrue's user list), or rows already read. */
export async function userJson(
  db: Db,
  user: UserRow,
  identities: boolean | IdentityRow[] = true,
): Promise<Record<string, unknown>> {
  const rows =
    identities === true
      ? (await db.query('select * from auth.identities where user_id = $1 order by created_at', [user.id])).rows
      : identities;
  // models/user.go: `factors` only when the user has some (json omitempty).
  const factors = (
    await db.query(
      `select id, friendly_name, factor_type, status, created_at, updated_at, phone, last_challenged_at
       from auth.mfa_factors where user_id = $1 order by created_at`,
      [user.id],
    )
  ).rows.map(factorJson);
  const identityJson = rows
    ? rows.map((i) => ({
        identity_id: i.id,
        id: i.provider_id,
        user_id: i.user_id,
        identity_data: i.identity_data,
        provider: i.provider,
        last_sign_in_at: iso(i.last_sign_in_at),
        created_at: iso(i.created_at),
        updated_at: iso(i.updated_at),
        email: i.email ?? undefined,
      }))
    : undefined;
  const json: Record<string, unknown> = {
    id: user.id,
    aud: user.aud ?? '',
    role: user.role ?? '',
    email: user.email ?? '',
    email_confirmed_at: iso(user.email_confirmed_at),
    invited_at: iso(user.invited_at),
    phone: user.phone ?? '',
    phone_confirmed_at: iso(user.phone_confirmed_at),
    confirmation_sent_at: iso(user.confirmation_sent_at),
    confirmed_at: iso(user.confirmed_at),
    recovery_sent_at: iso(user.recovery_sent_at),
    new_email: user.email_change || undefined,
    email_change_sent_at: iso(user.email_change_sent_at),
    new_phone: user.phone_change || undefined,
    phone_change_sent_at: iso(user.phone_change_sent_at),
    reauthentication_sent_at: iso(user.reauthentication_sent_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    factors: factors.length ? factors : undefined,
    identities: identityJson,
    created_at: iso(user.created_at),
    updated_at: iso(user.updated_at),
    banned_until: iso(user.banned_until),
    deleted_at: iso(user.deleted_at),
    is_anonymous: user.is_anonymous ?? false,
  };
  for (const k of Object.keys(json)) if (json[k] === undefined) delete json[k];
  return json;
}

/** A row of auth.mfa_factors as GoTrue serializes it (models/factor.go). */
export const factorJson = (f: Record<string, unknown>) => ({
  id: f.id,
  friendly_name: f.friendly_name || undefined,
  factor_type: f.factor_type,
  status: f.status,
  created_at: iso(f.created_at as Date),
  updated_at: iso(f.updated_at as Date),
  phone: f.phone ?? '',
  last_challenged_at: iso(f.last_challenged_at as Date) ?? null,
});

export const isBanned = (u: UserRow) => !!u.banned_until && new Date(u.banned_until) > new Date();
