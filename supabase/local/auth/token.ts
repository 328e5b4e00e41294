// POST /token — password, refresh_token and pkce grants; id_token and web3 answered as with their providers
// off (GoTrue token.go, token_refresh.go, token_oidc.go, web3.go; docs/reference/auth.md §1.6–1.7).
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { decodeJwt } from 'jose';
import { tx, type Handler } from './context.ts';
import { AuthError, errors, sendJson } from './errors.ts';
import { hookEnabled, runHook } from './hooks.ts';
import { readJson, str } from './http.ts';
import { verifyPassword, weakness } from './password.ts';
import { refresh, signIn } from './sessions.ts';
import { findByEmail, findById, findByPhone, isBanned, type UserRow } from './users.ts';

/** models/flow_state.go: the PKCE state a later code exchange will find (GoTrue generateFlowState). */
export async function saveFlowState(
  c: pg.PoolClient,
  userId: string,
  pkce: { challenge: string; method: string },
  providerType: string,
  method: string,
) {
  await c.query(
    `insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, authentication_method, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, now(), now())`,
    [randomUUID(), userId, randomUUID(), pkce.method, pkce.challenge, providerType, method],
  );
}

const FLOW_STATE_EXPIRY = 300; // GoTrue: GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION default (and minimum)

/** token.go ResourceOwnerPasswordGrant: the password (and its hook) decide before the confirmation check. */
const passwordGrant: Handler = async (ctx, req, res) => {
  const body = await readJson(req);
  const email = str(body.email) ?? '';
  const phone = str(body.phone) ?? '';
  const password = str(body.password) ?? '';
  if (email && phone) throw errors.validation('Only an email address or phone number should be provided on login.');
  let user: UserRow | undefined;
  if (email) {
    if (!ctx.config.email.enableSignup)
      throw new AuthError(422, 'email_provider_disabled', 'Email logins are disabled');
    user = await findByEmail(ctx.pool, email.toLowerCase());
  } else if (phone) {
    if (!ctx.config.sms.enableSignup) throw new AuthError(422, 'phone_provider_disabled', 'Phone logins are disabled');
    user = await findByPhone(ctx.pool, phone.replace(/^\+/, '').replace(/ /g, ''));
  } else throw errors.validation('missing email or phone');
  if (!user?.encrypted_password) throw errors.invalidCredentials();
  if (isBanned(user)) throw errors.userBanned(400);
  const valid = await verifyPassword(user.encrypted_password, password);
  if (hookEnabled(ctx, 'password_verification_attempt')) {
    const out = await runHook(ctx, 'password_verification_attempt', req, { user_id: user.id, valid });
    if (out?.decision === 'reject') {
      // v0hooks: should_logout_user ends every session of the user.
      if (out.should_logout_user === true)
        await ctx.pool.query('delete from auth.sessions where user_id = $1', [user.id]);
      throw errors.invalidCredentials(
        typeof out.message === 'string' && out.message
          ? out.message
          : 'Further password verification attempts will be rejected.',
      );
    }
  }
  if (!valid) throw errors.invalidCredentials();
  if (email && !user.email_confirmed_at) throw new AuthError(400, 'email_not_confirmed', 'Email not confirmed');
  if (phone && !user.phone_confirmed_at) throw new AuthError(400, 'phone_not_confirmed', 'Phone not confirmed');
  const session = await tx(ctx.pool, (c) => signIn(c, ctx, req, user, 'password'));
  // token.go: a right password the policy now calls weak still signs in, with the reasons attached.
  const weak = weakness(ctx.config, password);
  sendJson(res, 200, weak ? { ...session, weak_password: { message: weak.message, reasons: weak.reasons } } : session);
};

// provider/*.go: the issuer each ID-token provider's tokens carry.
const ID_TOKEN_ISSUERS: Record<string, string> = {
  google: 'https://accounts.google.com',
  facebook: 'https://www.facebook.com',
  kakao: 'https://kauth.kakao.com',
  snapchat: 'https://accounts.snapchat.com/accounts/oauth2/token',
  vercel_marketplace: 'https://marketplace.vercel.com',
};
const APPLE_ISSUERS = ['https://appleid.apple.com', 'https://account.apple.com'];
const AZURE_ISSUER = /^https:\/\/(login\.microsoftonline\.com|sts\.windows\.net)\//;

/**
 * token_oidc.go IdTokenGrant: every ID-token provider needs its keys from the internet, so locally each
 * answers as switched off — 400 provider_disabled naming the issuer — after GoTrue's own checks.
 */
