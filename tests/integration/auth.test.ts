// The local Auth service through the gateway, with the real clients: supabase-js and @supabase/ssr.
import { createServerClient } from '@supabase/ssr';
import { createClient } from '@supabase/supabase-js';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { waitForMail } from '../../scripts/lib/mail.ts';
import { clientFor as client, newEmail, signInWithCode as signIn } from '../support/stack.ts';

describe('auth with Tend settings', () => {
  const stack = stackFixture();
  /** A server-side client whose cookies live in `jar` (what a request's and its response's cookies are). */
  const cookieClient = (jar: Map<string, string>) =>
    createServerClient(stack.apiUrl, stack.anonKey, {
      cookies: {
        getAll: () => [...jar].map(([name, value]) => ({ name, value })),
        setAll: (cookies) => {
          for (const { name, value, options } of cookies) {
            if (options.maxAge === 0) jar.delete(name);
            else jar.set(name, value);
          }
        },
      },
    });

  it('signs in with the emailed 6-digit code and returns the user', async () => {
    const { c, email, session } = await signIn(stack);
    expect(session.access_token).toBeTruthy();
    expect(session.user.email).toBe(email);
    const { data } = await c.auth.getUser();
    expect(data.user?.email).toBe(email);
    expect(data.user?.app_metadata).toMatchObject({ provider: 'email', providers: ['email'] });
    const claims = (await c.auth.getClaims()).data?.claims;
    expect(claims).toMatchObject({
      sub: session.user.id,
      role: 'authenticated',
      aud: 'authenticated',
      email,
      aal: 'aal1',
      is_anonymous: false,
    });
    expect(claims?.session_id).toBeTruthy();
    expect(claims?.iss).toBe(`${stack.apiUrl}/auth/v1`);
  });

  it('fires app triggers on auth.users and lets PostgREST see only the user’s own rows', async () => {
    const a = await signIn(stack);
    const b = await signIn(stack);
    const { data, error } = await a.c.from('profiles').select('user_id, email');
    expect(error).toBeNull();
    expect(data).toEqual([{ user_id: a.session.user.id, email: a.email }]);
    expect((await b.c.from('profiles').select('email')).data).toEqual([{ email: b.email }]);
  });

  it('sends the code in an email whose link carries the token hash, and verifyOtp accepts that hash', async () => {
    const email = newEmail();
    const c = client(stack);
    await c.auth.signInWithOtp({ email });
    const mail = await waitForMail(stack.mailUrl, email);
    expect(mail.text).toContain(mail.code);
    const hash = /token_hash=([a-z0-9_]+)/.exec(mail.html)?.[1];
    expect(hash).toMatch(/^[0-9a-f]{56}$/);
    const { data, error } = await client(stack).auth.verifyOtp({ token_hash: hash!, type: 'email' });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
  });

  it('completes the PKCE link flow with exchangeCodeForSession', async () => {
    const email = newEmail();
    const c = client(stack, { pkce: true });
    await c.auth.signInWithOtp({ email, options: { emailRedirectTo: 'http://localhost:3000/auth/callback' } });
    const mail = await waitForMail(stack.mailUrl, email);
    const hash = /token_hash=([a-z0-9_]+)/.exec(mail.html)![1];
    expect(hash.startsWith('pkce_')).toBe(true);
    const link = await fetch(
      `${stack.apiUrl}/auth/v1/verify?token=${hash}&type=magiclink&redirect_to=${encodeURIComponent('http://localhost:3000/auth/callback')}`,
      {
        redirect: 'manual',
      },
    );
    expect(link.status).toBe(303);
    const location = new URL(link.headers.get('location')!);
    expect(location.origin + location.pathname).toBe('http://localhost:3000/auth/callback');
    const code = location.searchParams.get('code')!;
    const { data, error } = await c.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    // The auth code is single use.
    const again = await c.auth.exchangeCodeForSession(code);
    expect(again.error).not.toBeNull();
  });

  it('signs in on the server with createServerClient and a cookie jar, then reads the user from cookies', async () => {
    const jar = new Map<string, string>();
    const server = () => cookieClient(jar);
    const email = newEmail();
    expect((await server().auth.signInWithOtp({ email })).error).toBeNull();
    const { code } = await waitForMail(stack.mailUrl, email);
    const verified = await server().auth.verifyOtp({ email, token: code, type: 'email' });
    expect(verified.error).toBeNull();
    expect([...jar.keys()].some((k) => k.startsWith('sb-') && k.includes('auth-token'))).toBe(true);
    const { data } = await server().auth.getUser();
    expect(data.user?.email).toBe(email);
    const claims = await server().auth.getClaims();
    expect(claims.data?.claims.email).toBe(email);
    await server().auth.signOut({ scope: 'local' });
    expect([...jar.keys()].filter((k) => k.includes('auth-token'))).toEqual([]);
  });

  it('signs in from the emailed link the way Tend’s /auth/confirm does: server-side verifyOtp with a pkce_ token hash', async () => {
    const requestJar = new Map<string, string>(); // the browser that asked for the code
    const linkJar = new Map<string, string>(); // possibly another browser, where the link is opened
    const server = cookieClient;
    const email = newEmail();
    // As Tend's sign-in sends it (app/lib/auth/sign-in-link.server.ts): the app's own origin and the deep link.
    const emailRedirectTo = 'http://localhost:3300/auth/confirm?next=%2Faccount';
    expect((await server(requestJar).auth.signInWithOtp({ email, options: { emailRedirectTo } })).error).toBeNull();
    const mail = await waitForMail(stack.mailUrl, email);
    const link = new URL(/href="([^"]*\/auth\/confirm[^"]*)"/.exec(mail.html)![1].replace(/&amp;/g, '&'));
    expect(link.origin + link.pathname).toBe('http://localhost:3300/auth/confirm');
    expect(link.searchParams.get('next')).toBe('/account');
    expect(link.searchParams.get('type')).toBe('email');
    const tokenHash = link.searchParams.get('token_hash')!;
    expect(tokenHash).toMatch(/^pkce_[0-9a-f]{56}$/); // @supabase/ssr always uses PKCE
    const { data, error } = await server(linkJar).auth.verifyOtp({ token_hash: tokenHash, type: 'email' });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    expect((await server(linkJar).auth.getUser()).data.user?.email).toBe(email);
  });

  it('rotates refresh tokens, and a reuse within the interval returns the active token', async () => {
    const { c, session } = await signIn(stack);
    const first = session.refresh_token;
    const r1 = await c.auth.refreshSession({ refresh_token: first });
    expect(r1.error).toBeNull();
    const second = r1.data.session!.refresh_token;
    expect(second).not.toBe(first);
    expect(r1.data.session!.user.id).toBe(session.user.id);
    const reuse = await client(stack).auth.refreshSession({ refresh_token: first });
    expect(reuse.error).toBeNull();
    expect(reuse.data.session!.refresh_token).toBe(second);
    // An older token (not the active one's parent) is still tolerated within refresh_token_reuse_interval (10 s).
    const third = (await client(stack).auth.refreshSession({ refresh_token: second })).data.session!.refresh_token;
    const older = await client(stack).auth.refreshSession({ refresh_token: first });
    expect(older.error).toBeNull();
    expect([first, second, third]).not.toContain(older.data.session!.refresh_token);
  });

  it('refuses a wrong code, a used code and an expired code with 403 otp_expired', async () => {
    const email = newEmail();
    const c = client(stack);
    await c.auth.signInWithOtp({ email });
    const { code } = await waitForMail(stack.mailUrl, email);
    const wrong = await c.auth.verifyOtp({ email, token: code === '000000' ? '111111' : '000000', type: 'email' });
    expect(wrong.error).toMatchObject({ status: 403, code: 'otp_expired' });
    expect((await c.auth.verifyOtp({ email, token: code, type: 'email' })).error).toBeNull();
    const used = await client(stack).auth.verifyOtp({ email, token: code, type: 'email' });
    expect(used.error).toMatchObject({ status: 403, code: 'otp_expired' });

    const late = newEmail();
    await c.auth.signInWithOtp({ email: late });
    const lateMail = await waitForMail(stack.mailUrl, late);
    // The code was sent 601 s ago (config: otp_expiry = 600).
    await stack.sql(`update auth.users set recovery_sent_at = now() - interval '601 seconds' where email = $1`, [late]);
    const expired = await c.auth.verifyOtp({ email: late, token: lateMail.code, type: 'email' });
    expect(expired.error).toMatchObject({ status: 403, code: 'otp_expired' });
  });

  it('replaces the previous code when a new one is sent', async () => {
    const email = newEmail();
    const c = client(stack);
    await c.auth.signInWithOtp({ email });
    const firstMail = await waitForMail(stack.mailUrl, email);
    await stack.sql(`update auth.users set recovery_sent_at = now() - interval '61 seconds' where email = $1`, [email]);
    await c.auth.signInWithOtp({ email });
    const second = await waitForMail(stack.mailUrl, email, 2);
    if (firstMail.code !== second.code) {
      expect((await c.auth.verifyOtp({ email, token: firstMail.code, type: 'email' })).error?.code).toBe('otp_expired');
    }
    expect((await c.auth.verifyOtp({ email, token: second.code, type: 'email' })).error).toBeNull();
  });

  it('stores codes only as hashes', async () => {
    const email = newEmail();
    await client(stack).auth.signInWithOtp({ email });
    const { code } = await waitForMail(stack.mailUrl, email);
    const { rows } = await stack.sql(
      `select u.recovery_token, t.token_hash from auth.users u join auth.one_time_tokens t on t.user_id = u.id where u.email = $1`,
      [email],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].recovery_token).toBe(rows[0].token_hash);
    expect(rows[0].token_hash).not.toContain(code);
  });

  it('refuses a second code within max_frequency with 429 and the seconds left', async () => {
    const email = newEmail();
    const c = client(stack);
    expect((await c.auth.signInWithOtp({ email })).error).toBeNull();
    const again = await c.auth.signInWithOtp({ email });
    expect(again.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' });
    const seconds = Number(/after (\d+) seconds/.exec(again.error!.message)?.[1]);
    expect(seconds).toBeGreaterThan(50);
    expect(seconds).toBeLessThanOrEqual(60);
  });

  it('refuses an invalid email with 400 and an unknown email with shouldCreateUser false with 422', async () => {
    const bad = await client(stack).auth.signInWithOtp({ email: 'not-an-email' });
    expect(bad.error).toMatchObject({ status: 400, code: 'validation_failed' });
    const unknown = await client(stack).auth.signInWithOtp({ email: newEmail(), options: { shouldCreateUser: false } });
    expect(unknown.error).toMatchObject({ status: 422, code: 'otp_disabled' });
  });

  it('answers in the initial error shape to clients that send no API version', async () => {
    const res = await fetch(`${stack.apiUrl}/auth/v1/verify`, {
      method: 'POST',
      headers: { apikey: stack.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: newEmail(), token: '123456', type: 'email' }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('x-sb-error-code')).toBe('otp_expired');
    expect(await res.json()).toEqual({ code: 403, error_code: 'otp_expired', msg: 'Token has expired or is invalid' });
    const v2 = await fetch(`${stack.apiUrl}/auth/v1/verify`, {
      method: 'POST',
      headers: { apikey: stack.anonKey, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
      body: 'not json',
    });
    expect(v2.status).toBe(400);
    expect(v2.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(await v2.json()).toMatchObject({ code: 'bad_json' });
  });

  it('signs out locally and globally, and a signed-out refresh token no longer works', async () => {
    const local = await signIn(stack);
    await local.c.auth.signOut({ scope: 'local' });
    const afterLocal = await client(stack).auth.refreshSession({ refresh_token: local.session.refresh_token });
    expect(afterLocal.error?.code).toBe('refresh_token_not_found');

    const email = newEmail();
    const one = await signIn(stack, email);
    await stack.sql(`update auth.users set recovery_sent_at = now() - interval '61 seconds' where email = $1`, [email]);
    const other = client(stack);
    await other.auth.signInWithOtp({ email });
    const { code } = await waitForMail(stack.mailUrl, email, 2);
    const two = (await other.auth.verifyOtp({ email, token: code, type: 'email' })).data.session!;
    await one.c.auth.signOut({ scope: 'global' });
    const afterGlobal = await client(stack).auth.refreshSession({ refresh_token: two.refresh_token });
    expect(afterGlobal.error?.code).toBe('refresh_token_not_found');
    // GoTrue refuses the still-unexpired access token of a deleted session; auth-js maps that to AuthSessionMissingError.
    const user = await client(stack).auth.getUser(two.access_token);
    expect(user.error?.name).toBe('AuthSessionMissingError');
    const raw = await fetch(`${stack.apiUrl}/auth/v1/user`, {
      headers: { apikey: stack.anonKey, authorization: `Bearer ${two.access_token}` },
    });
    expect(raw.status).toBe(403);
    expect(raw.headers.get('x-sb-error-code')).toBe('session_not_found');
  });

  it('lets service_role create, list and delete users, and refuses everyone else with 403', async () => {
    const admin = client(stack, { key: stack.serviceRoleKey }).auth.admin;
    const email = newEmail();
    const created = await admin.createUser({ email, email_confirm: true, user_metadata: { display_name: 'Ada' } });
    expect(created.error).toBeNull();
    expect(created.data.user).toMatchObject({ email, user_metadata: { display_name: 'Ada', email_verified: true } });
    const list = await admin.listUsers({ page: 1, perPage: 1000 });
    expect(list.data.users.map((u) => u.email)).toContain(email);
    expect((await admin.getUserById(created.data.user!.id)).data.user?.email).toBe(email);
    expect((await admin.deleteUser(created.data.user!.id)).error).toBeNull();
    expect((await admin.getUserById(created.data.user!.id)).error).toMatchObject({
      status: 404,
      code: 'user_not_found',
    });

    const anon = client(stack).auth.admin;
    expect((await anon.createUser({ email: newEmail() })).error).toMatchObject({ status: 403, code: 'not_admin' });
    expect((await anon.listUsers()).error).toMatchObject({ status: 403, code: 'not_admin' });
    const signedIn = await signIn(stack);
    const asUser = createClient(stack.apiUrl, stack.anonKey, {
      global: { headers: { Authorization: `Bearer ${signedIn.session.access_token}` } },
      auth: { persistSession: false },
    });
    expect((await asUser.auth.admin.deleteUser(signedIn.session.user.id)).error).toMatchObject({
      status: 403,
      code: 'not_admin',
    });
  });

  it('generates links whose code and hash both verify, without sending email', async () => {
    const admin = client(stack, { key: stack.serviceRoleKey }).auth.admin;
    const email = newEmail();
    const first = await admin.generateLink({ type: 'magiclink', email });
    expect(first.error).toBeNull();
    expect(first.data.properties).toMatchObject({ verification_type: 'signup' }); // unknown email → signup
    const byCode = await client(stack).auth.verifyOtp({
      email,
      token: first.data.properties!.email_otp,
      type: 'email',
    });
    expect(byCode.error).toBeNull();

    const second = await admin.generateLink({ type: 'magiclink', email });
    expect(second.data.properties?.verification_type).toBe('magiclink');
    expect(second.data.properties?.action_link).toContain(
      `/auth/v1/verify?token=${second.data.properties!.hashed_token}&type=magiclink`,
    );
    const byHash = await client(stack).auth.verifyOtp({
      token_hash: second.data.properties!.hashed_token,
      type: 'magiclink',
    });
    expect(byHash.error).toBeNull();
    const inbox = await fetch(`${stack.mailUrl}/api/v1/search?query=${encodeURIComponent(`to:${email}`)}`).then((r) =>
      r.json(),
    );
    expect(inbox.messages).toEqual([]);
  });

  it('serves settings, health and the public signing key (never a private part or the secret)', async () => {
    const headers = { apikey: stack.anonKey };
    expect(await (await fetch(`${stack.apiUrl}/auth/v1/settings`, { headers })).json()).toMatchObject({
      external: { email: true },
      disable_signup: false,
    });
    expect((await fetch(`${stack.apiUrl}/auth/v1/health`, { headers })).status).toBe(200);
    const jwks = await (await fetch(`${stack.apiUrl}/auth/v1/.well-known/jwks.json`)).json();
    // The CLI's default local key (docs/reference/auth.md §2).
    expect(jwks).toEqual({
      keys: [
        {
          kty: 'EC',
          kid: 'b81269f1-21d8-4f2e-b719-c2240a840d90',
          use: 'sig',
          key_ops: ['verify'],
          alg: 'ES256',
          ext: true,
          crv: 'P-256',
          x: 'M5Sjqn5zwC9Kl1zVfUUGvv9boQjCGd45G8sdopBExB4',
          y: 'P6IXMvA2WYXSHSOMTBH2jsw_9rrzGy89FjPf6oOsIxQ',
        },
      ],
    });
  });

  it('signs access tokens with ES256 and the key id, which verify against the published JWKS', async () => {
    const { session } = await signIn(stack);
    expect(decodeProtectedHeader(session.access_token)).toEqual({
      alg: 'ES256',
      kid: 'b81269f1-21d8-4f2e-b719-c2240a840d90',
      typ: 'JWT',
    });
    const keys = createRemoteJWKSet(new URL(`${stack.apiUrl}/auth/v1/.well-known/jwks.json`));
    const { payload } = await jwtVerify(session.access_token, keys);
    expect(payload).toMatchObject({ role: 'authenticated', aud: 'authenticated', sub: session.user.id });
    // A token signed with the right kid but another key is refused by Auth and PostgREST alike.
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ ...payload })
      .setProtectedHeader({ alg: 'ES256', kid: 'b81269f1-21d8-4f2e-b719-c2240a840d90', typ: 'JWT' })
      .sign(privateKey);
    expect((await client(stack).auth.getUser(forged)).error?.status).toBe(403);
    const rest = await fetch(`${stack.apiUrl}/rest/v1/profiles?select=user_id`, {
      headers: { apikey: stack.anonKey, authorization: `Bearer ${forged}` },
    });
    expect(rest.status).toBe(401);
  });

  it('getClaims verifies an ES256 session locally: it keeps answering after a global sign-out, as on hosted projects', async () => {
    const { c, session } = await signIn(stack);
    expect((await c.auth.getClaims()).data?.claims.sub).toBe(session.user.id);
    const other = client(stack);
    await other.auth.setSession({ access_token: session.access_token, refresh_token: session.refresh_token });
    await other.auth.signOut({ scope: 'global' });
    // getUser asks the server, which knows the session is gone; getClaims only checks signature and exp.
    const gone = await fetch(`${stack.apiUrl}/auth/v1/user`, {
      headers: { apikey: stack.anonKey, authorization: `Bearer ${session.access_token}` },
    });
    expect(gone.status).toBe(403);
    expect(await gone.json()).toMatchObject({ error_code: 'session_not_found' });
    expect((await client(stack).auth.getUser(session.access_token)).data.user).toBeNull();
    const claims = await client(stack).auth.getClaims(session.access_token);
    expect(claims.error).toBeNull();
    expect(claims.data?.claims.session_id).toBe(decodeJwt(session.access_token).session_id);
  });
});

describe('refresh token reuse detection', () => {
  const stack = stackFixture({ configure: (c) => (c.auth.refreshTokenReuseInterval = 0) });

  it('revokes the whole session when an old refresh token is reused after the interval', async () => {
    const { session } = await signIn(stack);
    const t0 = session.refresh_token;
    const t1 = (await client(stack).auth.refreshSession({ refresh_token: t0 })).data.session!.refresh_token;
    const t2 = (await client(stack).auth.refreshSession({ refresh_token: t1 })).data.session!.refresh_token;
    const reused = await client(stack).auth.refreshSession({ refresh_token: t0 });
    expect(reused.error).toMatchObject({ status: 400, code: 'refresh_token_already_used' });
    const active = await client(stack).auth.refreshSession({ refresh_token: t2 });
    expect(active.error).toMatchObject({ status: 400, code: 'refresh_token_already_used' });
  });
});
