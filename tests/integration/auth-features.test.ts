// Features a local stack can't serve without the internet answer as hosted Auth does with them off
// (status and error code, never a bare 404), /settings says what is on, and the ones config.toml can turn
// on that need nothing outside — anonymous sign-in, TOTP MFA, manual identity linking — work.
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { clientFor, newEmail, type TestStack } from '../support/stack.ts';

async function api(stack: TestStack, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`${stack.apiUrl}/auth/v1${path}`, {
    method,
    redirect: 'manual',
    headers: {
      apikey: stack.anonKey,
      'content-type': 'application/json',
      'x-supabase-api-version': '2024-01-01',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const PASSWORD = 'correct-horse-7';

describe('features that are off (Tend’s config.toml, the CLI defaults)', () => {
  const stack = stackFixture();
  const signedIn = async () => {
    const c = clientFor(stack);
    const { data } = await c.auth.signUp({ email: newEmail('off'), password: PASSWORD });
    return { c, token: data.session!.access_token };
  };

  it('reports in /settings what is on', async () => {
    const { body } = await api(stack, 'GET', '/settings');
    expect(body).toMatchObject({
      external: { email: true, phone: false, anonymous_users: false, github: false, google: false },
      disable_signup: false,
      mailer_autoconfirm: true,
      phone_autoconfirm: true,
      saml_enabled: false,
      passkeys_enabled: false,
    });
  });

  it('answers phone, anonymous, OAuth, ID-token and web3 sign-in with GoTrue’s codes', async () => {
    const c = clientFor(stack);
    expect((await c.auth.signInWithOtp({ phone: '+15550001111' })).error).toMatchObject({
      status: 400,
      code: 'phone_provider_disabled',
      message: 'Unsupported phone provider',
    });
    expect((await c.auth.signUp({ phone: '+15550001111', password: PASSWORD })).error).toMatchObject({
      status: 400,
      code: 'phone_provider_disabled',
      message: 'Phone signups are disabled',
    });
    expect((await c.auth.signInWithPassword({ phone: '+15550001111', password: PASSWORD })).error).toMatchObject({
      status: 422,
      code: 'phone_provider_disabled',
    });
    expect((await c.auth.signInAnonymously()).error).toMatchObject({
      status: 422,
      code: 'anonymous_provider_disabled',
      message: 'Anonymous sign-ins are disabled',
    });
    expect(await api(stack, 'GET', '/authorize?provider=github')).toEqual({
      status: 400,
      body: { code: 'validation_failed', message: 'Unsupported provider: provider is not enabled' },
    });
    expect((await api(stack, 'GET', '/authorize?provider=myspace')).body.message).toBe(
      'Unsupported provider: Provider myspace could not be found',
    );
    expect((await c.auth.signInWithIdToken({ provider: 'google', token: 'x.y.z' })).error).toMatchObject({
      status: 400,
      code: 'provider_disabled',
      message: 'Provider (issuer "https://accounts.google.com") is not enabled',
    });
    expect(await api(stack, 'POST', '/token?grant_type=web3', { chain: 'solana' })).toEqual({
      status: 422,
      body: { code: 'web3_provider_disabled', message: 'Web3 provider is disabled' },
    });
  });

  it('answers SSO/SAML, passkeys and the OAuth server as switched off', async () => {
    expect((await clientFor(stack).auth.signInWithSSO({ domain: 'example.test' })).error).toMatchObject({
      status: 404,
      code: 'saml_provider_disabled',
      message: 'SAML 2.0 is disabled',
    });
    expect((await api(stack, 'GET', '/sso/saml/metadata')).body).toEqual({
      code: 'saml_provider_disabled',
      message: 'SAML 2.0 is disabled',
    });
    expect((await api(stack, 'POST', '/passkeys/authentication/options', {})).body.code).toBe('passkey_disabled');
    expect(await api(stack, 'GET', '/oauth/authorize?client_id=x')).toEqual({
      status: 404,
      body: { code: 'feature_disabled', message: 'OAuth server is disabled' },
    });
  });

  it('answers MFA enrolment per factor type, and identity linking, as off', async () => {
    const { c, token } = await signedIn();
    for (const [factorType, code, type] of [
      ['totp', 'mfa_totp_enroll_not_enabled', 'TOTP'],
      ['phone', 'mfa_phone_enroll_not_enabled', 'Phone'],
    ] as const)
      expect(
        (await c.auth.mfa.enroll(factorType === 'phone' ? { factorType, phone: '+15550001111' } : { factorType }))
          .error,
      ).toMatchObject({ status: 422, code, message: `MFA enroll is disabled for ${type}` });
    expect((await api(stack, 'POST', '/factors', { factor_type: 'webauthn' }, token)).body.code).toBe(
      'mfa_webauthn_enroll_not_enabled',
    );
    expect((await api(stack, 'POST', '/factors', { factor_type: 'sms' }, token)).body).toEqual({
      code: 'validation_failed',
      message: 'factor_type needs to be totp, phone, or webauthn',
    });
    expect((await c.auth.linkIdentity({ provider: 'github' })).error).toMatchObject({
      status: 404,
      code: 'manual_linking_disabled',
      message: 'Manual linking is disabled',
    });
  });
});

describe('features config.toml turns on that need nothing outside', () => {
  const stack = stackFixture({
    fixture: 'auth-project',
    configure: (c) => {
      c.auth.enableAnonymousSignIns = true;
      c.auth.enableManualLinking = true;
      c.auth.hooks = {};
    },
  });

  it('signs in anonymously, then turns the anonymous user into a permanent one with an email and password', async () => {
    const c = clientFor(stack);
    const anon = await c.auth.signInAnonymously({ options: { data: { theme: 'dark' } } });
    expect(anon.error).toBeNull();
    expect(anon.data.user).toMatchObject({
      is_anonymous: true,
      email: '',
      app_metadata: {},
      user_metadata: { theme: 'dark' },
    });
    expect(decodeJwt(anon.data.session!.access_token)).toMatchObject({ is_anonymous: true, role: 'authenticated' });
    expect((await c.auth.mfa.enroll({ factorType: 'totp' })).error).toMatchObject({
      status: 403,
      code: 'no_authorization',
    });
    const email = newEmail('anon');
    const upgraded = await c.auth.updateUser({ email, password: PASSWORD });
    expect(upgraded.error).toBeNull();
    expect(upgraded.data.user).toMatchObject({ email, is_anonymous: false });
    expect((await clientFor(stack).auth.signInWithPassword({ email, password: PASSWORD })).data.user?.id).toBe(
      anon.data.user!.id,
    );
    const settings = await api(stack, 'GET', '/settings');
    expect(settings.body.external.anonymous_users).toBe(true);
  });

  it('enrolls a TOTP factor, raises the session to aal2 with a right code, and unenrolls it', async () => {
    const c = clientFor(stack);
    await c.auth.signUp({ email: newEmail('totp'), password: PASSWORD });
    const enrolled = await c.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone app' });
    expect(enrolled.error).toBeNull();
    const { id, totp } = enrolled.data!;
    expect(totp.uri).toMatch(/^otpauth:\/\/totp\/127\.0\.0\.1%3A3000:totp.*secret=/);
    expect(totp.qr_code).toContain('<svg');
    const code = new TOTP({ secret: Secret.fromBase32(totp.secret) });
    const challenge = await c.auth.mfa.challenge({ factorId: id });
    expect(challenge.error).toBeNull();
    expect(
      (await c.auth.mfa.verify({ factorId: id, challengeId: challenge.data!.id, code: '000000' })).error,
    ).toMatchObject({ status: 422, code: 'mfa_verification_failed', message: 'Invalid TOTP code entered' });
    const verified = await c.auth.mfa.verify({ factorId: id, challengeId: challenge.data!.id, code: code.generate() });
    expect(verified.error).toBeNull();
    expect(decodeJwt(verified.data!.access_token).amr).toEqual([
      { method: 'totp', timestamp: expect.any(Number) },
      { method: 'password', timestamp: expect.any(Number) },
    ]);
    const aal = await c.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    // The aal2 session survives a refresh; the verified factor is listed on the user.
    expect(decodeJwt((await c.auth.refreshSession()).data.session!.access_token).aal).toBe('aal2');
    expect((await c.auth.mfa.listFactors()).data?.totp.map((f) => f.id)).toEqual([id]);
    expect((await c.auth.mfa.unenroll({ factorId: id })).error).toBeNull();
    expect((await c.auth.getUser()).data.user?.factors ?? []).toEqual([]);
  });

  it('unlinks an identity only while another remains (manual linking on), and linking answers as the provider is off', async () => {
    const c = clientFor(stack);
    const { data } = await c.auth.signUp({ email: newEmail('link'), password: PASSWORD });
    const [only] = data.user!.identities!;
    expect((await c.auth.unlinkIdentity(only)).error).toMatchObject({
      status: 422,
      code: 'single_identity_not_deletable',
    });
    expect((await c.auth.updateUser({ phone: '+15550002222' })).error).toBeNull();
    const identities = (await c.auth.getUserIdentities()).data!.identities;
    expect(identities.map((i) => i.provider).sort()).toEqual(['email', 'phone']);
    const phone = identities.find((i) => i.provider === 'phone')!;
    expect((await c.auth.unlinkIdentity(phone)).error).toBeNull();
    expect((await c.auth.getUser()).data.user).toMatchObject({ phone: '', app_metadata: { providers: ['email'] } });
    expect((await c.auth.linkIdentity({ provider: 'github' })).error).toMatchObject({
      status: 400,
      message: 'Unsupported provider: provider is not enabled',
    });
  });
});
