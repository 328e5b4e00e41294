// GET /settings, /health, /.well-known/jwks.json (GoTrue settings.go, health.go, jwks.go).
import type { Handler } from './context.ts';
import { sendJson } from './errors.ts';

export const settings: Handler = async (ctx, _req, res) => {
  const off = {
    apple: false,
    azure: false,
    bitbucket: false,
    discord: false,
    facebook: false,
    figma: false,
    github: false,
    gitlab: false,
    google: false,
    keycloak: false,
    kakao: false,
    linkedin_oidc: false,
    notion: false,
    spotify: false,
    slack_oidc: false,
    twitch: false,
    twitter: false,
    workos: false,
    zoom: false,
  };
  sendJson(res, 200, {
    external: { ...off, anonymous_users: false, email: true, phone: false },
    disable_signup: !ctx.config.enableSignup,
    mailer_autoconfirm: !ctx.config.email.enableConfirmations,
    phone_autoconfirm: false,
    sms_provider: '',
    saml_enabled: false,
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
