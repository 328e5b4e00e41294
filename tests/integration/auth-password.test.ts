// Password auth as GoTrue has it, through supabase-js: sign-up, sign-in, recovery, email and password
// changes, reauthentication, invitations and every generate_link type — with confirmations off (the
// CLI's default: an immediate session) and on (a confirmation email with link and code).
import { createHash } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { messagesTo, waitForMail } from '../../scripts/lib/mail.ts';
import { clientFor, newEmail, type TestStack } from '../support/stack.ts';

const PASSWORD = 'correct-horse-7';

const adminOf = (stack: TestStack) =>
  createClient(stack.apiUrl, stack.serviceRoleKey, { auth: { persistSession: false } }).auth.admin;

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
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** The code of the newest email to `email` (the nth one), from its text. */
const codeIn = async (stack: TestStack, email: string, nth = 1) => (await waitForMail(stack.mailUrl, email, nth)).code;

describe('password auth with confirmations off (the CLI default)', () => {
  const stack = stackFixture({ configure: (c) => void (c.auth.email.maxFrequency = 0) });

  it('signs up with an immediate session, signs in, and stores a $2a$10$ bcrypt hash', async () => {
    const email = newEmail('pw');
    const c = clientFor(stack);
    const up = await c.auth.signUp({ email, password: PASSWORD, options: { data: { full_name: 'Ada' } } });
    expect(up.error).toBeNull();
    expect(up.data.session?.access_token).toBeTruthy();
    expect(up.data.user?.email_confirmed_at).toBeTruthy();
    expect(up.data.user?.user_metadata).toMatchObject({
      full_name: 'Ada',
      email,
      email_verified: true,
      sub: up.data.user!.id,
    });
    expect(decodeJwt(up.data.session!.access_token).amr).toEqual([
      { method: 'password', timestamp: expect.any(Number) },
    ]);
    const { rows } = await stack.sql('select encrypted_password from auth.users where email = $1', [email]);
    expect(rows[0].encrypted_password).toMatch(/^\$2a\$10\$.{53}$/);
    const signedIn = await clientFor(stack).auth.signInWithPassword({ email: email.toUpperCase(), password: PASSWORD });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.id).toBe(up.data.user!.id);
    expect(await messagesTo(stack.mailUrl, email)).toEqual([]);
  });

  it('refuses a wrong password, an unknown address and a second sign-up of the address alike', async () => {
    const email = newEmail('pw');
    await clientFor(stack).auth.signUp({ email, password: PASSWORD });
    const invalid = { status: 400, code: 'invalid_credentials', message: 'Invalid login credentials' };
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: 'wrong-pass-1' })).error).toMatchObject(
      invalid,
    );
    expect(
      (await clientFor(stack).auth.signInWithPassword({ email: newEmail(), password: PASSWORD })).error,
    ).toMatchObject(invalid);
    // A user made by a code sign-in has no password anyone knows.
    const coded = newEmail('coded');
    await clientFor(stack).auth.signInWithOtp({ email: coded });
    expect((await clientFor(stack).auth.signInWithPassword({ email: coded, password: PASSWORD })).error).toMatchObject(
      invalid,
    );
    expect((await clientFor(stack).auth.signUp({ email, password: PASSWORD })).error).toMatchObject({
      status: 422,
      code: 'user_already_exists',
      message: 'User already registered',
    });
  });

  it('signs in a seeded user whose encrypted_password is a bcrypt hash made elsewhere ($2b$, $2y$)', async () => {
    // bcrypt("seeded-secret-1", cost 10) made by Python's bcrypt (the C implementation), and as PHP marks it ($2y$).
    const hash = '$2b$10$4eev.hzkYxc2CQltY70/yeJWbuxrGaZh4OAqsgscOBGmHeazKD6Nq';
    for (const prefix of ['$2b$', '$2y$']) {
      const email = newEmail('seeded');
      const id = crypto.randomUUID();
      await stack.sql(
        `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, raw_app_meta_data,
           raw_user_meta_data, created_at, updated_at, confirmation_token, recovery_token, email_change_token_new, email_change)
         values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2, $3, now(),
           '{"provider":"email","providers":["email"]}', '{}', now(), now(), '', '', '', '')`,
        [id, email, hash.replace('$2b$', prefix)],
      );
      const { data, error } = await clientFor(stack).auth.signInWithPassword({ email, password: 'seeded-secret-1' });
      expect(error).toBeNull();
      expect(data.user?.id).toBe(id);
    }
  });

  it('answers a password the policy refuses with 422 weak_password and its reasons', async () => {
    const tooShort = await clientFor(stack).auth.signUp({ email: newEmail(), password: 'abc' });
    expect(tooShort.error).toMatchObject({
      status: 422,
      code: 'weak_password',
      message: 'Password should be at least 6 characters.',
    });
    expect((tooShort.error as { reasons?: string[] }).reasons).toEqual(['length']);
    const long = await api(stack, 'POST', '/signup', { email: newEmail(), password: 'x'.repeat(73) });
    expect(long).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', message: 'Password cannot be longer than 72 characters' },
    });
    const empty = await api(stack, 'POST', '/signup', { email: newEmail() });
    expect(empty.body).toEqual({ code: 'validation_failed', message: 'Signup requires a valid password' });
  });

  it('recovers a password: the emailed code signs in as recovery, then updateUser sets the new password', async () => {
    const email = newEmail('recover');
    await clientFor(stack).auth.signUp({ email, password: PASSWORD });
    const c = clientFor(stack);
    expect((await c.auth.resetPasswordForEmail(email)).error).toBeNull();
    const mail = (await messagesTo(stack.mailUrl, email))[0];
    expect(mail.Subject).toBe('Reset Your Password');
    const recovered = await c.auth.verifyOtp({ email, token: await codeIn(stack, email), type: 'recovery' });
    expect(recovered.error).toBeNull();
    expect((await c.auth.updateUser({ password: PASSWORD })).error).toMatchObject({
      status: 422,
      code: 'same_password',
    });
    expect((await c.auth.updateUser({ password: 'brand-new-9' })).error).toBeNull();
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: PASSWORD })).error).toMatchObject({
      code: 'invalid_credentials',
    });
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: 'brand-new-9' })).error).toBeNull();
    // An unknown address gets the same answer and no email.
    const stranger = newEmail('stranger');
    expect((await c.auth.resetPasswordForEmail(stranger)).error).toBeNull();
    expect(await messagesTo(stack.mailUrl, stranger)).toEqual([]);
  });

  it('signs out the other sessions when the password changes', async () => {
    const email = newEmail('sessions');
    const a = clientFor(stack);
    await a.auth.signUp({ email, password: PASSWORD });
    const b = clientFor(stack);
    await b.auth.signInWithPassword({ email, password: PASSWORD });
    expect((await a.auth.updateUser({ password: 'another-one-2' })).error).toBeNull();
    expect((await b.auth.refreshSession()).error).toMatchObject({ status: 400 });
    expect((await a.auth.refreshSession()).error).toBeNull();
  });

  it('changes the email after both addresses confirm (double_confirm_changes), each with its own code', async () => {
    const email = newEmail('old');
    const next = newEmail('new');
    const c = clientFor(stack);
    await c.auth.signUp({ email, password: PASSWORD });
    const asked = await c.auth.updateUser({ email: next });
    expect(asked.error).toBeNull();
    expect(asked.data.user).toMatchObject({ email, new_email: next });
    const toNew = await waitForMail(stack.mailUrl, next);
    const toOld = await waitForMail(stack.mailUrl, email);
    expect((await messagesTo(stack.mailUrl, next))[0].Subject).toBe('Confirm Email Change');
    expect(toNew.text).toContain(`from ${email} to ${next}`);
    // Under autoconfirm GoTrue completes the change on the first confirmation (verify.go emailChangeVerify).
    const done = await c.auth.verifyOtp({ email: next, token: toNew.code, type: 'email_change' });
    expect(done.error).toBeNull();
    expect(done.data.user?.email).toBe(next);
    expect(toOld.code).toMatch(/^\d{6}$/);
    expect((await clientFor(stack).auth.signInWithPassword({ email: next, password: PASSWORD })).error).toBeNull();
    const taken = await c.auth.updateUser({
      email: (await adminOf(stack).createUser({ email: newEmail() })).data.user!.email!,
    });
    expect(taken.error).toMatchObject({ status: 422, code: 'email_exists' });
  });

  it('invites a user (POST /invite) who accepts with the emailed code and sets a password', async () => {
    const email = newEmail('invited');
    const invited = await adminOf(stack).inviteUserByEmail(email, { data: { team: 'support' } });
    expect(invited.error).toBeNull();
    expect(invited.data.user).toMatchObject({ email, user_metadata: { team: 'support' } });
    expect(invited.data.user?.invited_at).toBeTruthy();
    // (The mail helper leaves "invited" subjects out by default: Tend's own invitations use them.)
    const [mail] = await messagesTo(stack.mailUrl, email, { notifications: true });
    expect(mail.Subject).toBe('You have been invited');
    const text: string = (await (await fetch(`${stack.mailUrl}/api/v1/message/${mail.ID}`)).json()).Text;
    const c = clientFor(stack);
    const accepted = await c.auth.verifyOtp({ email, token: /\b(\d{6})\b/.exec(text)![1], type: 'invite' });
    expect(accepted.error).toBeNull();
    expect(accepted.data.user?.email_confirmed_at).toBeTruthy();
    expect((await c.auth.updateUser({ password: 'invited-pw-3' })).error).toBeNull();
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: 'invited-pw-3' })).error).toBeNull();
    expect((await adminOf(stack).inviteUserByEmail(email)).error).toMatchObject({ status: 422, code: 'email_exists' });
  });

  it('generates every link type with GoTrue’s fields, user_metadata exactly as passed, and links that verify', async () => {
    const admin = adminOf(stack);
    const email = newEmail('links');
    const signup = await admin.generateLink({
      type: 'signup',
      email,
      password: PASSWORD,
      options: { data: { plan: 'team' } },
    });
    expect(signup.error).toBeNull();
    expect(signup.data.user?.user_metadata).toEqual({ plan: 'team' });
    const p = signup.data.properties!;
    expect(p.verification_type).toBe('signup');
    expect(p.hashed_token).toBe(
      createHash('sha224')
        .update(email + p.email_otp)
        .digest('hex'),
    );
    expect(p.action_link).toBe(
      `${stack.apiUrl}/auth/v1/verify?token=${p.hashed_token}&type=signup&redirect_to=http://localhost:3000`,
    );
    expect(await messagesTo(stack.mailUrl, email)).toEqual([]);
    expect((await clientFor(stack).auth.verifyOtp({ token_hash: p.hashed_token, type: 'signup' })).error).toBeNull();

    const recovery = await admin.generateLink({ type: 'recovery', email });
    expect(recovery.data.properties?.verification_type).toBe('recovery');
    const r = await fetch(recovery.data.properties!.action_link, { redirect: 'manual' });
    expect(new URL(r.headers.get('location')!.replace('#', '?')).searchParams.get('type')).toBe('recovery');

    const next = newEmail('changed');
    for (const type of ['email_change_current', 'email_change_new'] as const) {
      const link = await admin.generateLink({ type, email, newEmail: next });
      expect(link.error).toBeNull();
      expect(link.data.properties?.action_link).toContain('type=email_change');
      expect(link.data.user?.new_email).toBe(next);
    }
    const newLink = await admin.generateLink({ type: 'email_change_new', email, newEmail: next });
    const verified = await clientFor(stack).auth.verifyOtp({
      email: next,
      token: newLink.data.properties!.email_otp,
      type: 'email_change',
    });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(next);

    const magic = await admin.generateLink({ type: 'magiclink', email: newEmail('magic') });
    expect(magic.data.properties?.verification_type).toBe('signup');
    const inviteLink = await admin.generateLink({
      type: 'invite',
      email: newEmail('inv'),
      options: { data: { a: 1 } },
    });
    expect(inviteLink.data.user?.invited_at).toBeTruthy();
    expect(inviteLink.data.user?.user_metadata).toEqual({ a: 1 });
    const bad = await api(
      stack,
      'POST',
      '/admin/generate_link',
      { type: 'nope', email },
      { authorization: `Bearer ${stack.serviceRoleKey}` },
    );
    expect(bad.body).toEqual({ code: 'validation_failed', message: 'Invalid email action link type requested: nope' });
    expect((await admin.generateLink({ type: 'signup', email: newEmail(), password: '' })).error).toMatchObject({
      status: 400,
    });
  });

  it('creates users with a password or an imported bcrypt hash, and changes passwords by the admin API', async () => {
    const admin = adminOf(stack);
    const email = newEmail('adminpw');
    const made = await admin.createUser({ email, password: 'admin-set-1', email_confirm: true });
    expect(made.error).toBeNull();
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: 'admin-set-1' })).error).toBeNull();
    expect((await admin.updateUserById(made.data.user!.id, { password: 'x' })).error).toMatchObject({
      status: 422,
      code: 'weak_password',
    });
    expect((await admin.updateUserById(made.data.user!.id, { password: 'admin-set-2' })).error).toBeNull();
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: 'admin-set-2' })).error).toBeNull();
    const imported = newEmail('imported');
    const hashed = await admin.createUser({
      email: imported,
      password_hash: '$2b$10$4eev.hzkYxc2CQltY70/yeJWbuxrGaZh4OAqsgscOBGmHeazKD6Nq',
      email_confirm: true,
    });
    expect(hashed.error).toBeNull();
    expect(
      (await clientFor(stack).auth.signInWithPassword({ email: imported, password: 'seeded-secret-1' })).error,
    ).toBeNull();
  });

  it('validates page and per_page on GET /admin/users with 400 "Bad Pagination Parameters"', async () => {
    const service = { authorization: `Bearer ${stack.serviceRoleKey}` };
    expect(await api(stack, 'GET', '/admin/users?page=abc', undefined, service)).toMatchObject({
      status: 400,
      body: {
        code: 'validation_failed',
        message: 'Bad Pagination Parameters: strconv.ParseUint: parsing "abc": invalid syntax',
      },
    });
    expect((await api(stack, 'GET', '/admin/users?per_page=-1', undefined, service)).status).toBe(400);
    expect((await api(stack, 'GET', '/admin/users?per_page=0', undefined, service)).status).toBe(400);
    expect((await api(stack, 'GET', '/admin/users?sort=email', undefined, service)).body).toEqual({
      code: 'validation_failed',
      message: "Bad Sort Parameters: bad field for sort 'email'",
    });
    expect((await api(stack, 'GET', '/admin/users?page=1&per_page=1', undefined, service)).status).toBe(200);
  });
});

