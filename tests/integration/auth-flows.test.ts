// The local Auth service, part 2: email links and redirects, PKCE errors, the user endpoint, RLS on a
// table the test creates, limits and the admin API's headers — through the gateway, as clients see it.
import { createClient } from '@supabase/supabase-js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { messagesTo, waitForMail } from '../../scripts/lib/mail.ts';
import {
  clientFor as client,
  newEmail,
  signInWithCode as signIn,
  startTestStack,
  type TestStack,
} from '../support/stack.ts';

const APP = 'http://localhost:3000';

/** Requests a code and returns the token hash from the link in the email. */
async function emailedHash(stack: TestStack, email: string, pkce = false) {
  const c = client(stack, { pkce });
  const sent = await c.auth.signInWithOtp({ email, options: { emailRedirectTo: `${APP}/auth/callback` } });
  expect(sent.error).toBeNull();
  const mail = await waitForMail(stack.mailUrl, email);
  return { c, hash: /token_hash=([a-z0-9_]+)/.exec(mail.html)![1], code: mail.code };
}

function verifyLink(stack: TestStack, hash: string, type: string, redirectTo?: string) {
  const q = new URLSearchParams({ token: hash, type, ...(redirectTo ? { redirect_to: redirectTo } : {}) });
  return fetch(`${stack.apiUrl}/auth/v1/verify?${q}`, { headers: { apikey: stack.anonKey }, redirect: 'manual' });
}

