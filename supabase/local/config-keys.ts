// Which config.toml keys the local stack honours, so a key it doesn't is reported at start instead
// of dropped without a word. Keys and defaults are the Supabase CLI's (apps/cli-go/pkg/config/*.go,
// pkg/config/templates/config.toml).

/**
 * `true`: honoured. `ANY`: makes no difference here (a tool the CLI runs beside the API, or a
 * detail of a section reported on its own). Any other value: the stack behaves as the CLI does with
 * that value, and a config.toml that sets another one is reported. A `'*'` key stands for map
 * entries (bucket names, providers, functions…).
 */
const ANY: unique symbol = Symbol('any');
type Rule = true | typeof ANY | string | number | boolean | null | Spec;
interface Spec {
  [key: string]: Rule;
}

const off: Spec = { enabled: false, '*': ANY }; // a feature the stack doesn't have, with its details
const port = (n: number) => n;

const SPEC: Spec = {
  project_id: true,
  api: {
    enabled: true,
    port: port(54321),
    schemas: true,
    extra_search_path: true,
    max_rows: true,
    auto_expose_new_tables: null,
    external_url: null,
    tls: off,
  },
  db: {
    port: port(54322),
    shadow_port: ANY,
    health_timeout: ANY,
    major_version: 17,
    root_key: null,
    pooler: off,
    migrations: { enabled: true, schema_paths: ANY },
    seed: { enabled: true, sql_paths: ANY },
    vault: { '*': null },
    network_restrictions: off,
    ssl_enforcement: off,
    settings: { '*': null },
  },
  realtime: {
    enabled: true,
    ip_version: ANY,
    max_header_length: ANY,
    // Read by the local stack only (hosted keeps them on the tenant; README "Realtime").
    max_concurrent_users: true,
    max_events_per_second: true,
    max_joins_per_second: true,
    max_channels_per_client: true,
    max_presence_events_per_second: true,
    max_payload_size_in_kb: true,
    max_client_presence_events_per_window: true,
    client_presence_window_ms: true,
    private_only: true,
  },
  studio: { enabled: false, port: ANY, api_url: ANY, openai_api_key: ANY, pgmeta_image: ANY },
  inbucket: {
    enabled: ANY,
    port: port(54324),
    smtp_port: port(54325),
    pop3_port: null,
    admin_email: null,
    sender_name: null,
  },
  storage: {
    enabled: true,
    file_size_limit: true,
    buckets: { '*': { public: true, file_size_limit: true, allowed_mime_types: true, objects_path: true } },
    s3_protocol: off,
    image_transformation: { enabled: true },
    analytics: off,
    vector: off,
  },
  auth: {
    enabled: true,
    site_url: true,
    additional_redirect_urls: true,
    jwt_expiry: true,
    jwt_issuer: true,
    external_url: null,
    signing_keys_path: true,
    enable_refresh_token_rotation: true,
    refresh_token_reuse_interval: true,
    enable_signup: true,
    enable_anonymous_sign_ins: true,
    enable_manual_linking: true,
    minimum_password_length: true,
    password_requirements: true,
    jwt_secret: null,
    anon_key: null,
    service_role_key: null,
    publishable_key: null,
    secret_key: null,
    passkey: off,
    webauthn: { '*': ANY },
    rate_limit: {
      email_sent: true,
      sms_sent: true,
      anonymous_users: true,
      token_refresh: true,
      sign_in_sign_ups: true,
      token_verifications: true,
      web3: ANY,
    },
    captcha: off,
    hook: { '*': { enabled: true, uri: true, secrets: true } },
    mfa: {
      max_enrolled_factors: true,
      totp: { enroll_enabled: true, verify_enabled: true },
      phone: { enroll_enabled: false, verify_enabled: false, otp_length: ANY, template: ANY, max_frequency: ANY },
      web_authn: { enroll_enabled: false, verify_enabled: false },
    },
    sessions: { timebox: null, inactivity_timeout: null },
    email: {
      enable_signup: true,
      double_confirm_changes: true,
      enable_confirmations: true,
      secure_password_change: true,
      max_frequency: true,
      otp_length: true,
      otp_expiry: true,
      template: { '*': { subject: true, content_path: true, content: null } }, // the CLI refuses `content`
      notification: { '*': off },
      smtp: off,
    },
    sms: {
      enable_signup: true,
      enable_confirmations: true,
      template: ANY,
      max_frequency: true,
      test_otp: { '*': true },
      twilio: off,
      twilio_verify: off,
      messagebird: off,
      textlocal: off,
      vonage: off,
    },
    // OAuth needs the provider on the internet: an enabled one is listed in /settings and reported here.
    external: { '*': off },
    web3: { solana: off, ethereum: off },
    third_party: { '*': off },
    oauth_server: off,
  },
  edge_runtime: { enabled: true, policy: true, inspector_port: ANY, deno_version: 2, secrets: { '*': true } },
  functions: {
    '*': { enabled: true, verify_jwt: true, import_map: true, entrypoint: true, static_files: true },
  },
  analytics: off,
  experimental: { '*': ANY },
  remotes: { '*': ANY },
};

const isSpec = (r: Rule): r is Spec => typeof r === 'object' && r !== null;
const isTable = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const show = (v: unknown) => (typeof v === 'string' ? `"${v}"` : typeof v === 'bigint' ? String(v) : JSON.stringify(v));

/** One line per key of `raw` (the parsed config.toml) that the stack would not honour. */
export function unsupportedKeys(raw: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (value: Record<string, unknown>, spec: Spec, at: string) => {
    for (const [key, v] of Object.entries(value)) {
      const name = at ? `${at}.${key}` : key;
      const rule = key in spec ? spec[key] : spec['*'];
      if (rule === undefined) out.push(`${name} is not a config.toml key the Supabase CLI knows; ignored`);
      else if (rule === true || rule === ANY) continue;
      else if (isSpec(rule)) {
        if (isTable(v)) walk(v, rule, name);
        else out.push(`${name} should be a table; ignored`);
      } else if (rule === null) out.push(`${name} is not supported by the local stack; ignored`);
      else if (v !== rule && !(typeof v === 'bigint' && Number(v) === rule))
        out.push(`${name} = ${show(v)} is not supported by the local stack; it runs as with ${show(rule)}`);
    }
  };
  walk(raw, SPEC, '');
  return out;
}