describe('password auth with confirmations on, password rules, secure password change', () => {
  const stack = stackFixture({
    configure: (c) => {
      c.auth.email.enableConfirmations = true;
      c.auth.email.securePasswordChange = true;
      c.auth.email.templates = {}; // GoTrue's own emails, as a project without templates gets
      c.auth.email.maxFrequency = 0;
      c.auth.password = {
        minLength: 10,
        requiredCharacters: ['abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', '0123456789'],
      };
    },
  });
  const STRONG = 'Correct-Horse-7';

  it('sends a confirmation email with a link and a code instead of a session, and refuses sign-in until confirmed', async () => {
    const email = newEmail('confirm');
    const c = clientFor(stack);
    const up = await c.auth.signUp({ email, password: STRONG });
    expect(up.error).toBeNull();
    expect(up.data.session).toBeNull();
    expect(up.data.user?.confirmation_sent_at).toBeTruthy();
    expect(up.data.user?.email_confirmed_at).toBeUndefined();
    const mail = await waitForMail(stack.mailUrl, email);
    expect(mail.html).toContain('/auth/v1/verify?token=');
    expect(mail.html).toContain('type=signup');
    expect((await c.auth.signInWithPassword({ email, password: STRONG })).error).toMatchObject({
      status: 400,
      code: 'email_not_confirmed',
      message: 'Email not confirmed',
    });
    expect((await c.auth.resend({ type: 'signup', email })).error).toBeNull();
    const again = await waitForMail(stack.mailUrl, email, 2);
    expect(again.code).not.toBe(mail.code);
    expect((await c.auth.verifyOtp({ email, token: mail.code, type: 'signup' })).error).toMatchObject({
      code: 'otp_expired',
    });
    const confirmed = await c.auth.verifyOtp({ email, token: again.code, type: 'signup' });
    expect(confirmed.error).toBeNull();
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: STRONG })).error).toBeNull();
    // A confirmed address: resend sends nothing; a second sign-up is refused (SMS autoconfirm stays on, as in the CLI).
    expect((await c.auth.resend({ type: 'signup', email })).error).toBeNull();
    expect(await messagesTo(stack.mailUrl, email)).toHaveLength(2);
    expect((await clientFor(stack).auth.signUp({ email, password: STRONG })).error).toMatchObject({
      code: 'user_already_exists',
    });
  });

  it('names every rule a password misses, and still signs in a password that has become weak, saying so', async () => {
    const weak = await clientFor(stack).auth.signUp({ email: newEmail(), password: 'short' });
    expect(weak.error).toMatchObject({
      status: 422,
      code: 'weak_password',
      message:
        'Password should be at least 10 characters. Password should contain at least one character of each: abcdefghijklmnopqrstuvwxyz, ABCDEFGHIJKLMNOPQRSTUVWXYZ, 0123456789.',
    });
    expect((weak.error as { reasons?: string[] }).reasons).toEqual(['length', 'characters']);
    const email = newEmail('legacy');
    await adminOf(stack).createUser({ email, password: 'legacy-pass', email_confirm: true });
    const res = await api(stack, 'POST', '/token?grant_type=password', { email, password: 'legacy-pass' });
    expect(res.status).toBe(200);
    expect(res.body.weak_password.reasons).toEqual(['characters']);
  });

  it('asks for a reauthentication nonce to change the password of an older session (secure_password_change)', async () => {
    const email = newEmail('nonce');
    await adminOf(stack).createUser({ email, password: STRONG, email_confirm: true });
    const c = clientFor(stack);
    const { data } = await c.auth.signInWithPassword({ email, password: STRONG });
    await stack.sql(`update auth.sessions set created_at = now() - interval '25 hours' where id = $1`, [
      decodeJwt(data.session!.access_token).session_id,
    ]);
    expect((await c.auth.updateUser({ password: 'Another-Horse-8' })).error).toMatchObject({
      status: 400,
      code: 'reauthentication_needed',
    });
    expect((await c.auth.updateUser({ password: 'Another-Horse-8', nonce: '000000' })).error).toMatchObject({
      status: 422,
      code: 'reauthentication_not_valid',
    });
    expect((await c.auth.reauthenticate()).error).toBeNull();
    expect((await messagesTo(stack.mailUrl, email))[0].Subject).toBe('Confirm reauthentication');
    const nonce = await codeIn(stack, email);
    expect((await c.auth.updateUser({ password: 'Another-Horse-8', nonce })).error).toBeNull();
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: 'Another-Horse-8' })).error).toBeNull();
  });

  it('changes an email only after both addresses confirm', async () => {
    const email = newEmail('both');
    const next = newEmail('both-new');
    await adminOf(stack).createUser({ email, password: STRONG, email_confirm: true });
    const c = clientFor(stack);
    await c.auth.signInWithPassword({ email, password: STRONG });
    await c.auth.updateUser({ email: next });
    const first = await c.auth.verifyOtp({ email: next, token: await codeIn(stack, next), type: 'email_change' });
    expect(first.error).toBeNull();
    expect(first.data.session).toBeNull();
    expect((await c.auth.getUser()).data.user?.email).toBe(email);
    const second = await c.auth.verifyOtp({ email, token: await codeIn(stack, email), type: 'email_change' });
    expect(second.error).toBeNull();
    expect(second.data.user?.email).toBe(next);
  });
});

describe('a repeat sign-up with email and SMS confirmations both on', () => {
  const stack = stackFixture({
    configure: (c) => {
      c.auth.email.enableConfirmations = true;
      c.auth.sms.enableConfirmations = true;
    },
  });

  it('answers a confirmed address with a made-up user and sends nothing, so it tells nobody the address exists', async () => {
    const email = newEmail('exists');
    const made = await adminOf(stack).createUser({ email, password: PASSWORD, email_confirm: true });
    const { data, error } = await clientFor(stack).auth.signUp({
      email,
      password: PASSWORD,
      options: { data: { x: 1 } },
    });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user?.id).not.toBe(made.data.user!.id);
    expect(data.user).toMatchObject({ email, role: '', identities: [], user_metadata: { x: 1 } });
    expect(await messagesTo(stack.mailUrl, email)).toEqual([]);
  });
});