async function api(
  stack: TestStack,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${stack.apiUrl}/auth/v1${path}`, {
    method,
    headers: {
      apikey: stack.anonKey,
      'content-type': 'application/json',
      'x-supabase-api-version': '2024-01-01',
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe('auth links, users and limits', () => {
  const stack = stackFixture();

  it('lets PostgREST show each user only the rows a policy on auth.uid() allows', async () => {
    await stack.sql(`
      create table public.auth_test_notes (
        id bigint generated always as identity primary key,
        owner uuid not null default auth.uid() references auth.users (id) on delete cascade,
        body text not null
      );
      alter table public.auth_test_notes enable row level security;
      create policy "owners read their notes" on public.auth_test_notes for select to authenticated using ((select auth.uid()) = owner);
      create policy "owners add their notes" on public.auth_test_notes for insert to authenticated with check ((select auth.uid()) = owner);
      grant select, insert on public.auth_test_notes to authenticated;
      notify pgrst, 'reload schema';
    `);
    const a = await signIn(stack);
    const b = await signIn(stack);
    // PostgREST reloads its schema cache on the NOTIFY; until then the insert is a 404 that changes nothing.
    await expect
      .poll(async () => (await a.c.from('auth_test_notes').insert({ body: 'from a' })).status, { timeout: 10_000 })
      .toBe(201);
    expect((await b.c.from('auth_test_notes').insert({ body: 'from b' })).error).toBeNull();
    const forged = await a.c.from('auth_test_notes').insert({ body: 'as b', owner: b.session.user.id });
    expect(forged.error?.code).toBe('42501');
    expect((await a.c.from('auth_test_notes').select('body, owner')).data).toEqual([
      { body: 'from a', owner: a.session.user.id },
    ]);
    expect((await b.c.from('auth_test_notes').select('body')).data).toEqual([{ body: 'from b' }]);
    expect((await client(stack).from('auth_test_notes').select('body')).error?.code).toBe('42501'); // anon has no grant
  });

  it('keeps signInWithOtp data as user metadata', async () => {
    const email = newEmail();
    const c = client(stack);
    expect((await c.auth.signInWithOtp({ email, options: { data: { full_name: 'Ada Lovelace' } } })).error).toBeNull();
    const { code } = await waitForMail(stack.mailUrl, email);
    const { data } = await c.auth.verifyOtp({ email, token: code, type: 'email' });
    expect(data.user?.user_metadata).toMatchObject({ full_name: 'Ada Lovelace', email, email_verified: true });
  });

  it('signs in through the email link with the tokens in the fragment (implicit flow)', async () => {
    const email = newEmail();
    const { hash } = await emailedHash(stack, email);
    const res = await verifyLink(stack, hash, 'magiclink', `${APP}/welcome?tab=inbox`);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname + location.search).toBe(`${APP}/welcome?tab=inbox`);
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('token_type')).toBe('bearer');
    expect(fragment.get('type')).toBe('magiclink');
    expect(Number(fragment.get('expires_in'))).toBe(3600);
    const { data } = await client(stack).auth.getUser(fragment.get('access_token')!);
    expect(data.user?.email).toBe(email);

    // Single use: the same link again sends the user back with GoTrue's error parameters.
    const again = await verifyLink(stack, hash, 'magiclink', `${APP}/welcome`);
    expect(again.status).toBe(303);
    const err = new URL(again.headers.get('location')!);
    expect(err.origin + err.pathname).toBe(`${APP}/welcome`);
    const params = new URLSearchParams(err.hash.slice(1));
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('error_code')).toBe('otp_expired');
    expect(params.get('error_description')).toBe('Email link is invalid or has expired');
  });

  it('redirects only to allowed URLs and falls back to site_url', async () => {
    const { hash } = await emailedHash(stack, newEmail());
    const res = await verifyLink(stack, hash, 'email', 'https://evil.example/steal');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')!.startsWith(`${APP}#access_token=`)).toBe(true);
  });

  it('answers bad link parameters with JSON errors, not redirects', async () => {
    const noType = await fetch(`${stack.apiUrl}/auth/v1/verify?token=abc`, {
      headers: { apikey: stack.anonKey },
      redirect: 'manual',
    });
    expect(noType.status).toBe(400);
    expect(noType.headers.get('x-sb-error-code')).toBe('validation_failed');
  });

  it('puts PKCE errors in the query and the fragment', async () => {
    const email = newEmail();
    const { c, hash } = await emailedHash(stack, email, true);
    const ok = await verifyLink(stack, hash, 'magiclink', `${APP}/auth/callback`);
    const code = new URL(ok.headers.get('location')!).searchParams.get('code')!;
    expect((await c.auth.exchangeCodeForSession(code)).error).toBeNull();
    const used = await verifyLink(stack, hash, 'magiclink', `${APP}/auth/callback`);
    const location = new URL(used.headers.get('location')!);
    expect(location.searchParams.get('error_code')).toBe('otp_expired');
    expect(new URLSearchParams(location.hash.slice(1)).get('error_code')).toBe('otp_expired');
  });

  it('refuses a wrong PKCE verifier and an unknown auth code', async () => {
    const email = newEmail();
    const { hash } = await emailedHash(stack, email, true);
    const link = await verifyLink(stack, hash, 'magiclink', `${APP}/auth/callback`);
    const code = new URL(link.headers.get('location')!).searchParams.get('code')!;
    const wrong = await api(stack, 'POST', '/token?grant_type=pkce', {
      auth_code: code,
      code_verifier: 'x'.repeat(64),
    });
    expect(wrong).toMatchObject({ status: 400, body: { code: 'bad_code_verifier' } });
    const unknown = await api(stack, 'POST', '/token?grant_type=pkce', {
      auth_code: crypto.randomUUID(),
      code_verifier: 'x'.repeat(64),
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'flow_state_not_found' } });
    const empty = await api(stack, 'POST', '/token?grant_type=pkce', {});
    expect(empty).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  });

  it('also accepts the emailed 6-digit code of a PKCE request', async () => {
    const email = newEmail();
    const { c, code } = await emailedHash(stack, email, true);
    const { data, error } = await c.auth.verifyOtp({ email, token: code, type: 'email' });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
  });

  it('lets only one of several simultaneous verifications of a code succeed', async () => {
    const email = newEmail();
    await client(stack).auth.signInWithOtp({ email });
    const { code } = await waitForMail(stack.mailUrl, email);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client(stack).auth.verifyOtp({ email, token: code, type: 'email' })),
    );
    expect(results.filter((r) => r.error === null)).toHaveLength(1);
    expect(results.filter((r) => r.error?.code === 'otp_expired')).toHaveLength(4);
    const { rows } = await stack.sql(
      `select count(*)::int as n from auth.sessions s join auth.users u on u.id = s.user_id where u.email = $1`,
      [email],
    );
    expect(rows[0].n).toBe(1);
  });

  it('gives simultaneous refreshes of one token the same new token', async () => {
    const { session } = await signIn(stack);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client(stack).auth.refreshSession({ refresh_token: session.refresh_token })),
    );
    expect(results.map((r) => r.error)).toEqual([null, null, null, null, null]);
    expect(new Set(results.map((r) => r.data.session!.refresh_token)).size).toBe(1);
  });

  it('updates user metadata, removes keys set to null, and refuses app_metadata', async () => {
    const { c } = await signIn(stack);
    const first = await c.auth.updateUser({ data: { display_name: 'Grace', team: 'support' } });
    expect(first.error).toBeNull();
    expect(first.data.user?.user_metadata).toMatchObject({ display_name: 'Grace', team: 'support' });
    const second = await c.auth.updateUser({ data: { team: null } });
    expect(second.data.user?.user_metadata.team).toBeUndefined();
    expect(second.data.user?.user_metadata.display_name).toBe('Grace');
    const token = (await c.auth.getSession()).data.session!.access_token;
    const admin = await api(
      stack,
      'PUT',
      '/user',
      { app_metadata: { role: 'admin' } },
      { authorization: `Bearer ${token}` },
    );
    expect(admin).toMatchObject({ status: 403, body: { code: 'not_admin' } });
    // A refreshed access token carries the new metadata.
    const refreshed = await c.auth.refreshSession();
    const claims = JSON.parse(Buffer.from(refreshed.data.session!.access_token.split('.')[1], 'base64url').toString());
    expect(claims.user_metadata.display_name).toBe('Grace');
  });

  it('refuses /user without a user token, with a bad token and with a bad signature', async () => {
    const anon = await api(stack, 'GET', '/user');
    expect(anon).toMatchObject({ status: 403, body: { code: 'bad_jwt' } });
    const garbage = await api(stack, 'GET', '/user', undefined, { authorization: 'Bearer not-a-jwt' });
    expect(garbage).toMatchObject({ status: 403, body: { code: 'bad_jwt' } });
    const { session } = await signIn(stack);
    const [h, p] = session.access_token.split('.');
    const forged = await api(stack, 'GET', '/user', undefined, { authorization: `Bearer ${h}.${p}.${'A'.repeat(43)}` });
    expect(forged).toMatchObject({ status: 403, body: { code: 'bad_jwt' } });
  });

  it('signs out the other sessions only with scope others', async () => {
    const email = newEmail();
    const one = await signIn(stack, email);
    await stack.sql(`update auth.users set recovery_sent_at = now() - interval '61 seconds' where email = $1`, [email]);
    const two = client(stack);
    await two.auth.signInWithOtp({ email });
    const { code } = await waitForMail(stack.mailUrl, email, 2);
    expect((await two.auth.verifyOtp({ email, token: code, type: 'email' })).error).toBeNull();
    expect((await two.auth.signOut({ scope: 'others' })).error).toBeNull();
    expect((await client(stack).auth.refreshSession({ refresh_token: one.session.refresh_token })).error?.code).toBe(
      'refresh_token_not_found',
    );
    expect((await two.auth.refreshSession()).error).toBeNull();
    const bad = await api(stack, 'POST', '/logout?scope=everyone', undefined, {
      authorization: `Bearer ${(await two.auth.getSession()).data.session!.access_token}`,
    });
    expect(bad).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  });

  it('refuses unknown and malformed refresh tokens', async () => {
    expect(
      await api(stack, 'POST', '/token?grant_type=refresh_token', { refresh_token: 'abcdefghijkl' }),
    ).toMatchObject({
      status: 400,
      body: { code: 'refresh_token_not_found', message: 'Invalid Refresh Token: Refresh Token Not Found' },
    });
    expect(await api(stack, 'POST', '/token?grant_type=refresh_token', { refresh_token: 'short' })).toMatchObject({
      status: 400,
      body: { code: 'validation_failed' },
    });
  });

  it('refuses bodies over 1 MiB with 413 and unexpected shapes with 400', async () => {
    const big = await api(
      stack,
      'POST',
      '/otp',
      JSON.stringify({ email: newEmail(), data: { blob: 'x'.repeat(1024 * 1024) } }),
    );
    expect(big).toMatchObject({ status: 413, body: { code: 'request_entity_too_large' } });
    expect(await api(stack, 'POST', '/otp', '[1,2]')).toMatchObject({ status: 400, body: { code: 'bad_json' } });
    const challenge = await api(stack, 'POST', '/otp', {
      email: newEmail(),
      code_challenge: 'short',
      code_challenge_method: 's256',
    });
    expect(challenge).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  });

  it('pages the admin user list with X-Total-Count and Link', async () => {
    const service = { authorization: `Bearer ${stack.serviceRoleKey}` };
    for (let i = 0; i < 3; i++)
      expect(
        (await api(stack, 'POST', '/admin/users', { email: newEmail('listed'), email_confirm: true }, service)).status,
      ).toBe(200);
    const page = await api(stack, 'GET', '/admin/users?page=1&per_page=2', undefined, service);
    expect(page.status).toBe(200);
    expect(page.body.aud).toBe('authenticated');
    expect(page.body.users).toHaveLength(2);
    const total = Number(page.headers.get('x-total-count'));
    expect(total).toBeGreaterThanOrEqual(3);
    expect(page.headers.get('link')).toContain(`?page=2&per_page=2>; rel="next"`);
    const admin = createClient(stack.apiUrl, stack.serviceRoleKey, { auth: { persistSession: false } }).auth.admin;
    const listed = await admin.listUsers({ page: 2, perPage: 2 });
    expect(listed.error).toBeNull();
    expect(listed.data.users).toHaveLength(Math.min(2, total - 2));
    expect(await api(stack, 'GET', '/admin/users/not-a-uuid', undefined, service)).toMatchObject({
      status: 404,
      body: { code: 'validation_failed' },
    });
    const dup = await admin.createUser({ email: page.body.users[0].email });
    expect(dup.error).toMatchObject({ status: 422, code: 'email_exists' });
  });

  it('updates and bans users through the admin API', async () => {
    const admin = createClient(stack.apiUrl, stack.serviceRoleKey, { auth: { persistSession: false } }).auth.admin;
    const { c, session } = await signIn(stack);
    const updated = await admin.updateUserById(session.user.id, {
      app_metadata: { plan: 'team' },
      user_metadata: { display_name: 'Lin' },
    });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.app_metadata).toMatchObject({ provider: 'email', plan: 'team' });
    expect(updated.data.user?.user_metadata).toMatchObject({ display_name: 'Lin' });
    expect((await admin.updateUserById(session.user.id, { ban_duration: '24h' })).error).toBeNull();
    expect((await c.auth.refreshSession()).error).toMatchObject({ status: 400, code: 'user_banned' });
  });

  it('generates links with GoTrue’s rules for existing and unknown users', async () => {
    const admin = createClient(stack.apiUrl, stack.serviceRoleKey, { auth: { persistSession: false } }).auth.admin;
    const { email } = await signIn(stack);
    expect((await admin.generateLink({ type: 'signup', email, password: 'irrelevant-123' })).error).toMatchObject({
      status: 422,
      code: 'email_exists',
    });
    expect((await admin.generateLink({ type: 'recovery', email: newEmail() })).error).toMatchObject({
      status: 404,
      code: 'user_not_found',
    });
    const link = await admin.generateLink({ type: 'magiclink', email, options: { redirectTo: `${APP}/inbox` } });
    expect(link.data.properties?.redirect_to).toBe(`${APP}/inbox`);
    const res = await fetch(link.data.properties!.action_link, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')!.startsWith(`${APP}/inbox#access_token=`)).toBe(true);
  });
});

