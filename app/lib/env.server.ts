// Environment, validated once at start-up with zod. Defaults point at the local stack
// (`npm run stack -- start`), so `npm run dev` needs no .env. The browser receives only
// browserEnv() — the Supabase URL and the anon key, both public by design.
import { z } from 'zod';

// The Supabase CLI's published local anon key, public by design. Written out here because the app
// never imports the local stack (biome.json); tests/unit/env.test.ts checks it matches the stack's.
const LOCAL_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
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
  /** Signs the app's own short-lived cookies (the pending sign-in, flash notices). */
  SESSION_SECRET: z.string().min(16).default(LOCAL_SESSION_SECRET),
  /** Set behind a proxy/load balancer: client IP from X-Forwarded-For, scheme from X-Forwarded-Proto. */
  TRUST_PROXY: flag,
  /** The public origin (https://tend.example) when it differs from what the server sees. */
  APP_ORIGIN: z.url().optional(),
  /** Extra `connect-src` entries for the CSP, space-separated. */
  CSP_CONNECT_SRC: z.string().default(''),
});

export type Env = z.infer<typeof EnvSchema>;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid environment:\n${lines}`);
  }
  return parsed.data;
}

export const env = parseEnv(process.env);

if (env.NODE_ENV === 'production' && env.SESSION_SECRET === LOCAL_SESSION_SECRET) {
  console.warn('[tend] SESSION_SECRET is not set; using the local default. Set it in production.');
}

export function browserEnv() {
  return { SUPABASE_URL: env.SUPABASE_URL, SUPABASE_ANON_KEY: env.SUPABASE_ANON_KEY };
}