const idTokenGrant = async (body: Record<string, unknown>) => {
  const idToken = str(body.id_token) ?? '';
  const provider = str(body.provider) ?? '';
  const issuerParam = str(body.issuer) ?? '';
  if (!idToken) throw errors.oauth('invalid request', 'id_token required');
  if (!provider && (!str(body.client_id) || !issuerParam))
    throw errors.oauth('invalid request', 'provider or client_id and issuer required');
  const detected = (name: string, ok: (iss: string) => boolean) => {
    let iss: string | undefined;
    try {
      iss = decodeJwt(idToken).iss;
    } catch {
      throw errors.validation(`Unable to detect issuer in ID token for ${name} provider`);
    }
    if (!iss || !ok(iss)) throw errors.validation(`Detected ID token issuer is not an ${name} ID token issuer`);
    if (issuerParam && issuerParam !== iss) throw errors.validation('Provided issuer does not match ID token issuer');
    return iss;
  };
  let issuer: string;
  if (provider === 'apple' || APPLE_ISSUERS.includes(issuerParam))
    issuer = detected('Apple', (i) => APPLE_ISSUERS.includes(i));
  else if (provider === 'azure' || AZURE_ISSUER.test(issuerParam))
    issuer = detected('Azure', (i) => AZURE_ISSUER.test(i));
  else if (provider.startsWith('custom:')) throw errors.validation('Custom OAuth providers are disabled');
  else {
    const name = Object.keys(ID_TOKEN_ISSUERS).find((k) => k === provider || ID_TOKEN_ISSUERS[k] === issuerParam);
    if (provider === 'keycloak') issuer = '';
    else if (!name) throw errors.validation(`Custom OIDC provider "${provider}" not allowed`);
    else issuer = ID_TOKEN_ISSUERS[name];
  }
  throw new AuthError(400, 'provider_disabled', `Provider (issuer "${issuer}") is not enabled`);
};

/**
 * web3.go Web3Grant: Sign in with Solana / Ethereum is off here whatever config.toml says (a chain
 * turned on is reported at start), so it answers as GoTrue does with both chains off.
 */
const web3Grant = () => {
  throw new AuthError(422, 'web3_provider_disabled', 'Web3 provider is disabled');
};

export const token: Handler = async (ctx, req, res, url) => {
  const grant = url.searchParams.get('grant_type');
  if (grant === 'password') return passwordGrant(ctx, req, res, url);
  const body = await readJson(req);
  if (grant === 'id_token') return idTokenGrant(body);
  if (grant === 'web3') return web3Grant();
  if (grant === 'refresh_token') {
    const rt = str(body.refresh_token);
    if (!rt) throw errors.oauth('invalid_request', 'refresh_token required'); // GoTrue tokens/service.go
    // GoTrue tokens/service.go: legacy tokens are 12 chars [a-z0-9]; shorter ones are refused outright.
    if (rt.length < 12) throw errors.validation('Refresh token is not valid');
    const session = await tx(ctx.pool, (c) => refresh(c, ctx, req, rt));
    return sendJson(res, 200, session);
  }
  if (grant === 'pkce') {
    const authCode = str(body.auth_code);
    const verifier = str(body.code_verifier);
    if (!authCode || !verifier)
      throw errors.validation('invalid request: both auth code and code verifier should be non-empty');
    const session = await tx(ctx.pool, async (c) => {
      const flow = (await c.query('select * from auth.flow_state where auth_code = $1 for update', [authCode])).rows[0];
      if (!flow?.user_id)
        throw new AuthError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found');
      const from =
        flow.authentication_method === 'magiclink' && flow.auth_code_issued_at
          ? flow.auth_code_issued_at
          : flow.created_at;
      if (Date.now() - new Date(from).getTime() > FLOW_STATE_EXPIRY * 1000)
        throw new AuthError(422, 'flow_state_expired', 'invalid flow state, flow state has expired');
      const expected: string =
        flow.code_challenge_method === 's256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
      const a = Buffer.from(expected);
      const b = Buffer.from(flow.code_challenge ?? '');
      if (a.length !== b.length || !timingSafeEqual(a, b))
        throw new AuthError(400, 'bad_code_verifier', 'code challenge does not match previously saved code verifier');
      await c.query('delete from auth.flow_state where id = $1', [flow.id]); // single use
      const user = await findById(c, flow.user_id);
      if (!user) throw errors.userNotFound(404);
      return signIn(c, ctx, req, user, flow.authentication_method);
    });
    return sendJson(res, 200, session);
  }
  throw new AuthError(400, 'invalid_credentials', 'unsupported_grant_type'); // GoTrue token.go: any other grant
};