describe('auth with a short code lifetime', () => {
  const LIFETIME_S = 60;
  const stack = stackFixture({
    configure: (c) => {
      c.auth.email.otpExpiry = LIFETIME_S;
      c.auth.email.maxFrequency = 0;
    },
  });

  it('refuses a code after otp_expiry with 403 otp_expired, and a new code works', async () => {
    const email = newEmail();
    const c = client(stack);
    await c.auth.signInWithOtp({ email });
    const first = await waitForMail(stack.mailUrl, email);
    // The code's lifetime passes: it was sent (the time Auth counts from) longer ago than that.
    const { rowCount } = await stack.sql(
      `update auth.users set confirmation_sent_at = confirmation_sent_at - make_interval(secs => $2),
         recovery_sent_at = recovery_sent_at - make_interval(secs => $2) where email = $1`,
      [email, LIFETIME_S + 1],
    );
    expect(rowCount).toBe(1);
    const late = await c.auth.verifyOtp({ email, token: first.code, type: 'email' });
    expect(late.error).toMatchObject({ status: 403, code: 'otp_expired', message: 'Token has expired or is invalid' });
    await c.auth.signInWithOtp({ email });
    const second = await waitForMail(stack.mailUrl, email, 2);
    expect((await c.auth.verifyOtp({ email, token: second.code, type: 'email' })).error).toBeNull();
  });
});

