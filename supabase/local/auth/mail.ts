// Auth emails from the templates configured in config.toml (docs/reference/auth.md §6).
import { existsSync, readFileSync } from 'node:fs';
import type { AuthConfig } from '../config.ts';
import type { Mailer } from '../service.ts';

// GoTrue mailer defaults (v2.189, the CLI-pinned image: templatemailer/template.go): subject and body
// of each template when config.toml configures none.
const DEFAULTS: Record<TemplateName, { subject: string; body: string }> = {
  invite: {
    subject: 'You have been invited',
    body: `<h2>You have been invited</h2>

<p>You have been invited to create a user on {{ .SiteURL }}. Follow this link to accept the invite:</p>
<p><a href="{{ .ConfirmationURL }}">Accept the invite</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>`,
  },
  confirmation: {
    subject: 'Confirm Your Email',
    body: `<h2>Confirm Your Email</h2>

<p>Follow this link to confirm your email:</p>
<p><a href="{{ .ConfirmationURL }}">Confirm your email address</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>
`,
  },
  recovery: {
    subject: 'Reset Your Password',
    body: `<h2>Reset password</h2>

<p>Follow this link to reset the password for your user:</p>
<p><a href="{{ .ConfirmationURL }}">Reset password</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>`,
  },
  magic_link: {
    subject: 'Your Magic Link',
    body: `<h2>Magic Link</h2>

<p>Follow this link to login:</p>
<p><a href="{{ .ConfirmationURL }}">Log In</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>`,
  },
  email_change: {
    subject: 'Confirm Email Change',
    body: `<h2>Confirm email address change</h2>

<p>Follow this link to confirm the update of your email address from {{ .Email }} to {{ .NewEmail }}:</p>
<p><a href="{{ .ConfirmationURL }}">Change email address</a></p>
<p>Alternatively, enter the code: {{ .Token }}</p>`,
  },
  reauthentication: {
    subject: 'Confirm reauthentication',
    body: `<h2>Confirm reauthentication</h2>

<p>Enter the code: {{ .Token }}</p>`,
  },
};

export type TemplateName = 'invite' | 'confirmation' | 'recovery' | 'magic_link' | 'email_change' | 'reauthentication';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Go-template substitution for the variables GoTrue passes: {{ .Token }}, {{ .Data.key }} … */
export function render(
  template: string,
  vars: Record<string, string>,
  data: Record<string, unknown>,
  escapeValue = escapeHtml,
): string {
  return template.replace(/\{\{\s*\.(\w+)(?:\.(\w+))?\s*\}\}/g, (_, name: string, key?: string) => {
    if (name === 'Data' && key) return escapeValue(String(data[key] ?? ''));
    return escapeValue(vars[name] ?? '');
  });
}

export function htmlToText(html: string): string {
  return html
    .replace(/<(style|script)[\s\S]*?<\/\1>/gi, '')
    .replace(/<a [^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, '$2 ($1)')
    .replace(/<br\s*\/?>|<\/(p|h\d|div|tr|li)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Go's url.QueryEscape: only [A-Za-z0-9-_.~] stay as they are, a space becomes '+'. */
const queryEscape = (s: string) =>
  encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

/**
 * {{ .ConfirmationURL }} and generate_link's action_link (GoTrue mailer getPath): redirect_to is
 * escaped only when it contains &, = or # (otherwise it is taken as already encoded).
 */
export function verifyUrl(apiUrl: string, tokenHash: string, type: string, redirectTo: string): string {
  const redirect = /[&=#]/.test(redirectTo) ? queryEscape(redirectTo) : redirectTo;
  return `${apiUrl}/auth/v1/verify?token=${queryEscape(tokenHash)}&type=${queryEscape(type)}&redirect_to=${redirect}`;
}

export interface AuthMail {
  template: TemplateName;
  /** Where it goes: the user's address, or for an email change the new or the current one. */
  to: string;
  /** The user's current address ({{ .Email }}) and, for an email change, the new one ({{ .NewEmail }}). */
  email: string;
  newEmail?: string;
  token: string;
  tokenHash: string;
  /** The link's type= (signup, invite, magiclink, recovery, email_change); none for reauthentication. */
  type?: string;
  redirectTo: string;
  data: Record<string, unknown>;
}

export async function sendAuthMail(mailer: Mailer, config: AuthConfig, apiUrl: string, m: AuthMail) {
  const configured = config.email.templates[m.template];
  const fallback = DEFAULTS[m.template];
  const body =
    configured?.contentPath && existsSync(configured.contentPath)
      ? readFileSync(configured.contentPath, 'utf8')
      : fallback.body;
  const vars = {
    Token: m.token,
    TokenHash: m.tokenHash,
    SiteURL: config.siteUrl,
    RedirectTo: m.redirectTo,
    Email: m.email,
    NewEmail: m.newEmail ?? '',
    SendingTo: m.to,
    ConfirmationURL: m.type ? verifyUrl(apiUrl, m.tokenHash, m.type, m.redirectTo) : '',
  };
  const html = render(body, vars, m.data);
  await mailer.send({
    // CLI: GoTrue sends as admin@email.com / "Admin" to the local mail catcher.
    from: { name: 'Admin', email: 'admin@email.com' },
    to: [{ email: m.to }],
    // GoTrue renders the subject as text (text/template), the body as HTML (html/template).
    subject: render(configured?.subject ?? fallback.subject, vars, m.data, (v) => v),
    html,
    text: htmlToText(html),
  });
}
