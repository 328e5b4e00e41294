// auth.users and auth.identities, read and written as GoTrue does (docs/reference/auth.md §1.11, §4).
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';

export const INSTANCE_ID = '00000000-0000-0000-0000-000000000000';

export interface UserRow {
  id: string;
  aud: string;
  role: string;
  email: string | null;
  phone: string | null;
  email_confirmed_at: Date | null;
  phone_confirmed_at: Date | null;
  confirmed_at: Date | null;
  invited_at: Date | null;
  confirmation_token: string | null;
  confirmation_sent_at: Date | null;
  recovery_token: string | null;
  recovery_sent_at: Date | null;
  email_change: string | null;
  email_change_sent_at: Date | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Record<string, unknown> | null;
  raw_user_meta_data: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  banned_until: Date | null;
  deleted_at: Date | null;
  is_anonymous: boolean;
}

type Db = pg.Pool | pg.PoolClient;

/** `lock` takes the row for the transaction, so two requests can't both use one code. */
export async function findByEmail(db: Db, email: string, lock = false): Promise<UserRow | undefined> {
  const r = await db.query(
    `select * from auth.users where instance_id = $1 and lower(email) = $2 and is_sso_user = false and deleted_at is null limit 1${lock ? ' for update' : ''}`,
    [INSTANCE_ID, email],
  );
  return r.rows[0];
}

export async function findById(db: Db, id: string, lock = false): Promise<UserRow | undefined> {
  return (await db.query(`select * from auth.users where id = $1${lock ? ' for update' : ''}`, [id])).rows[0];
}

/** A new email user, as GoTrue's signup creates it (random password, an email identity). */
export async function createUser(
  db: Db,
  o: {
    email: string;
    userMetadata?: Record<string, unknown>;
    appMetadata?: Record<string, unknown>;
    confirmed: boolean;
    id?: string;
    role?: string;
    /** adminUserCreate keeps user_metadata as given; signups copy the identity data into it. */
    admin?: boolean;
  },
): Promise<UserRow> {
  const id = o.id ?? randomUUID();
  const identityData = { sub: id, email: o.email, email_verified: o.confirmed, phone_verified: false };
  const userMetadata = o.admin
    ? { ...(o.userMetadata ?? {}), ...(o.confirmed ? { email_verified: true } : {}) }
    : { ...identityData, ...(o.userMetadata ?? {}) };
  const appMetadata = { provider: 'email', providers: ['email'], ...(o.appMetadata ?? {}) };
  const password =
    '$2a$10$' +
    randomBytes(40)
      .toString('base64')
      .replace(/[^a-zA-Z0-9./]/g, '')
      .slice(0, 53);
  // Token columns are '' not NULL: GoTrue scans them into plain strings (supabase/auth#1940).
  const r = await db.query(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
       confirmation_token, recovery_token, email_change_token_new, email_change, raw_app_meta_data, raw_user_meta_data,
       is_super_admin, created_at, updated_at, is_anonymous)
     values ($1, $2, 'authenticated', $3, $4, $5, $6, '', '', '', '', $7, $8, false, now(), now(), false)
     returning *`,
    [
      INSTANCE_ID,
      id,
      o.role ?? 'authenticated',
      o.email,
      password,
      o.confirmed ? new Date() : null,
      appMetadata,
      userMetadata,
    ],
  );
  await db.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at, last_sign_in_at)
     values ($1::text, $2::uuid, $3, 'email', now(), now(), now())`,
    [id, id, identityData],
  );
  return r.rows[0];
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
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
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

export const isBanned = (u: UserRow) => !!u.banned_until && new Date(u.banned_until) > new Date();