describe('auth with confirmations on and custom or default templates', () => {
  let stack: TestStack;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tend-auth-templates-'));
    const template = path.join(dir, 'magic.html');
    writeFileSync(
      template,
      '<p>Hi {{ .Data.full_name }} ({{ .Email }})</p><p>Code: {{ .Token }}</p><a href="{{ .ConfirmationURL }}">link</a>' +
        '<a href="{{ .SiteURL }}/auth/confirm?token_hash={{ .TokenHash }}&amp;type=email&amp;r={{ .RedirectTo }}">app</a>{{ .Unknown }}',
    );
    stack = await startTestStack({
      configure: (c) => {
        c.auth.email.enableConfirmations = true;
        c.auth.email.maxFrequency = 0;
        c.auth.email.templates = { magic_link: { subject: 'Code for {{ .Email }} & co', contentPath: template } };
      },
    });
  });
  afterAll(async () => {
    await stack?.teardown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('confirms a new address with GoTrue’s default confirmation email, then sends the configured magic link', async () => {
    const email = newEmail();
    const c = client(stack);
    expect((await c.auth.signInWithOtp({ email, options: { data: { full_name: '<Ada>' } } })).error).toBeNull();
    const first = await messagesTo(stack.mailUrl, email);
    expect(first[0].Subject).toBe('Confirm Your Email');
    const confirmation = await waitForMail(stack.mailUrl, email);
    expect(confirmation.html).toContain('/auth/v1/verify?token=');
    expect(confirmation.html).toContain('type=signup');
    const { rows } = await stack.sql('select email_confirmed_at, confirmation_token from auth.users where email = $1', [
      email,
    ]);
    expect(rows[0].email_confirmed_at).toBeNull();
    expect(rows[0].confirmation_token).toMatch(/^[0-9a-f]{56}$/);
    const signup = await c.auth.verifyOtp({ email, token: confirmation.code, type: 'email' });
    expect(signup.error).toBeNull();
    expect(signup.data.user?.email_confirmed_at).toBeTruthy();
    expect(signup.data.user?.user_metadata).toMatchObject({ email_verified: true, full_name: '<Ada>' });

    expect(
      (await c.auth.signInWithOtp({ email, options: { emailRedirectTo: 'http://localhost:3000/a?b=1' } })).error,
    ).toBeNull();
    const magic = await waitForMail(stack.mailUrl, email, 2);
    expect((await messagesTo(stack.mailUrl, email))[0].Subject).toBe(`Code for ${email} & co`); // subjects are text, not HTML
    expect(magic.html).toContain(`<p>Hi &lt;Ada&gt; (${email})</p>`);
    expect(magic.html).toContain(`Code: ${magic.code}`);
    // GoTrue escapes redirect_to in {{ .ConfirmationURL }} only when it contains &, = or #.
    expect(magic.html).toContain('type=magiclink&amp;redirect_to=http%3A%2F%2Flocalhost%3A3000%2Fa%3Fb%3D1');
    expect(magic.html).toContain('r=http://localhost:3000/a?b=1');
    expect(magic.html).not.toContain('{{');
    expect(magic.text).toContain(`Code: ${magic.code}`);
    expect((await c.auth.verifyOtp({ email, token: magic.code, type: 'magiclink' })).error).toBeNull();
  });

  it('confirms a new address through the PKCE signup link and records amr email/signup', async () => {
    const email = newEmail();
    const c = client(stack, { pkce: true });
    expect(
      (await c.auth.signInWithOtp({ email, options: { emailRedirectTo: 'http://localhost:3000/auth/callback' } }))
        .error,
    ).toBeNull();
    const mail = await waitForMail(stack.mailUrl, email);
    const link = /href="([^"]*\/auth\/v1\/verify[^"]*)"/.exec(mail.html)![1].replace(/&amp;/g, '&');
    expect(new URL(link).searchParams.get('token')).toMatch(/^pkce_/);
    expect(new URL(link).searchParams.get('type')).toBe('signup');
    const res = await fetch(link, { redirect: 'manual' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const { data, error } = await c.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.user?.email_confirmed_at).toBeTruthy();
    const claims = JSON.parse(Buffer.from(data.session!.access_token.split('.')[1], 'base64url').toString());
    expect(claims.amr.map((a: { method: string }) => a.method)).toEqual(['email/signup']);
  });

  it('accepts the plain PKCE method', async () => {
    const email = newEmail();
    const verifier = 'v'.repeat(50);
    const headers = { apikey: stack.anonKey, 'content-type': 'application/json' };
    const sent = await fetch(`${stack.apiUrl}/auth/v1/otp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email, code_challenge: verifier, code_challenge_method: 'plain' }),
    });
    expect(sent.status).toBe(200);
    const mail = await waitForMail(stack.mailUrl, email);
    const link = /href="([^"]*\/auth\/v1\/verify[^"]*)"/.exec(mail.html)![1].replace(/&amp;/g, '&');
    const code = new URL((await fetch(link, { redirect: 'manual' })).headers.get('location')!).searchParams.get(
      'code',
    )!;
    const token = await fetch(`${stack.apiUrl}/auth/v1/token?grant_type=pkce`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ auth_code: code, code_verifier: verifier }),
    });
    expect(token.status).toBe(200);
    expect((await token.json()).user.email).toBe(email);
  });
});
