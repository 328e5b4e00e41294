// GET /settings, /health, /.well-known/jwks.json (GoTrue settings.go, health.go, jwks.go).
import type { Handler } from './context.ts';
import { sendJson } from './errors.ts';

/**
 * GET /settings (settings.go, v2.189's fields): email, phone and anonymous sign-in as config.toml sets
 * them; OAuth providers, SAML and passkeys are off here whatever it says (reported at start).
 */
export const settings: Handler = async (ctx, _req, res) => {
  const c = ctx.config;
  const providers = [
    'apple',
    'azure',
    'bitbucket',
    'discord',
    'facebook',
    'snapchat',
    'figma',
    'fly',
    'github',
    'gitlab',
    'google',
    'keycloak',
    'kakao',
    'linkedin',
    'linkedin_oidc',
    'notion',
    'spotify',
    'slack',
    'slack_oidc',
    'workos',
    'twitch',
    'twitter',
  ];
  sendJson(res, 200, {
    external: {
      anonymous_users: c.enableAnonymousSignIns,
      ...Object.fromEntries(providers.map((p) => [p, false])),
      email: c.email.enableSignup,
      phone: c.sms.enableSignup,
      zoom: false,
    },
    disable_signup: !c.enableSignup,
    mailer_autoconfirm: !c.email.enableConfirmations,
    phone_autoconfirm: !c.sms.enableConfirmations,
    sms_provider: '',
    saml_enabled: false,
    passkeys_enabled: false,
  });
};

export const health: Handler = async (_ctx, _req, res) => {
  sendJson(res, 200, {
    version: 'tend-local',
    name: 'GoTrue',
    description: 'GoTrue is a user registration and authentication API',
  });
};

// The public signing keys (GoTrue jwks.go); the symmetric JWT secret is never listed.
export const jwks: Handler = async (ctx, _req, res) => {
  sendJson(res, 200, { keys: ctx.signer.publicKeys }, { 'cache-control': 'public, max-age=600' });
};
