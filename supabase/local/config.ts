// Reads supabase/config.toml the way the Supabase CLI does, for the parts the local stack uses.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { unsupportedKeys } from './config-keys.ts';

export interface EmailTemplate {
  subject?: string;
  /** Absolute path of the HTML template, resolved like the CLI (relative to the project root). */
  contentPath?: string;
}

export interface AuthConfig {
  siteUrl: string;
  additionalRedirectUrls: string[];
  jwtExpiry: number;
  /** [auth] jwt_issuer; unset: <api url>/auth/v1. */
  jwtIssuer?: string;
  /** [auth] signing_keys_path, relative to supabase/ (a JSON array of private JWKs). */
  signingKeysPath?: string;
  enableSignup: boolean;
  enableRefreshTokenRotation: boolean;
  refreshTokenReuseInterval: number;
  enableAnonymousSignIns: boolean;
  enableManualLinking: boolean;
  /** GOTRUE_PASSWORD_MIN_LENGTH (at least 6) and GOTRUE_PASSWORD_REQUIRED_CHARACTERS, decoded into sets. */
  password: { minLength: number; requiredCharacters: string[] };
  email: {
    enableSignup: boolean;
    enableConfirmations: boolean;
    /** GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED: both addresses confirm an email change. */
    doubleConfirmChanges: boolean;
    /** GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION. */
    securePasswordChange: boolean;
    otpLength: number;
    otpExpiry: number;
    /** Seconds between two emails to one address (SMTP_MAX_FREQUENCY). */
    maxFrequency: number;
    templates: Record<string, EmailTemplate>;
  };
  /** [auth.sms]: phone sign-in, served locally through the send_sms hook or [auth.sms.test_otp]. */
  sms: {
    enableSignup: boolean;
    enableConfirmations: boolean;
    maxFrequency: number;
    template: string;
    testOtp: Record<string, string>;
  };
  /** [auth.mfa]: TOTP only; phone and WebAuthn factors, OAuth providers, SSO, web3 and passkeys run as off. */
  mfa: { maxEnrolledFactors: number; totp: { enroll: boolean; verify: boolean } };
  hooks: Partial<Record<HookName, HookConfig>>;
  rateLimit: {
    emailSent: number;
    signInSignUps: number;
    tokenVerifications: number;
    tokenRefresh: number;
    anonymousUsers: number;
    smsSent: number;
  };
}

export const HOOK_NAMES = [
  'custom_access_token',
  'password_verification_attempt',
  'mfa_verification_attempt',
  'send_email',
  'send_sms',
  'before_user_created',
] as const;
export type HookName = (typeof HOOK_NAMES)[number];
export interface HookConfig {
  uri: string;
  /** Standard Webhooks secrets (`v1,whsec_…`), http(s) hooks only. */
  secrets: string[];
}

/**
 * [realtime]: the CLI's `enabled`, plus the per-project limits hosted Realtime keeps on its tenant
 * record (docs/reference/realtime.md §7), under the tenant's field names. Defaults are the self-hosted
 * server's (config/runtime.exs), which the CLI's local Realtime uses.
 */
export interface RealtimeConfig {
  enabled: boolean;
  maxConcurrentUsers: number;
  maxEventsPerSecond: number;
  maxJoinsPerSecond: number;
  maxChannelsPerClient: number;
  maxPresenceEventsPerSecond: number;
  maxPayloadSizeInKb: number;
  /** Presence track/untrack calls one channel may make per window (CLIENT_PRESENCE_MAX_CALLS / _WINDOW_MS). */
  maxClientPresenceEventsPerWindow: number;
  clientPresenceWindowMs: number;
  /** Refuse public channels (hosted's "private channels only" setting). */
  privateOnly: boolean;
}

/** [storage.buckets.<name>] as the CLI reads it (pkg/config/storage.go); unset fields leave a bucket as it is. */
export interface BucketConfig {
  public?: boolean;
  /** Bytes; 0 (unset) means no limit of the bucket's own. */
  fileSizeLimit: number;
  allowedMimeTypes: string[];
  /** Absolute path of a file or directory uploaded into the bucket at start (relative to supabase/ in the file). */
  objectsPath?: string;
}

