// Environment, validated once at start-up with zod. Defaults point at the local stack
// (`npm run stack -- start`), so `npm run dev` needs no .env. The browser receives only
// browserEnv() — the Supabase URL and the anon key, both public by design.
import { z } from 'zod';

// The Supabase CLI's published local anon key, public by design. Written out here because the app
// never imports the local stack (biome.json); tests/unit/env.test.ts checks it matches the stack's.
const LOCAL_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
// The CLI's published local secret key (supabase/local/keys.ts), likewise public. Used only when
// SUPABASE_URL is the local stack's (a loopback address), never sent anywhere else.
const LOCAL_SECRET_KEY = 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz';
const LOCAL_SESSION_SECRET = 'tend-local-session-secret-not-for-production';

const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .default('')
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  SUPABASE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:54321'),
  // The Supabase CLI's published local anon key (supabase/local/keys.ts), public by design.
  SUPABASE_ANON_KEY: z.string().min(20).default(LOCAL_ANON_KEY),
  /**
   * The project's secret API key (`sb_secret_…`), for the server's sign-in calls to Auth only (send a
   * code, verify one), which carry the end user's IP in Sb-Forwarded-For (docs/decisions/020-sign-in-limits.md).
   */
  SUPABASE_SECRET_KEY: z.string().startsWith('sb_secret_').optional(),
  /** Signs the app's own short-lived cookies (the pending sign-in, flash notices). */
  SESSION_SECRET: z.string().min(16).default(LOCAL_SESSION_SECRET),
  /** Set behind a proxy/load balancer: client IP from X-Forwarded-For, scheme from X-Forwarded-Proto. */
  TRUST_PROXY: flag,
  /** The public origin (https://tend.example) when it differs from what the server sees. */
  APP_ORIGIN: z.url().optional(),
  /** Host names the app answers besides loopback ones (server.ts: 421 for others); see allowed-hosts.ts. */
  ALLOWED_HOSTS: z.string().default(''),
  /** Extra `connect-src` entries for the CSP, space-separated. */
  CSP_CONNECT_SRC: z.string().default(''),
});

export type Env = z.infer<typeof EnvSchema> & {
  /** The key for the sign-in calls: SUPABASE_SECRET_KEY, or the local stack's; none for another unset project. */
  signInKey: string | null;
};

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function parseEnv(source: Record<string, string | undefined>): Env {
  // A variable set to nothing (`SESSION_SECRET=`) is a variable not set.
  const given = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''));
  const parsed = EnvSchema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid environment:\n${lines}`);
  }
  const values = parsed.data;
  // A production server must not sign cookies with a secret anyone can read in this file.
  if (values.NODE_ENV === 'production' && values.SESSION_SECRET === LOCAL_SESSION_SECRET) {
    throw new Error(
      'SESSION_SECRET is not set. Under NODE_ENV=production the app needs its own secret (at least 16 characters), ' +
        'e.g. SESSION_SECRET=$(openssl rand -hex 32).',
    );
  }
  const local = LOOPBACK_HOSTS.has(new URL(values.SUPABASE_URL).hostname);
  return { ...values, signInKey: values.SUPABASE_SECRET_KEY ?? (local ? LOCAL_SECRET_KEY : null) };
}

export const env = parseEnv(process.env);

if (env.NODE_ENV === 'production' && !env.signInKey) {
  console.warn(
    "[tend] SUPABASE_SECRET_KEY is not set: Auth will count every sign-in against this server's IP. Set it (see README).",
  );
}

export function browserEnv() {
  return { SUPABASE_URL: env.SUPABASE_URL, SUPABASE_ANON_KEY: env.SUPABASE_ANON_KEY };
}
