// Auth hooks as GoTrue runs them: pg-functions:// hooks as supabase_auth_admin inside Auth's own
// transaction, http(s):// hooks signed with Standard Webhooks, and their error objects — on a project
// folder that is not Tend's (tests/fixtures/auth-project), through supabase-js.
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { clientFor, newEmail } from '../support/stack.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const PASSWORD = 'correct-horse-7';

describe('pg-functions hooks and the settings config.toml names (auth-project)', () => {
  const lines: string[] = [];
  const stack = stackFixture({ fixture: 'auth-project', log: (l) => lines.push(l) });
  const calls = async (hook: string) =>
    (await stack.sql('select payload, called_as from public.hook_calls where hook = $1 order by id', [hook])).rows;

  it('says once at start which config.toml keys the stack does not honour, naming each', () => {
    const config = lines.filter((l) => l.startsWith('[config]'));
    expect(config).toEqual([
      '[config] studio.enabled = true is not supported by the local stack; it runs as with false',
      '[config] auth.sessions.timebox is not supported by the local stack; ignored',
      '[config] auth.external.github.enabled = true is not supported by the local stack; it runs as with false',
      '[config] auth.no_such_setting is not a config.toml key the Supabase CLI knows; ignored',
    ]);
  });

  it('adds the custom_access_token hook’s claims to every access token, run as supabase_auth_admin', async () => {
    const c = clientFor(stack);
    const email = newEmail('claims');
    const signed = await c.auth.signUp({ email, password: PASSWORD });
    expect(signed.error).toBeNull();
    const first = decodeJwt(signed.data.session!.access_token);
    expect(first).toMatchObject({ email, user_role: null, authentication_method: 'password', role: 'authenticated' });
    await stack.sql(`insert into public.user_roles (user_id, role) values ($1, 'moderator')`, [signed.data.user!.id]);
    const refreshed = await c.auth.refreshSession();
    expect(decodeJwt(refreshed.data.session!.access_token)).toMatchObject({
      user_role: 'moderator',
      authentication_method: 'token_refresh',
    });
    const [call] = (await calls('custom_access_token')).filter((r) => r.payload.user_id === signed.data.user!.id);
    expect(call.called_as).toBe('supabase_auth_admin');
    expect(call.payload).toMatchObject({
      metadata: { name: 'customize-access-token' },
      claims: { sub: signed.data.user!.id, aal: 'aal1', is_anonymous: false },
    });
  });

  it('lets the password_verification_attempt hook reject a right password and sign the user out everywhere', async () => {
    const email = newEmail('locked');
    const c = clientFor(stack);
    const { data } = await c.auth.signUp({ email, password: PASSWORD });
    const wrong = await clientFor(stack).auth.signInWithPassword({ email, password: 'not-it-1234' });
    expect(wrong.error).toMatchObject({
      status: 400,
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    });
    const attempts = (await calls('password_verification_attempt')).filter((r) => r.payload.user_id === data.user!.id);
    expect(attempts.map((a) => a.payload.valid)).toEqual([false]);
    await stack.sql('insert into public.blocked_logins (user_id) values ($1)', [data.user!.id]);
    const locked = await clientFor(stack).auth.signInWithPassword({ email, password: PASSWORD });
    expect(locked.error).toMatchObject({ status: 400, code: 'invalid_credentials', message: 'This account is locked' });
    expect((await c.auth.refreshSession()).error).toMatchObject({ status: 400, code: 'refresh_token_not_found' });
  });

  it('hands emails to the send_email hook instead of sending them, with a code and hash that verify', async () => {
    const email = newEmail('hooked');
    await clientFor(stack).auth.signUp({ email, password: PASSWORD });
    const c = clientFor(stack);
    expect((await c.auth.resetPasswordForEmail(email, { redirectTo: 'http://127.0.0.1:3000/reset' })).error).toBeNull();
    const call = (await calls('send_email')).find((r) => r.payload.user.email === email)!;
    const data = call.payload.email_data;
    expect(data).toMatchObject({
      email_action_type: 'recovery',
      redirect_to: 'http://127.0.0.1:3000/reset',
      site_url: `${stack.apiUrl}/auth/v1`,
    });
    expect(data.token).toMatch(/^\d{6}$/);
    expect(data.token_hash).toBe(
      createHash('sha224')
        .update(email + data.token)
        .digest('hex'),
    );
    expect(await messagesTo(stack.mailUrl, email)).toEqual([]);
    const verified = await c.auth.verifyOtp({ email, token: data.token, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect((await c.auth.updateUser({ password: 'new-horse-8' })).error).toBeNull();
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: 'new-horse-8' })).error).toBeNull();
  });

  it('refuses a signup the before_user_created hook rejects with its status and message, and creates nobody', async () => {
    const email = newEmail('someone').replace('@example.test', '@blocked.test');
    const { error } = await clientFor(stack).auth.signUp({ email, password: PASSWORD });
    expect(error).toMatchObject({ status: 403, message: 'Sign-ups from this domain are not allowed' });
    expect((await stack.sql('select 1 from auth.users where email = $1', [email])).rowCount).toBe(0);
  });

  it('answers 500 "Error running hook URI" when a pg hook outlasts its 2 s statement timeout', async () => {
    const res = await fetch(`${stack.apiUrl}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: stack.anonKey, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
      body: JSON.stringify({ email: newEmail('slow'), password: PASSWORD }),
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      code: 'unexpected_failure',
      message: 'Error running hook URI: pg-functions://postgres/public/before_user_created_hook',
    });
  });

  it('asks the mfa_verification_attempt hook about every TOTP code; a reject signs the user out', async () => {
    const email = newEmail('mfa');
    const c = clientFor(stack);
    await c.auth.signUp({ email, password: PASSWORD });
    const enrolled = await c.auth.mfa.enroll({ factorType: 'totp' });
    expect(enrolled.error).toBeNull();
    const totp = new TOTP({ secret: Secret.fromBase32(enrolled.data!.totp.secret) });
    const factorId = enrolled.data!.id;
    const wrong = await c.auth.mfa.challengeAndVerify({
      factorId,
      code: String((Number(totp.generate()) + 1) % 1e6).padStart(6, '0'),
    });
    expect(wrong.error).toMatchObject({
      status: 403,
      code: 'mfa_verification_rejected',
      message: 'Wrong code: signed out',
    });
    expect((await c.auth.refreshSession()).error).toMatchObject({ status: 400 });

    const again = clientFor(stack);
    await again.auth.signInWithPassword({ email, password: PASSWORD });
    const right = await again.auth.mfa.challengeAndVerify({ factorId, code: totp.generate() });
    expect(right.error).toBeNull();
    expect(decodeJwt(right.data!.access_token)).toMatchObject({ aal: 'aal2', authentication_method: 'totp' });
    const verdicts = (await calls('mfa_verification_attempt')).filter((r) => r.payload.factor_id === factorId);
    expect(verdicts.map((v) => [v.payload.factor_type, v.payload.valid])).toEqual([
      ['totp', false],
      ['totp', true],
    ]);
  });
});

/** What the hooks post, as far as these tests read it. */
interface HookPayload {
  metadata: { name: string };
  user?: { email?: string };
  email_data?: { token: string; email_action_type: string };
  sms?: { otp: string; phone: string };
}

describe('http hooks: send_email and send_sms with Standard Webhooks signatures', () => {
  const secret = `v1,whsec_${Buffer.from('a-local-hook-secret-of-32-bytes!').toString('base64')}`;
  const received: { headers: http.IncomingHttpHeaders; body: string; json: HookPayload }[] = [];
  let server: http.Server;
  let hookUrl = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const json = JSON.parse(body);
        received.push({ headers: req.headers, body, json });
        const email: string = json.user?.email ?? '';
        if (email.startsWith('refused'))
          return res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { http_code: 429, message: 'Slow down' } }));
        if (email.startsWith('unauthorized')) return res.writeHead(401).end();
        if (email.startsWith('plain')) return res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const stack = stackFixture({
    fixture: 'auth-project',
    configure: (c) => {
      c.auth.hooks.send_email = { uri: hookUrl, secrets: [secret] };
      c.auth.hooks.send_sms = { uri: hookUrl, secrets: [secret] };
      c.auth.sms.enableSignup = true;
      c.auth.email.maxFrequency = 0;
    },
  });
  const delivered = (match: (j: HookPayload) => boolean) =>
    waitFor('the hook to be called', async () => received.find((r) => match(r.json)));

  it('posts the email to the hook, signed as Standard Webhooks sign it, and sends no mail', async () => {
    const email = newEmail('webhook');
    const c = clientFor(stack);
    expect((await c.auth.signInWithOtp({ email })).error).toBeNull();
    const call = await delivered((j) => j.user?.email === email);
    const { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig } = call.headers;
    const key = Buffer.from(secret.slice('v1,whsec_'.length), 'base64');
    expect(sig).toBe(`v1,${createHmac('sha256', key).update(`${id}.${ts}.${call.body}`).digest('base64')}`);
    expect(call.json.metadata).toMatchObject({ name: 'send-email' });
    expect(call.json.email_data?.email_action_type).toBe('magiclink');
    expect(await messagesTo(stack.mailUrl, email)).toEqual([]);
    const { data, error } = await c.auth.verifyOtp({ email, token: call.json.email_data!.token, type: 'email' });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
  });

  it('texts the code through the send_sms hook, and the code signs the phone in', async () => {
    const phone = `1555${String(Date.now()).slice(-7)}`;
    const c = clientFor(stack);
    const sent = await c.auth.signInWithOtp({ phone: `+${phone}` });
    expect(sent.error).toBeNull();
    const call = await delivered((j) => j.sms?.phone === phone);
    expect(call.json.metadata).toMatchObject({ name: 'send-sms' });
    expect(call.json.sms?.otp).toMatch(/^\d{6}$/);
    const { data, error } = await c.auth.verifyOtp({ phone: `+${phone}`, token: call.json.sms!.otp, type: 'sms' });
    expect(error).toBeNull();
    expect(data.user?.phone).toBe(phone);
    expect(data.user?.app_metadata).toMatchObject({ provider: 'phone', providers: ['phone'] });
  });

  it('answers with the hook’s error object, and as GoTrue does when the hook answers 401 or not JSON', async () => {
    const ask = (tag: string) => clientFor(stack).auth.signInWithOtp({ email: newEmail(tag) });
    expect((await ask('refused')).error).toMatchObject({ status: 429, message: 'Slow down' });
    const unauthorized = await fetch(`${stack.apiUrl}/auth/v1/otp`, {
      method: 'POST',
      headers: { apikey: stack.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: newEmail('unauthorized') }),
    });
    expect(unauthorized.status).toBe(500);
    expect(await unauthorized.json()).toMatchObject({ code: 500, msg: 'Hook requires authorization token' });
    expect((await ask('plain')).error).toMatchObject({
      status: 400,
      code: 'hook_payload_invalid_content_type',
      message: 'Invalid JSON response. Received content-type: text/plain',
    });
  });
});

describe('an http hook that is down', () => {
  const stack = stackFixture({
    configure: (c) => {
      c.auth.hooks.send_email = { uri: 'http://127.0.0.1:9/hook', secrets: [`v1,whsec_${'a'.repeat(43)}=`] };
    },
  });

  it('retries, then answers 422 hook_timeout_after_retry and keeps no code', async () => {
    const email = newEmail('down');
    const { error } = await clientFor(stack).auth.signInWithOtp({ email });
    expect(error).toMatchObject({
      status: 422,
      code: 'hook_timeout_after_retry',
      message: 'Failed to reach hook after maximum retries',
    });
    // GoTrue sends inside the transaction: the failed send left no code behind.
    const codes = await stack.sql('select 1 from auth.one_time_tokens where relates_to = $1', [email]);
    expect(codes.rowCount).toBe(0);
  });
});