export interface ProjectConfig {
  projectId: string;
  api: { schemas: string[]; extraSearchPath: string[]; maxRows: number };
  auth: AuthConfig;
  storage: {
    fileSizeLimit: number;
    buckets: Record<string, BucketConfig>;
    /** [storage.image_transformation] enabled: off unless set, as with the CLI (its template leaves it commented out). */
    imageTransformation: boolean;
  };
  realtime: RealtimeConfig;
  /** [functions.<slug>] as the CLI reads it; paths absolute (config paths are relative to supabase/). */
  functions: Record<string, FunctionConfig>;
  edgeRuntime: EdgeRuntimeConfig;
  /** config.toml keys the stack doesn't honour, one line each (config-keys.ts), printed once at start. */
  warnings: string[];
}

export interface FunctionConfig {
  enabled: boolean;
  verifyJwt: boolean;
  entrypoint?: string;
  importMap?: string;
  staticFiles: string[];
}

export interface EdgeRuntimeConfig {
  enabled: boolean;
  /** per_worker keeps a worker per function between requests; oneshot starts one per request. */
  policy: 'per_worker' | 'oneshot';
  /** [edge_runtime.secrets], names upper-cased as the CLI does. */
  secrets: Record<string, string>;
  // Limits (not config.toml keys: the CLI rejects unknown keys). Defaults as the CLI's main.ts and
  // docs/reference/storage-functions.md B2: 256 MB, 400 s per worker, 150 s to start a response.
  memoryLimitMb: number;
  wallClockLimitMs: number;
  requestIdleTimeoutMs: number;
}

type Table = Record<string, unknown>;
const table = (v: unknown): Table => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Table) : {});
const num = (v: unknown, d: number) => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : d);
const bool = (v: unknown, d: boolean) => (typeof v === 'boolean' ? v : d);
const str = (v: unknown, d: string) => (typeof v === 'string' ? v : d);
const strs = (v: unknown, d: string[]) => (Array.isArray(v) ? v.map(String) : d);

/** The CLI's `env(NAME)` values: read from the environment (empty when unset). */
const envValue = (v: string) => v.replace(/^env\((\w+)\)$/, (_, name: string) => process.env[name] ?? '');

/** Go-style durations ("60s", "1m30s", "1h") as the CLI accepts them; plain numbers are seconds. */
export function parseDuration(v: unknown, d: number): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return d;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let matched = '';
  for (const m of v.matchAll(re)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n / 1000 : m[2] === 's' ? n : m[2] === 'm' ? n * 60 : n * 3600;
    matched += m[0];
  }
  if (matched !== v.trim()) throw new Error(`config.toml: invalid duration "${v}"`);
  return total;
}

/**
 * Storage sizes as the CLI reads them (go-units RAMInBytes): binary units whatever their spelling,
 * so "10MB" and "10MiB" are both 10 × 1024² bytes; a number is bytes.
 */
export function parseSize(v: unknown, d: number): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return d;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b)?\s*$/i.exec(v);
  if (!m) throw new Error(`config.toml: invalid size "${v}"`);
  return Math.round(Number(m[1]) * 1024 ** ' kmgtp'.indexOf(m[2].toLowerCase() || ' '));
}

// CLI pkg/config/auth.go PasswordRequirements.ToChar: GOTRUE_PASSWORD_REQUIRED_CHARACTERS per setting.
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const PASSWORD_REQUIREMENTS: Record<string, string[]> = {
  '': [],
  letters_digits: [LOWER + UPPER, DIGITS],
  lower_upper_letters_digits: [LOWER, UPPER, DIGITS],
  lower_upper_letters_digits_symbols: [LOWER, UPPER, DIGITS, '!@#$%^&*()_+-=[]{};\'\\:"|<>?,./`~'],
};

const HOOK_SECRET = /^v1,whsec_[A-Za-z0-9+/=]{32,88}$/; // CLI config.go hookSecretPattern

