// What a local stack can't serve without the internet — OAuth providers, SSO/SAML, passkeys, the OAuth
// server — answered as GoTrue answers with the feature off, never a bare 404 (supabase-fidelity.md §3).
// Manual identity linking is served: unlinking works, linking needs a provider and answers as /authorize does.
import { tx, type Handler } from './context.ts';
import { AuthError, sendJson } from './errors.ts';
import { requireUser } from './guard.ts';
import { isUuid } from './http.ts';
import { updateProviders } from './users.ts';

// external.go Provider: the names GoTrue knows; any other is "could not be found".
export const OAUTH_PROVIDERS = [
  'apple',
  'azure',
  'bitbucket',
  'discord',
  'facebook',
  'figma',
  'fly',
  'github',
  'gitlab',
  'google',
  'kakao',
  'keycloak',
  'linkedin',
  'linkedin_oidc',
  'notion',
  'snapchat',
  'spotify',
  'slack',
  'slack_oidc',
  'twitch',
  'twitter',
  'x',
  'vercel_marketplace',
  'workos',
  'zoom',
];

/** external.go GetExternalProviderRedirectURL: every provider is off locally (config.toml's are reported at start). */
function providerError(url: URL) {
  const name = (url.searchParams.get('provider') ?? '').toLowerCase();
  const reason = name.startsWith('custom:')
    ? 'custom OAuth providers are disabled'
    : OAUTH_PROVIDERS.includes(name)
      ? 'provider is not enabled'
      : `Provider ${name} could not be found`;
  return new AuthError(400, 'validation_failed', `Unsupported provider: ${reason}`);
}

/** GET /authorize?provider= */
export const authorize: Handler = async (_ctx, _req, _res, url) => {
  throw providerError(url);
};

/** GET|POST /callback: no OAuth flow is ever started here, so no state can be found (external.go loadExternalState). */
export const callback: Handler = async (_ctx, _req, _res, url) => {
  const state = url.searchParams.get('state') ?? '';
  if (!state) throw new AuthError(400, 'bad_oauth_callback', 'OAuth state parameter missing');
  if (!isUuid(state)) throw new AuthError(400, 'bad_oauth_state', 'OAuth state parameter is invalid');
  throw new AuthError(400, 'bad_oauth_state', 'OAuth state not found or expired');
};

/** middleware.go requireSAMLEnabled: /sso, /sso/saml/*, /admin/sso/* */
export const samlDisabled: Handler = async () => {
  throw new AuthError(404, 'saml_provider_disabled', 'SAML 2.0 is disabled');
};

/** middleware.go requirePasskeyEnabled: /passkeys/* */
export const passkeysDisabled: Handler = async () => {
  throw new AuthError(404, 'passkey_disabled', 'Passkeys are disabled');
};

/** middleware.go requireOAuthServerEnabled: /oauth/*, /admin/oauth/*, /user/oauth/grants, the server metadata. */
export const oauthServerDisabled: Handler = async () => {
  throw new AuthError(404, 'feature_disabled', 'OAuth server is disabled');
};

/** middleware.go requireCustomOAuthEnabled: /admin/custom-providers */
export const customProvidersDisabled: Handler = async () => {
  throw new AuthError(404, 'feature_disabled', 'Custom OAuth providers are disabled');
};

const linkingDisabled = () => new AuthError(404, 'manual_linking_disabled', 'Manual linking is disabled');

/** GET /user/identities/authorize: linking starts an OAuth flow, so it answers as /authorize does. */
export const linkIdentity: Handler = async (ctx, req, _res, url) => {
  await requireUser(ctx, req);
  if (!ctx.config.enableManualLinking) throw linkingDisabled();
  throw providerError(url);
};

/** DELETE /user/identities/{id} (identity.go DeleteIdentity). */
export const unlinkIdentity =
  (identityId: string): Handler =>
  async (ctx, req, res) => {
    const { user } = await requireUser(ctx, req);
    if (!ctx.config.enableManualLinking) throw linkingDisabled();
    if (!isUuid(identityId)) throw new AuthError(404, 'validation_failed', 'identity_id must be an UUID');
    const identities = (
      await ctx.pool.query('select id, provider, email from auth.identities where user_id = $1', [user.id])
    ).rows;
    if (identities.length <= 1)
      throw new AuthError(422, 'single_identity_not_deletable', 'User must have at least 1 identity after unlinking');
    const target = identities.find((i) => i.id === identityId);
    if (!target) throw new AuthError(422, 'identity_not_found', "Identity doesn't exist");
    await tx(ctx.pool, async (c) => {
      await c.query('delete from auth.identities where id = $1', [target.id]);
      if (target.provider === 'phone')
        await c.query('update auth.users set phone = null, phone_confirmed_at = null where id = $1', [user.id]);
      else {
        // User.UpdateUserEmailFromIdentities: the email follows the identities that remain.
        const rest = identities.filter((i) => i.id !== target.id && i.email);
        if (!rest.some((i) => i.email === user.email))
          await c.query('update auth.users set email = $2 where id = $1', [user.id, rest[0]?.email ?? null]);
      }
      await updateProviders(c, user.id);
    });
    sendJson(res, 200, {});
  };