/** [auth.hook.<name>] validated as the CLI's hookConfig.validate does; only enabled hooks are kept. */
function hookConfig(name: string, t: Table): HookConfig | undefined {
  if (!bool(t.enabled, false)) return undefined;
  const uri = envValue(str(t.uri, ''));
  if (!uri) throw new Error(`config.toml: Missing required field in config: auth.hook.${name}.uri`);
  const secrets = envValue(str(t.secrets, ''));
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1].toLowerCase();
  if (scheme === 'http' || scheme === 'https') {
    if (!secrets) throw new Error(`config.toml: Missing required field in config: auth.hook.${name}.secrets`);
    if (!secrets.split('|').every((s) => HOOK_SECRET.test(s)))
      throw new Error(
        `config.toml: Invalid hook config: auth.hook.${name}.secrets must be formatted as "v1,whsec_<base64_encoded_secret>" with a minimum length of 32 characters.`,
      );
    // GoTrue conf ValidateExtensibilityPoint: plain http only to the machine itself.
    const host = new URL(uri).hostname.replace(/^\[|\]$/g, '');
    if (scheme === 'http' && !['localhost', '127.0.0.1', '::1', 'host.docker.internal'].includes(host))
      throw new Error(`config.toml: auth.hook.${name}.uri: only localhost, 127.0.0.1, and ::1 are supported with http`);
    return { uri, secrets: secrets.split('|') };
  }
  if (scheme === 'pg-functions') {
    if (secrets)
      throw new Error(
        `config.toml: Invalid hook config: auth.hook.${name}.secrets is unsupported for pg-functions URI`,
      );
    // GoTrue conf validatePostgresPath: pg-functions://<database>/<schema>/<function>.
    const [, schema, fn] = new URL(uri).pathname.split('/');
    for (const [what, v] of [
      ['schema', schema],
      ['table', fn],
    ])
      if (!/^[a-zA-Z_][a-zA-Z0-9_]{0,62}$/.test(v ?? ''))
        throw new Error(`config.toml: auth.hook.${name}.uri: invalid ${what} name: ${v ?? ''}`);
    return { uri, secrets: [] };
  }
  throw new Error(
    `config.toml: Invalid hook config: auth.hook.${name}.uri should be a HTTP, HTTPS, or pg-functions URI`,
  );
}

/** [auth] as the CLI turns it into GoTrue's environment (internal/start/start.go buildGotrueEnv). */
function authConfig(auth: Table, templates: Record<string, EmailTemplate>): AuthConfig {
  const email = table(auth.email);
  const sms = table(auth.sms);
  const mfa = table(auth.mfa);
  const rate = table(auth.rate_limit);
  const factor = (t: unknown) => ({
    enroll: bool(table(t).enroll_enabled, false),
    verify: bool(table(t).verify_enabled, false),
  });
  const requirements = str(auth.password_requirements, '');
  if (!(requirements in PASSWORD_REQUIREMENTS))
    throw new Error(
      `config.toml: auth.password_requirements must be one of ${Object.keys(PASSWORD_REQUIREMENTS)
        .map((k) => `"${k}"`)
        .join(', ')}`,
    );
  const hooks: AuthConfig['hooks'] = {};
  for (const name of HOOK_NAMES) {
    const hook = hookConfig(name, table(table(auth.hook)[name]));
    if (hook) hooks[name] = hook;
  }
  return {
    siteUrl: str(auth.site_url, 'http://127.0.0.1:3000'),
    additionalRedirectUrls: strs(auth.additional_redirect_urls, []),
    jwtExpiry: num(auth.jwt_expiry, 3600),
    jwtIssuer: str(auth.jwt_issuer, '') || undefined,
    signingKeysPath: str(auth.signing_keys_path, '') || undefined,
    enableSignup: bool(auth.enable_signup, true),
    enableRefreshTokenRotation: bool(auth.enable_refresh_token_rotation, true),
    refreshTokenReuseInterval: num(auth.refresh_token_reuse_interval, 10),
    enableAnonymousSignIns: bool(auth.enable_anonymous_sign_ins, false),
    enableManualLinking: bool(auth.enable_manual_linking, false),
    // GoTrue conf: a minimum below 6 is raised to 6.
    password: {
      minLength: Math.max(6, num(auth.minimum_password_length, 6)),
      requiredCharacters: PASSWORD_REQUIREMENTS[requirements],
    },
    email: {
      enableSignup: bool(email.enable_signup, true),
      enableConfirmations: bool(email.enable_confirmations, false),
      doubleConfirmChanges: bool(email.double_confirm_changes, true),
      securePasswordChange: bool(email.secure_password_change, false),
      otpLength: num(email.otp_length, 6),
      otpExpiry: num(email.otp_expiry, 3600),
      maxFrequency: parseDuration(email.max_frequency, 1),
      templates,
    },
    sms: {
      enableSignup: bool(sms.enable_signup, false),
      enableConfirmations: bool(sms.enable_confirmations, false),
      maxFrequency: parseDuration(sms.max_frequency, 5),
      template: str(sms.template, 'Your code is {{ .Code }}'),
      testOtp: Object.fromEntries(Object.entries(table(sms.test_otp)).map(([k, v]) => [k, String(v)])),
    },
    mfa: { maxEnrolledFactors: num(mfa.max_enrolled_factors, 10), totp: factor(mfa.totp) },
    hooks,
    rateLimit: {
      emailSent: num(rate.email_sent, 360000),
      signInSignUps: num(rate.sign_in_sign_ups, 30),
      tokenVerifications: num(rate.token_verifications, 30),
      tokenRefresh: num(rate.token_refresh, 150),
      anonymousUsers: num(rate.anonymous_users, 30),
      smsSent: num(rate.sms_sent, 30),
    },
  };
}

export function loadConfig(projectDir: string, file = path.join(projectDir, 'supabase', 'config.toml')): ProjectConfig {
  const raw = table(parse(readFileSync(file, 'utf8')));
  const api = table(raw.api);
  const auth = table(raw.auth);
  const email = table(auth.email);
  const templates: Record<string, EmailTemplate> = {};
  for (const [name, t] of Object.entries(table(email.template))) {
    const tt = table(t);
    templates[name] = {
      subject: typeof tt.subject === 'string' ? tt.subject : undefined,
      contentPath: typeof tt.content_path === 'string' ? path.resolve(projectDir, tt.content_path) : undefined,
    };
  }
  const rt = table(raw.realtime);
  // CLI config.go: [functions.<slug>] defaults to enabled and verify_jwt; paths are relative to supabase/.
  const supabaseDir = path.dirname(file);
  const inSupabase = (v: unknown) => (typeof v === 'string' && v ? path.resolve(supabaseDir, v) : undefined);
  const functions: ProjectConfig['functions'] = {};
  for (const [name, f] of Object.entries(table(raw.functions))) {
    const t = table(f);
    functions[name] = {
      enabled: bool(t.enabled, true),
      verifyJwt: bool(t.verify_jwt, true),
      entrypoint: inSupabase(t.entrypoint),
      importMap: inSupabase(t.import_map),
      staticFiles: strs(t.static_files, []).map((g) => path.resolve(supabaseDir, g)),
    };
  }
  const edge = table(raw.edge_runtime);
  const secrets: Record<string, string> = {};
  for (const [k, v] of Object.entries(table(edge.secrets))) secrets[k.toUpperCase()] = envValue(String(v));

  return {
    projectId: str(raw.project_id, 'local'),
    api: {
      schemas: strs(api.schemas, ['public', 'graphql_public']),
      extraSearchPath: strs(api.extra_search_path, ['public', 'extensions']),
      maxRows: num(api.max_rows, 1000),
    },
    auth: authConfig(auth, templates),
    storage: {
      fileSizeLimit: parseSize(table(raw.storage).file_size_limit, 50 * 1024 ** 2),
      imageTransformation: bool(table(table(raw.storage).image_transformation).enabled, false),
      buckets: Object.fromEntries(
        Object.entries(table(table(raw.storage).buckets)).map(([name, b]) => {
          const t = table(b);
          const objectsPath = str(t.objects_path, '');
          return [
            name,
            {
              public: typeof t.public === 'boolean' ? t.public : undefined,
              fileSizeLimit: parseSize(t.file_size_limit, 0),
              allowedMimeTypes: strs(t.allowed_mime_types, []),
              objectsPath: objectsPath ? path.resolve(projectDir, 'supabase', objectsPath) : undefined,
            },
          ];
        }),
      ),
    },
    realtime: {
      enabled: bool(rt.enabled, true),
      maxConcurrentUsers: num(rt.max_concurrent_users, 200),
      maxEventsPerSecond: num(rt.max_events_per_second, 100),
      maxJoinsPerSecond: num(rt.max_joins_per_second, 100),
      maxChannelsPerClient: num(rt.max_channels_per_client, 100),
      maxPresenceEventsPerSecond: num(rt.max_presence_events_per_second, 1000),
      maxPayloadSizeInKb: num(rt.max_payload_size_in_kb, 3000),
      maxClientPresenceEventsPerWindow: num(rt.max_client_presence_events_per_window, 5),
      clientPresenceWindowMs: num(rt.client_presence_window_ms, 30_000),
      privateOnly: bool(rt.private_only, false),
    },
    functions,
    edgeRuntime: {
      enabled: bool(edge.enabled, true),
      policy: edge.policy === 'oneshot' ? 'oneshot' : 'per_worker',
      secrets,
      memoryLimitMb: 256,
      wallClockLimitMs: 400_000,
      requestIdleTimeoutMs: 150_000,
    },
    warnings: unsupportedKeys(raw),
  };
}
